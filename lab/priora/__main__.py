"""`python -m priora`: the same as the `priora` command."""

from priora.cli import main

raise SystemExit(main())

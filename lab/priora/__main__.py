"""`python -m priora`: the same as the `priora` command."""

from priora.cli.main import main

raise SystemExit(main())

"""`python -m priora`: the same as the `priora` command."""

from priora.cli.main import run_command

run_command()

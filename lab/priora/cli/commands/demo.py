"""`priora demo`: the classic priority inversion without and with
inheritance, side by side, and its Gantt charts (priora.cli.demo).

    priora demo [--out DIR]
"""

from __future__ import annotations

from priora.cli import writing
from priora.cli.options import Arg, UsageError, path

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from priora.cli.options import Handler

DEFAULT_DEMO_DIR = "priora-demo"


def arguments(command: str) -> tuple[list[Arg], Handler]:
    return [
        Arg(
            "--out",
            type=path,
            default=DEFAULT_DEMO_DIR,  # a str default goes through `type`, as argparse does
            metavar="DIR",
            help=f"directory for the Gantt charts (default: {DEFAULT_DEMO_DIR})",
        )
    ], _demo


def _demo(args: argparse.Namespace) -> str:
    out: Path = args.out
    try:
        from priora.cli import demo

        return demo.run(out)
    except ImportError as exc:  # the charts need matplotlib
        raise writing.import_problem("demo", exc) from None
    except OSError as exc:
        raise UsageError(f"demo: cannot write into {out}: {exc.strerror or exc}") from None

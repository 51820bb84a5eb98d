"""`priora demo`: the classic priority inversion without and with
inheritance, side by side, and its Gantt charts (priora.cli.demo).

    priora demo [--out DIR]
"""

from __future__ import annotations

from priora.cli import writing
from priora.cli.parser import UsageError, path

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

DEFAULT_DEMO_DIR = "priora-demo"


def add_arguments(command: str, parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        type=path,
        default=path(DEFAULT_DEMO_DIR),
        metavar="DIR",
        help=f"directory for the Gantt charts (default: {DEFAULT_DEMO_DIR})",
    )
    parser.set_defaults(handler=_demo)


def _demo(args: argparse.Namespace) -> str:
    out: Path = args.out
    try:
        from priora.cli import demo

        return demo.run(out)
    except ImportError as exc:  # the charts need matplotlib
        raise writing.import_problem("demo", exc) from None
    except OSError as exc:
        raise UsageError(f"demo: cannot write into {out}: {exc.strerror or exc}") from None

"""What every `priora` command's parser shares: argparse's parser and help
formatter made cheap to start, the errors a command reports in one line, the
options several commands take and the values they default to.

The command modules (priora.cli.commands) build their parsers from these;
none of this imports pathlib, typing or a module of the lab beyond
priora.inputs, so that a command starts with only what it needs
(benchmarks/cli_startup.py).
"""

from __future__ import annotations

import argparse
import os
import sys

from priora import inputs
from priora.errors import PrioraError

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

EXIT_OK = 0
EXIT_STRICT = 1  # --strict: the run refused a call or missed a deadline
EXIT_USER = 2

# The names below are the same as their homes' (tests/lab/test_cli.py checks):
# importing the homes would cost every command their start-up.
PROTOCOLS = ("none", "pip", "pcp", "ipcp", "npcs", "rcs")  # priora.scenario.model.PROTOCOLS
ANALYSIS_PROTOCOLS = PROTOCOLS  # priora.analysis.blocking.PROTOCOLS
DEFAULT_MAX_JOBS = 1_000_000  # priora.scenario.bounds.DEFAULT_MAX_JOBS
DEFAULT_MAX_TICKS = 1_000_000_000  # priora.scenario.bounds.DEFAULT_MAX_TICKS
DEFAULT_MAX_ACTIONS = 10_000_000  # priora.scenario.bounds.DEFAULT_MAX_ACTIONS


class UsageError(PrioraError):
    """A bad option value, found after argparse accepted the syntax."""


class Outcome:
    """A command's output, and the reasons --strict fails it (one line each)."""

    __slots__ = ("text", "failures")

    def __init__(self, text: str, failures: tuple[str, ...] = ()) -> None:
        self.text = text
        self.failures = failures


def path(text: str) -> Path:
    """argparse's type for a file or directory option: pathlib is imported
    only when such an option is given (a scenario FILE stays a str)."""
    from pathlib import Path

    return Path(text)


def _terminal_columns() -> int:
    """shutil.get_terminal_size().columns, without importing shutil (which
    argparse's help formatter does at every argument it is given: start-up)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 80
    except (AttributeError, ValueError, OSError):
        return 80


class Formatter(argparse.HelpFormatter):
    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
    ) -> None:
        # argparse's own default width: the terminal's, less 2.
        super().__init__(
            prog, indent_increment, max_help_position, _terminal_columns() - 2 if width is None else width
        )


class Parser(argparse.ArgumentParser):
    """argparse's parser with Formatter; its subcommands' parsers are
    Parsers too (add_subparsers makes them of the parser's class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)


def protocols_option(parser: argparse.ArgumentParser, only: str, default: str) -> None:
    """--protocol P ...: the protocols of ANALYSIS_PROTOCOLS a study looks at."""
    parser.add_argument(
        "--protocol",
        action="extend",
        nargs="+",
        choices=ANALYSIS_PROTOCOLS,
        metavar="P",
        help=f"{only} ({', '.join(ANALYSIS_PROTOCOLS)}; default: {default})",
    )


def strict_option(parser: argparse.ArgumentParser, detail: str = "") -> None:
    parser.add_argument(
        "--strict",
        action="store_true",
        help=f"exit with status 1 if the kernel refused a call or a job missed its deadline{detail}",
    )


def table_options(parser: argparse.ArgumentParser) -> None:
    """--format and --csv: the command's tables as Markdown, and as CSV files (priora.tables)."""
    parser.add_argument(
        "--format",
        choices=("text", "markdown"),
        help="the tables as aligned text (the default) or as Markdown tables (not with --json)",
    )
    parser.add_argument(
        "--csv", type=path, metavar="DIR", help="also write each table as DIR/<table>.csv (DIR is created)"
    )


def limit_options(parser: argparse.ArgumentParser, refuse: str, max_jobs: int = DEFAULT_MAX_JOBS) -> None:
    """--max-jobs, --max-actions and --max-ticks: the bounds on one
    simulation (priora.scenario.bounds)."""
    parser.add_argument(
        "--max-jobs",
        type=inputs.integer("--max-jobs", 1),
        default=max_jobs,
        metavar="N",
        help=f"{refuse} release more than N jobs (default: {max_jobs})",
    )
    parser.add_argument(
        "--max-actions",
        type=inputs.integer("--max-actions", 1),
        default=DEFAULT_MAX_ACTIONS,
        metavar="N",
        help=f"{refuse} run more than N body actions (default: {DEFAULT_MAX_ACTIONS})",
    )
    parser.add_argument(
        "--max-ticks",
        type=inputs.integer("--max-ticks", 1),
        default=DEFAULT_MAX_TICKS,
        metavar="N",
        help=f"{refuse} compute for more than N ticks (default: {DEFAULT_MAX_TICKS})",
    )

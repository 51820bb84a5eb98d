"""argparse for the `priora` commands: its parser and help formatter made
cheap to start, given the options the commands declare (priora.cli.options).
"""

from __future__ import annotations

import argparse
import os
import sys

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from priora.cli.options import Arg


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


def add_all(parser: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup, args: Iterable[Arg]) -> None:
    for arg in args:
        parser.add_argument(*arg.flags, **arg.settings)

"""A `priora` command's options, as data: each an `Arg`, the arguments of
argparse's add_argument. The command modules (priora.cli.commands) declare
theirs with the helpers below; priora.cli.parser gives them to argparse.

Declared once, the options serve two parsers that cannot disagree: argparse,
for any command line, and `plain_arguments`, for a command line with no
option at all (`priora simulate FILE`), which needs no argparse: its import
and its parser's construction, with gettext's look-ups of argparse's
messages, are a fifth of the interpreter's start-up (benchmarks/cli_startup.py).
`plain_arguments` reads the same declarations as argparse would: every
option its default, every positional its value, its type applied.
tests/lab/test_cli.py compares the two for every command.

Nothing here imports argparse, pathlib, typing or a module of the lab beyond
priora.inputs.
"""

from __future__ import annotations

from types import SimpleNamespace

from priora import inputs
from priora.errors import PrioraError

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from typing import Any

    Handler = Callable[[Any], "str | Outcome"]

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


class Arg:
    """One argument of a command: what argparse's add_argument is given."""

    __slots__ = ("flags", "settings")

    def __init__(self, *flags: str, **settings: Any) -> None:
        self.flags = flags
        self.settings = settings

    @property
    def positional(self) -> bool:
        return not self.flags[0].startswith("-")

    @property
    def dest(self) -> str:
        """argparse's attribute name: `dest`, else the first long flag's (or
        the first flag's) name, '-' read as '_'."""
        if "dest" in self.settings:
            dest: str = self.settings["dest"]
            return dest
        if self.positional:
            return self.flags[0]
        long = next((f for f in self.flags if f.startswith("--")), self.flags[0])
        return long.lstrip("-").replace("-", "_")

    def default(self) -> object:
        """The value argparse gives an option that is not on the command line
        (a str default goes through `type`, as argparse does)."""
        action = self.settings.get("action")
        flag = {"store_true": False, "store_false": True}.get(action)  # type: ignore[arg-type]
        value = self.settings.get("default", flag)
        kind = self.settings.get("type")
        return kind(value) if isinstance(value, str) and kind is not None else value


def plain_arguments(
    command: str, args: Sequence[Arg], handler: Handler, given: Sequence[str]
) -> SimpleNamespace | None:
    """What argparse would parse from `command` followed by `given`, when
    `given` is exactly the command's positionals and no option; None for any
    other command line (argparse's then, with its messages)."""
    positionals = [a for a in args if a.positional]
    if len(given) != len(positionals) or any(value.startswith("-") for value in given):
        return None
    if any(a.settings.get("nargs") is not None for a in positionals) or any(
        a.settings.get("required") for a in args
    ):
        return None  # argparse decides what such a line means
    parsed: dict[str, object] = {"command": command}
    for arg in args:
        if not arg.positional:
            parsed[arg.dest] = arg.default()
    for arg, value in zip(positionals, given, strict=True):
        kind = arg.settings.get("type")
        parsed[arg.dest] = kind(value) if kind is not None else value
    parsed["handler"] = handler
    return SimpleNamespace(**parsed)


def path(text: str) -> Path:
    """argparse's type for a file or directory option: pathlib is imported
    only when such an option is given (a scenario FILE stays a str)."""
    from pathlib import Path

    return Path(text)


# ---------------------------------------------------------------- options several commands take


def protocols_option(only: str, default: str) -> Arg:
    """--protocol P ...: the protocols of ANALYSIS_PROTOCOLS a study looks at."""
    return Arg(
        "--protocol",
        action="extend",
        nargs="+",
        choices=ANALYSIS_PROTOCOLS,
        metavar="P",
        help=f"{only} ({', '.join(ANALYSIS_PROTOCOLS)}; default: {default})",
    )


def strict_option(detail: str = "") -> Arg:
    return Arg(
        "--strict",
        action="store_true",
        help=f"exit with status 1 if the kernel refused a call or a job missed its deadline{detail}",
    )


def table_options() -> list[Arg]:
    """--format and --csv: the command's tables as Markdown, and as CSV files (priora.tables)."""
    return [
        Arg(
            "--format",
            choices=("text", "markdown"),
            help="the tables as aligned text (the default) or as Markdown tables (not with --json)",
        ),
        Arg(
            "--csv",
            type=path,
            metavar="DIR",
            help="also write each table as DIR/<table>.csv (DIR is created)",
        ),
    ]


def limit_options(refuse: str, max_jobs: int = DEFAULT_MAX_JOBS) -> list[Arg]:
    """--max-jobs, --max-actions and --max-ticks: the bounds on one
    simulation (priora.scenario.bounds)."""
    return [
        Arg(
            "--max-jobs",
            type=inputs.integer("--max-jobs", 1),
            default=max_jobs,
            metavar="N",
            help=f"{refuse} release more than N jobs (default: {max_jobs})",
        ),
        Arg(
            "--max-actions",
            type=inputs.integer("--max-actions", 1),
            default=DEFAULT_MAX_ACTIONS,
            metavar="N",
            help=f"{refuse} run more than N body actions (default: {DEFAULT_MAX_ACTIONS})",
        ),
        Arg(
            "--max-ticks",
            type=inputs.integer("--max-ticks", 1),
            default=DEFAULT_MAX_TICKS,
            metavar="N",
            help=f"{refuse} compute for more than N ticks (default: {DEFAULT_MAX_TICKS})",
        ),
    ]

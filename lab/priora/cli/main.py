"""The `priora` command (docs/lab.md).

    priora simulate FILE [--protocol P] [--json] [--gantt OUT.png|OUT.svg|OUT.pdf]
                         [--window FROM:TO|miss] [--size WxH] [--dpi N]
                         [--trace OUT.json] [--ctf DIR] [--html OUT.html] [--horizon T] [--strict]
                         [--summary] [--format text|markdown] [--csv DIR]
                         [--max-jobs N] [--max-actions N] [--max-ticks N]
    priora run FILE --target qemu-rv32|qemu-rv64 [the same options] [--timeout S]
    priora trace FILE [--run LABEL] [--scenario FILE] [--list] [simulate's outputs: --json --gantt
                      --window --size --dpi --trace --ctf --html --strict --summary --format --csv]
    priora demo [--out DIR]
    priora analyze FILE [--json] [--protocol P ...] [--format text|markdown] [--csv DIR]
    priora breakdown FILE --vary TASK.FIELD [--protocol P ...] [--json] [--synchronous]
                     [--ignore TASK ...] [--cost-model M [--cpu-hz HZ]]
                     [--format text|markdown] [--csv DIR]
                     [--max-jobs N] [--max-actions N] [--max-ticks N]
    priora experiments [--out DIR] [--bench FILE] [--quick]
    priora bench [--arch rv32,rv64] [--trace off,on] [--json OUT] [--no-build]
    priora generate [SPEC] --out DIR [--count N] [--seed S] [--set KEY=VALUE ...]
    priora campaign SPEC [--db FILE] [--jobs N] [--limit N] [--max-jobs N]
                         [--plot OUT] [--csv OUT] [--ray ADDRESS]
    priora campaign rerun DB ROW [--scenario OUT.toml]
    priora campaign summary DB
    priora campaign plot DB OUT.png|OUT.svg|OUT.pdf
    priora campaign export DB --csv OUT.csv | --parquet OUT.parquet

A user's mistake (an invalid file, a bad option value, an output that cannot
be written) is printed as one line `priora: <message>` on stderr with exit
status 2, never as a traceback; argparse's usage errors exit 2 as well. With
--strict, a run in which the kernel refused a call or a job missed its
deadline exits 1 after its report, with one line `priora: strict: <reason>`
on stderr per reason.

Every input is bounded first (docs/lab.md, "Limits"): the work of a run
(priora.scenario.bounds), the files and numbers read (priora.inputs), the files
written (priora.outputs).

Each command is defined in its module of priora.cli.commands; this one
parses the command line and turns a user's mistake into its one line.
"""

from __future__ import annotations

import os
import sys

from priora import __version__
from priora.cli.options import EXIT_OK, EXIT_STRICT, EXIT_USER, Outcome, plain_arguments
from priora.errors import PrioraError

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from types import ModuleType

    from priora.cli.options import Arg, Handler

    Declared = tuple[list[Arg], Handler]  # a command module's arguments(command)

# Each command: the module of priora.cli.commands that defines it, and its
# line in `priora --help`. A command's module is imported when it runs, and
# the parser is built for it alone: the lab's start-up is that of the command
# asked for (benchmarks/cli_startup.py).
COMMANDS: dict[str, tuple[str, str]] = {
    "simulate": ("simulate", "run a scenario file and report what happened"),
    "run": ("simulate", "run a scenario file on the real kernel under QEMU and report what happened"),
    "trace": (
        "simulate",
        "read the kernel trace of any program (a host trace dump or a QEMU UART log) "
        "and report what happened",
    ),
    "demo": ("demo", "the priority inversion without and with inheritance"),
    "analyze": ("analyze", "schedulability analysis: blocking, response times and tests per protocol"),
    "breakdown": (
        "breakdown",
        "the largest value of a task's field (execution time, section, ...) that meets every deadline",
    ),
    "experiments": (
        "experiments",
        "Real-Time Mach's and MINIX4RT's experiments on Priora, beside the papers",
    ),
    "bench": ("experiments", "the kernel's microbenchmarks on QEMU, in instructions (scripts/bench.sh)"),
    "generate": (
        "generate",
        "write random task sets as scenario files (UUniFast-Discard, Dirichlet-Rescale, ...)",
    ),
    "campaign": (
        "campaign",
        "generated task sets by the thousand, per protocol, by analysis and on the kernel",
    ),
}
# Commands whose options are parsed elsewhere: bench's by bench.py, and
# campaign's by its own parser, which has subcommands on a database.
PASSED_ON = ("bench", "campaign")


def _module(command: str) -> ModuleType:
    # __import__, not importlib.import_module: importlib's import (with
    # warnings') is start-up. With a fromlist it returns the submodule.
    module: ModuleType = __import__(f"priora.cli.commands.{COMMANDS[command][0]}", fromlist=["arguments"])
    return module


def _parser(command: str | None, declared: Declared | None = None) -> argparse.ArgumentParser:
    """argparse's parser of `command`, given its options and handler when
    they are at hand (`declared`); with None (no command, --help, --version,
    a command that does not exist), every command's name and help line only."""
    from priora.cli.parser import Parser, add_all

    parser = Parser(
        prog="priora",
        description="Priora's lab: real-time task sets simulated on the Priora kernel.",
    )
    parser.add_argument("--version", action="version", version=f"priora {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        if command is None or name == command:
            sub = commands.add_parser(name, help=help_text)
            if name == command:
                options, handler = declared if declared is not None else _module(name).arguments(name)
                add_all(sub, options)
                sub.set_defaults(handler=handler)
    return parser


def _args(argv: list[str]) -> argparse.Namespace:
    """The parsed command line; SystemExit for --help and argparse's usage
    errors. A command and its positionals alone (`priora simulate FILE`) are
    read without argparse, as argparse would read them (priora.cli.options)."""
    command = argv[0] if argv and argv[0] in COMMANDS else None
    if command == "bench":
        from argparse import Namespace

        from priora.cli.commands.experiments import bench

        return Namespace(handler=bench, options=argv[1:])
    if command == "campaign":
        from priora.cli.commands import campaign

        return campaign.parse_args(argv[1:])
    declared: Declared | None = None
    if command is not None:
        declared = _module(command).arguments(command)
        options, handler = declared
        plain = plain_arguments(command, options, handler, argv[1:])
        if plain is not None:
            return plain  # type: ignore[return-value]  # the same attributes as argparse's Namespace
    return _parser(command, declared).parse_args(argv)


# ---------------------------------------------------------------- main


def _error(message: str) -> int:
    # One line, even for a message with newlines in it (an OS error, a TOML error).
    print(f"priora: {' '.join(message.splitlines())}", file=sys.stderr)
    return EXIT_USER


def main(argv: list[str] | None = None) -> int:
    """Runs the command line `argv` (default: sys.argv[1:]); returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = _args(argv)
        args.command_line = ["priora", *argv]  # for the documents' provenance (priora.provenance)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else EXIT_OK if exc.code is None else EXIT_USER
    except PrioraError as exc:  # a number option's own check (priora.inputs): one line
        return _error(str(exc))
    handler: Callable[[argparse.Namespace], str | Outcome] = args.handler
    try:
        done = handler(args)
    except PrioraError as exc:
        return _error(str(exc))
    except OSError as exc:  # a file the user named: missing, unreadable
        name = exc.filename if exc.filename is not None else ""
        return _error(f"{name}: {exc.strerror or exc}" if name else str(exc))
    outcome = done if isinstance(done, Outcome) else Outcome(done)
    output = outcome.text
    _print(output if output.endswith("\n") else output + "\n")
    for failure in outcome.failures:  # after the report, so a CI log ends with them
        print(f"priora: strict: {failure}", file=sys.stderr)
    return EXIT_STRICT if outcome.failures else EXIT_OK


def _print(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader left (`priora simulate f | head`): not an error. Point
        # stdout at /dev/null so that the interpreter's final flush is quiet.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def run_command() -> None:
    """The `priora` program (lab/pyproject.toml's entry point): main() on the
    process's command line, then the process's end."""
    _exit(main())


def _exit(status: int) -> None:
    """Ends the process with `status` as Python's own exit would, less its
    last step. Python runs the atexit handlers, flushes the standard streams,
    then tears every module down, freeing what the process's end frees
    anyway: for a lab command that teardown costs about a fifth of the
    interpreter's start-up (benchmarks/cli_startup.py). A process that
    imported threading (a campaign's pool, matplotlib) may have a thread to
    wait for, and a stream that cannot be flushed makes Python's exit status
    120: both take Python's own exit."""
    if "threading" in sys.modules:
        sys.exit(status)
    import atexit

    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(status)
    os._exit(status)

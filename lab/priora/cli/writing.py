"""A command's outputs: checked before anything runs (so that a typo costs
no simulation), then written whole or not at all (priora.outputs), and its
tables printed as --format asks and written into --csv DIR.

Every writer is imported when its option is given: matplotlib for --gantt
only, the trace formats for --trace and --ctf.
"""

from __future__ import annotations

import sys

from priora.cli.options import UsageError

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from os import PathLike
    from pathlib import Path
    from typing import Any

    from priora.run.simulate import SimResult
    from priora.scenario.model import Scenario
    from priora.tables import Section

    Source = str | PathLike[str] | None
    Writer = Callable[[SimResult, Path], None]


def check_output(
    option: str, path: Path | None, suffixes: tuple[str, ...], sources: tuple[Source, ...] = ()
) -> None:
    """Refuses an output before anything runs, so a typo costs no simulation;
    also one that is one of the command's input files, `sources`."""
    if path is None:
        return
    from priora import outputs

    if path.suffix.lower() not in suffixes:
        raise UsageError(f"{option}: {path}: the file name must end with {' or '.join(suffixes)}")
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(f"{option}: {path}: directory {parent} does not exist")
    outputs.refuse_input(option, path, sources)


def check_ctf_directory(path: Path | None, sources: tuple[Source, ...] = ()) -> None:
    """--ctf DIR: a directory, or a name whose parent is one."""
    if path is None:
        return
    if path.exists() and not path.is_dir():
        raise UsageError(f"--ctf: {path}: not a directory")
    if not path.exists() and not path.parent.is_dir():
        raise UsageError(f"--ctf: {path}: directory {path.parent} does not exist")
    from priora import outputs

    for name in ("metadata", "stream"):  # ctf.write's files, never over the input
        outputs.refuse_input("--ctf", path / name, sources)


def check_tables(args: argparse.Namespace) -> None:
    """--format and --csv, before anything runs."""
    if args.format is not None and args.json:
        raise UsageError(f"--format {args.format}: not with --json (the JSON document has no tables)")
    csv: Path | None = args.csv
    if csv is not None and csv.exists() and not csv.is_dir():
        raise UsageError(f"--csv: {csv} exists and is not a directory")
    if csv is not None and csv.is_dir():  # a table over the input file (priora.outputs)
        from priora import outputs

        for table in sorted(csv.glob("*.csv")):
            outputs.refuse_input("--csv", table, (args.file,))


def tables(args: argparse.Namespace, sections: Sequence[Section]) -> str:
    """The tables as --format asks, after writing them into --csv DIR."""
    from priora.tables import render, write_csv

    if args.csv is not None:
        write_csv(sections, args.csv)
    return render(sections, args.format or "text")


def provenance(
    args: argparse.Namespace, document: str, scenario: Scenario | None, **found: Any
) -> dict[str, Any]:
    """The provenance block of a document this command writes (priora.provenance):
    the command line, FILE and its SHA-256, and what the scenario ran with."""
    from priora.provenance import provenance

    if scenario is not None:
        found.setdefault("protocol", scenario.system.protocol)
        model = scenario.system.cost_model
        found.setdefault("cost_model", "zero" if model is None else model.name)
    return provenance(document, args.command_line, args.file, **found)


def write_result(
    option: str, path: Path, writer: Callable[[], Writer], result: SimResult, whole: bool = True
) -> None:
    """Imports the writer only now (matplotlib is needed for --gantt only,
    at import or at drawing time) and turns what the user can fix into one
    line. A file is written whole or not at all (priora.outputs); a
    directory's writer (whole=False: --ctf) renames each of its files itself."""
    from priora import outputs

    try:
        if whole:
            with outputs.replacing(path) as temporary:
                writer()(result, temporary)
        else:
            writer()(result, path)
    except ImportError as exc:
        raise import_problem(option, exc) from None
    except OSError as exc:
        raise UsageError(f"{option}: cannot write {path}: {exc.strerror or exc}") from None


def write_file(option: str, path: Path, write: Callable[[Path], object]) -> None:
    """write(a temporary path), renamed to `path` when it succeeds (priora.outputs)."""
    from priora import outputs

    try:
        with outputs.replacing(path) as temporary:
            write(temporary)
    except ImportError as exc:
        raise import_problem(option, exc) from None
    except OSError as exc:
        raise UsageError(f"{option}: cannot write {path}: {exc.strerror or exc}") from None


def import_problem(what: str, exc: ImportError) -> UsageError:
    """matplotlib is the one optional dependency: name it when it is the one missing."""
    if (exc.name or "").split(".")[0] == "matplotlib":
        return UsageError(f"{what} needs matplotlib: {exc}")
    return UsageError(f"{what}: {exc}")


def notice(text: str) -> None:
    """A line on stderr about an output drawn, but not as asked."""
    print(f"priora: {text}", file=sys.stderr)

"""`priora campaign`: generated task sets by the thousand, per protocol, by
analysis and on the kernel (priora.campaign), and its database read back.
A command of its own, with subcommands on a database: priora.cli.main hands
parse_args() everything after `campaign`.

    priora campaign SPEC [options]
    priora campaign rerun|summary|plot|export DB ...

(their options: priora.cli.main's text, or `priora campaign SPEC --help`).
"""

from __future__ import annotations

import argparse

from priora import inputs
from priora.cli import writing
from priora.cli.options import UsageError, path
from priora.cli.parser import Parser

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from pathlib import Path

COMMANDS = ("rerun", "summary", "plot", "export")
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def parse_args(options: list[str]) -> argparse.Namespace:
    """The arguments after `priora campaign`: SPEC and its options, or one of
    COMMANDS on a database."""
    command = options[0] if options and options[0] in COMMANDS else None
    return _parser(command).parse_args(options[1:] if command else options)


def _parser(command: str | None) -> argparse.ArgumentParser:
    """The options of `priora campaign SPEC` (command None) or of one of
    COMMANDS on a database."""
    if command is None:
        p = Parser(
            prog="priora campaign",
            description="Runs (or resumes) the campaign of SPEC (docs/campaigns.md). On its database: "
            "priora campaign rerun DB ROW, summary DB, plot DB OUT, export DB --csv OUT.",
        )
        p.add_argument("spec", type=path, metavar="SPEC", help="campaign specification (TOML)")
        p.add_argument(
            "--db", type=path, metavar="FILE", help="SQLite results (default: SPEC's name .sqlite, here)"
        )
        p.add_argument(
            "--jobs",
            type=inputs.integer("--jobs"),
            metavar="N",
            help="worker processes (default: every core)",
        )
        p.add_argument(
            "--limit",
            type=inputs.integer("--limit"),
            metavar="N",
            help="run at most N sets now; run again to go on",
        )
        p.add_argument(
            "--max-jobs",
            type=inputs.integer("--max-jobs"),
            metavar="N",
            help="refuse a campaign estimated to simulate more than N jobs (default: 200 million)",
        )
        p.add_argument(
            "--plot", type=path, metavar="OUT", help="also draw the acceptance ratios (.png, .svg, .pdf)"
        )
        p.add_argument("--csv", type=path, metavar="OUT", help="also export every row (.csv)")
        p.add_argument("--ray", metavar="ADDRESS", help="run on the Ray cluster at ADDRESS (priora[cluster])")
        p.set_defaults(handler=_run)
        return p
    p = Parser(prog=f"priora campaign {command}")
    p.add_argument("db", type=path, metavar="DB", help="a campaign's database")
    if command == "rerun":
        p.description = (
            "Computes one row again from the specification alone and compares it with the database."
        )
        p.add_argument("row", type=inputs.integer("ROW"), metavar="ROW", help="the row number")
        p.add_argument("--scenario", type=path, metavar="OUT", help="also write the row's set (.toml)")
        p.set_defaults(handler=_rerun)
    elif command == "summary":
        p.description = "Acceptance ratios, weighted schedulability and findings."
        p.set_defaults(handler=_summary)
    elif command == "plot":
        p.description = "Acceptance ratio and weighted schedulability against the axis, per protocol."
        p.add_argument("out", type=path, metavar="OUT", help="the figure (.png, .svg or .pdf)")
        p.set_defaults(handler=_plot)
    else:
        p.description = "Every row as CSV, or as Parquet when pyarrow is installed."
        out = p.add_mutually_exclusive_group(required=True)
        out.add_argument("--csv", type=path, metavar="OUT", help="write a CSV file")
        out.add_argument("--parquet", type=path, metavar="OUT", help="write a Parquet file (needs pyarrow)")
        p.set_defaults(handler=_export)
    return p


def _run(args: argparse.Namespace) -> str:
    from pathlib import Path

    from priora import campaign
    from priora.campaign import db, plot, report

    writing.check_output("--plot", args.plot, PLOT_SUFFIXES, (args.spec,))
    writing.check_output("--csv", args.csv, (".csv",), (args.spec,))
    for option, value, least in (
        ("--jobs", args.jobs, 1),
        ("--limit", args.limit, 1),
        ("--max-jobs", args.max_jobs, 0),
    ):
        if value is not None and value < least:
            raise UsageError(f"{option}: must be >= {least}, got {value}")
    database: Path = args.db if args.db is not None else Path(args.spec.stem + ".sqlite")
    writing.check_output("--db", database, (".sqlite", ".db", ".sqlite3"), (args.spec, args.plot, args.csv))
    spec = campaign.load(args.spec)
    outcome = campaign.run(
        spec,
        database,
        jobs=args.jobs,
        limit=args.limit,
        max_jobs=args.max_jobs if args.max_jobs is not None else campaign.DEFAULT_MAX_JOBS,
        ray_address=args.ray,
    )
    con = db.connect(database)
    try:
        text = report.summary(spec, con, database)
        if outcome.stopped:
            text += f"\nStopped after {outcome.ran} sets (--limit): run the same command again to go on.\n"
        if args.plot is not None:
            writing.write_file("--plot", args.plot, lambda out: plot.draw(spec, con, out))
        if args.csv is not None:
            writing.write_file("--csv", args.csv, lambda out: db.export_csv(con, out))
    finally:
        con.close()
    return text


def _rerun(args: argparse.Namespace) -> str:
    from priora.campaign import db, report

    writing.check_output("--scenario", args.scenario, (".toml",), (args.db,))
    con, spec = db.open_existing(args.db)
    try:
        again = report.rerun(spec, con, args.row, args.db)
        if args.scenario is not None:
            text = report.scenario_text(spec, args.row)
            writing.write_file("--scenario", args.scenario, lambda out: out.write_text(text))
        return report.rerun_text(spec, again, args.db, args.scenario)
    finally:
        con.close()


def _summary(args: argparse.Namespace) -> str:
    from priora.campaign import db, report

    con, spec = db.open_existing(args.db)
    try:
        return report.summary(spec, con, args.db)
    finally:
        con.close()


def _plot(args: argparse.Namespace) -> str:
    from priora.campaign import db, plot

    writing.check_output("plot", args.out, PLOT_SUFFIXES, (args.db,))
    con, spec = db.open_existing(args.db)
    try:
        writing.write_file("plot", args.out, lambda out: plot.draw(spec, con, out))
    finally:
        con.close()
    return f"wrote {args.out}"


def _export(args: argparse.Namespace) -> str:
    from priora.campaign import db

    out: Path = args.csv if args.csv is not None else args.parquet
    option = "--csv" if args.csv is not None else "--parquet"
    writing.check_output(option, out, (".csv",) if args.csv is not None else (".parquet",), (args.db,))
    con, _ = db.open_existing(args.db)
    try:
        writer = db.export_csv if args.csv is not None else db.export_parquet
        count = 0

        def write(temporary: Path) -> None:
            nonlocal count
            count = writer(con, temporary)

        writing.write_file(option, out, write)
    finally:
        con.close()
    return f"wrote {count} rows to {out}"

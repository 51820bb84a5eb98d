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
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from priora import __version__, inputs
from priora.errors import PrioraError, ScenarioError

# Every module a command needs is imported by that command, when it runs: the
# lab's start-up is that of the command asked for (benchmarks/cli_startup.py).
# The names below are the same as theirs (tests/lab/test_cli.py checks).
if TYPE_CHECKING:
    from priora.run.simulate import SimResult
    from priora.scenario.model import Protocol, Scenario
    from priora.tables import Section

EXIT_OK = 0
EXIT_STRICT = 1  # --strict: the run refused a call or missed a deadline
EXIT_USER = 2

PROTOCOLS = ("none", "pip", "pcp", "ipcp", "npcs", "rcs")  # priora.scenario.model.PROTOCOLS
ANALYSIS_PROTOCOLS = PROTOCOLS  # priora.analysis.blocking.PROTOCOLS

GANTT_SUFFIXES = (".png", ".svg", ".pdf")
TARGETS = ("qemu-rv32", "qemu-rv64")  # priora.run.qemu_run.TARGETS
TRACE_TARGET = "trace"  # priora trace: the kernel ran elsewhere, its costs were its own
DEFAULT_TIMEOUT = 120.0  # priora.run.qemu_run.DEFAULT_TIMEOUT
TRACE_SUFFIXES = (".json",)
HTML_SUFFIXES = (".html", ".htm")
DEFAULT_DEMO_DIR = Path("priora-demo")
COST_MODELS = ("zero", "rtmach93", "measured")  # priora.costs.model.NAMES
DEFAULT_MAX_JOBS = 1_000_000  # priora.scenario.bounds.DEFAULT_MAX_JOBS
DEFAULT_MAX_TICKS = 1_000_000_000  # priora.scenario.bounds.DEFAULT_MAX_TICKS
DEFAULT_MAX_ACTIONS = 10_000_000  # priora.scenario.bounds.DEFAULT_MAX_ACTIONS
BREAKDOWN_MAX_JOBS = 2_000_000  # priora.breakdown.search.MAX_JOBS_PER_RUN: its runs keep no report


class UsageError(PrioraError):
    """A bad option value, found after argparse accepted the syntax."""


# ---------------------------------------------------------------- parser


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


class _Formatter(argparse.HelpFormatter):
    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
    ) -> None:
        # argparse's own default width: the terminal's, less 2.
        super().__init__(
            prog, indent_increment, max_help_position, _terminal_columns() - 2 if width is None else width
        )


class _Parser(argparse.ArgumentParser):
    """argparse's parser with _Formatter; its subcommands' parsers are
    _Parsers too (add_subparsers makes them of the parser's class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="priora",
        description="Priora's lab: real-time task sets simulated on the Priora kernel.",
    )
    parser.add_argument("--version", action="version", version=f"priora {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sim = commands.add_parser("simulate", help="run a scenario file and report what happened")
    _scenario_options(sim)
    sim.set_defaults(handler=_simulate)

    run = commands.add_parser(
        "run", help="run a scenario file on the real kernel under QEMU and report what happened"
    )
    _scenario_options(run)
    run.add_argument("--target", required=True, choices=TARGETS, help="where the kernel runs")
    run.add_argument(
        "--timeout",
        type=inputs.seconds("--timeout"),
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help=f"give up when QEMU takes longer than S seconds of wall time (default: {DEFAULT_TIMEOUT:g})",
    )
    run.set_defaults(handler=_run)

    trace = commands.add_parser(
        "trace",
        help="read the kernel trace of any program (a host trace dump or a QEMU UART log) "
        "and report what happened",
    )
    _trace_options(trace)
    trace.set_defaults(handler=_trace)

    demo = commands.add_parser("demo", help="the priority inversion without and with inheritance")
    demo.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_DEMO_DIR,
        metavar="DIR",
        help=f"directory for the Gantt charts (default: {DEFAULT_DEMO_DIR})",
    )
    demo.set_defaults(handler=_demo)

    analyze = commands.add_parser(
        "analyze", help="schedulability analysis: blocking, response times and tests per protocol"
    )
    analyze.add_argument("file", type=Path, metavar="FILE", help="scenario file (TOML)")
    analyze.add_argument("--json", action="store_true", help="print the analysis as one JSON document")
    analyze.add_argument(
        "--protocol",
        action="extend",
        nargs="+",
        choices=ANALYSIS_PROTOCOLS,
        metavar="P",
        help=f"analyse only these protocols ({', '.join(ANALYSIS_PROTOCOLS)}; default: all)",
    )
    _table_options(analyze)
    analyze.set_defaults(handler=_analyze)

    breakdown = commands.add_parser(
        "breakdown",
        help="the largest value of a task's field (execution time, section, ...) that meets every deadline",
    )
    breakdown.add_argument("file", type=Path, metavar="FILE", help="scenario file (TOML)")
    breakdown.add_argument(
        "--vary",
        required=True,
        metavar="TASK.FIELD",
        help="what to vary: TASK.wcet, TASK.section.MUTEX, TASK.body[i], TASK.period or TASK.deadline",
    )
    breakdown.add_argument(
        "--protocol",
        action="extend",
        nargs="+",
        choices=ANALYSIS_PROTOCOLS,
        metavar="P",
        help=f"only these protocols ({', '.join(ANALYSIS_PROTOCOLS)}; default: every one the lab simulates)",
    )
    breakdown.add_argument("--json", action="store_true", help="print the breakdown as one JSON document")
    breakdown.add_argument(
        "--synchronous", action="store_true", help="release every task at 0 (ignore the file's phases)"
    )
    breakdown.add_argument(
        "--ignore",
        action="extend",
        nargs="+",
        default=[],
        metavar="TASK",
        help="do not judge these tasks' deadlines (their misses do not count)",
    )
    breakdown.add_argument(
        "--cost-model",
        choices=COST_MODELS,
        help="the kernel's costs in the simulations (default: the file's [system] cost_model)",
    )
    breakdown.add_argument(
        "--cpu-hz",
        type=inputs.integer("--cpu-hz"),
        metavar="HZ",
        help="the CPU clock rate, for --cost-model measured",
    )
    _table_options(breakdown)
    _limit_options(breakdown, "refuse a simulation estimated to", BREAKDOWN_MAX_JOBS)
    breakdown.set_defaults(handler=_breakdown)

    experiments = commands.add_parser(
        "experiments", help="Real-Time Mach's and MINIX4RT's experiments on Priora, beside the papers"
    )
    experiments.add_argument(
        "--out", type=Path, metavar="DIR", help="also write experiments.md and experiments.json into DIR"
    )
    experiments.add_argument(
        "--bench",
        type=Path,
        metavar="FILE",
        help="QEMU figures from scripts/bench.sh --json FILE (default: the ones shipped with the lab)",
    )
    experiments.add_argument(
        "--quick",
        action="store_true",
        help="the zero and rtmach93 cost models and the paper's protocols only",
    )
    experiments.set_defaults(handler=_experiments)

    bench = commands.add_parser(
        "bench",
        help="the kernel's microbenchmarks on QEMU, in instructions (scripts/bench.sh)",
        description="Builds and runs benchmarks/riscv/bench_*.c under QEMU -icount shift=0 and prints "
        "instructions per operation (docs/performance.md). Options go to benchmarks/riscv/bench.py: "
        "--arch rv32,rv64 --trace off,on --json OUT --no-build.",
    )
    bench.add_argument("options", nargs=argparse.REMAINDER, help="options of benchmarks/riscv/bench.py")
    bench.set_defaults(handler=_bench)

    generate = commands.add_parser(
        "generate", help="write random task sets as scenario files (UUniFast-Discard, Dirichlet-Rescale, ...)"
    )
    generate.add_argument(
        "spec",
        type=Path,
        nargs="?",
        metavar="SPEC",
        help="a TOML file whose [generator] table gives the parameters (a campaign's works)",
    )
    generate.add_argument("--out", type=Path, required=True, metavar="DIR", help="directory for the files")
    generate.add_argument(
        "--count", type=inputs.integer("--count"), default=1, metavar="N", help="how many sets (default: 1)"
    )
    generate.add_argument(
        "--seed", type=inputs.integer("--seed"), default=1, metavar="S", help="the series' seed (default: 1)"
    )
    generate.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a generator parameter, over the file's (a TOML value: tasks=6, periods=[10,20])",
    )
    generate.set_defaults(handler=_generate)

    campaign = commands.add_parser(
        "campaign",
        help="generated task sets by the thousand, per protocol, by analysis and on the kernel",
        description="priora campaign SPEC runs a campaign; priora campaign rerun|summary|plot|export DB "
        "reads its database. priora campaign SPEC --help lists the options.",
    )
    campaign.add_argument(
        "options", nargs=argparse.REMAINDER, help="SPEC and options, or rerun|summary|plot|export DB"
    )
    campaign.set_defaults(handler=_campaign)
    return parser


CAMPAIGN_COMMANDS = ("rerun", "summary", "plot", "export")
MAX_GENERATED = 1_000_000  # priora generate --count: files in one directory
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def _campaign_parser(command: str | None) -> argparse.ArgumentParser:
    """The options of `priora campaign SPEC` (command None) or of one of
    CAMPAIGN_COMMANDS on a database."""
    if command is None:
        p = _Parser(
            prog="priora campaign",
            description="Runs (or resumes) the campaign of SPEC (docs/campaigns.md). On its database: "
            "priora campaign rerun DB ROW, summary DB, plot DB OUT, export DB --csv OUT.",
        )
        p.add_argument("spec", type=Path, metavar="SPEC", help="campaign specification (TOML)")
        p.add_argument(
            "--db", type=Path, metavar="FILE", help="SQLite results (default: SPEC's name .sqlite, here)"
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
            "--plot", type=Path, metavar="OUT", help="also draw the acceptance ratios (.png, .svg, .pdf)"
        )
        p.add_argument("--csv", type=Path, metavar="OUT", help="also export every row (.csv)")
        p.add_argument("--ray", metavar="ADDRESS", help="run on the Ray cluster at ADDRESS (priora[cluster])")
        p.set_defaults(handler=_campaign_run)
        return p
    p = _Parser(prog=f"priora campaign {command}")
    p.add_argument("db", type=Path, metavar="DB", help="a campaign's database")
    if command == "rerun":
        p.description = (
            "Computes one row again from the specification alone and compares it with the database."
        )
        p.add_argument("row", type=inputs.integer("ROW"), metavar="ROW", help="the row number")
        p.add_argument("--scenario", type=Path, metavar="OUT", help="also write the row's set (.toml)")
        p.set_defaults(handler=_campaign_rerun)
    elif command == "summary":
        p.description = "Acceptance ratios, weighted schedulability and findings."
        p.set_defaults(handler=_campaign_summary)
    elif command == "plot":
        p.description = "Acceptance ratio and weighted schedulability against the axis, per protocol."
        p.add_argument("out", type=Path, metavar="OUT", help="the figure (.png, .svg or .pdf)")
        p.set_defaults(handler=_campaign_plot)
    else:
        p.description = "Every row as CSV, or as Parquet when pyarrow is installed."
        out = p.add_mutually_exclusive_group(required=True)
        out.add_argument("--csv", type=Path, metavar="OUT", help="write a CSV file")
        out.add_argument("--parquet", type=Path, metavar="OUT", help="write a Parquet file (needs pyarrow)")
        p.set_defaults(handler=_campaign_export)
    return p


def _campaign_args(options: list[str]) -> argparse.Namespace:
    command = options[0] if options and options[0] in CAMPAIGN_COMMANDS else None
    return _campaign_parser(command).parse_args(options[1:] if command else options)


def _scenario_options(parser: argparse.ArgumentParser) -> None:
    """The options of simulate and run: the same scenario, the same report."""
    parser.add_argument("file", type=Path, metavar="FILE", help="scenario file (TOML)")
    parser.add_argument("--protocol", choices=PROTOCOLS, help="protocol of every mutex (overrides the file)")
    _report_options(parser, "the file's time unit")
    parser.add_argument("--horizon", metavar="T", help="run until T, in the file's time unit")
    _strict_option(parser, " (one line on stderr per reason)")
    _summary_and_table_options(parser)
    _limit_options(parser, "refuse a run estimated to")


def _report_options(parser: argparse.ArgumentParser, unit: str) -> None:
    """The report's outputs that simulate, run and trace share: JSON, the
    chart and its window, size and resolution, the traces, the HTML page."""
    parser.add_argument("--json", action="store_true", help="print the report as one JSON document")
    parser.add_argument("--gantt", type=Path, metavar="OUT", help="write a Gantt chart (.png, .svg or .pdf)")
    parser.add_argument(
        "--window",
        metavar="FROM:TO",
        help=f'the chart shows FROM to TO ({unit}), or "miss": around the first deadline miss',
    )
    parser.add_argument("--size", metavar="WxH", help="the chart's width and height in inches (such as 12x4)")
    parser.add_argument("--dpi", metavar="N", help="the chart's dots per inch (default: 120)")
    parser.add_argument("--trace", type=Path, metavar="OUT", help="write a Chrome/Perfetto trace (.json)")
    parser.add_argument(
        "--ctf", type=Path, metavar="DIR", help="write the kernel trace as CTF (babeltrace2, Trace Compass)"
    )
    parser.add_argument(
        "--html",
        type=Path,
        metavar="OUT",
        help="write a self-contained HTML report with a zoomable chart (.html)",
    )


def _strict_option(parser: argparse.ArgumentParser, detail: str = "") -> None:
    parser.add_argument(
        "--strict",
        action="store_true",
        help=f"exit with status 1 if the kernel refused a call or a job missed its deadline{detail}",
    )


def _summary_and_table_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--summary", action="store_true", help="the tasks, resources and system tables only (no job rows)"
    )
    _table_options(parser)


def _trace_options(parser: argparse.ArgumentParser) -> None:
    """The options of trace: simulate's outputs, on a trace file."""
    parser.add_argument(
        "file", type=Path, metavar="FILE", help="a host program's trace dump or a RISC-V image's UART log"
    )
    parser.add_argument("--run", metavar="LABEL", help="the run to read when FILE holds several")
    parser.add_argument(
        "--scenario",
        type=Path,
        metavar="FILE",
        help="the program's scenario file (TOML): its tasks' deadlines, its time unit, its resources",
    )
    parser.add_argument(
        "--list", action="store_true", help="print every record as a line of text before the report"
    )
    _report_options(parser, "the time unit")
    _strict_option(parser)
    _summary_and_table_options(parser)


def _table_options(parser: argparse.ArgumentParser) -> None:
    """--format and --csv: the command's tables as Markdown, and as CSV files (priora.tables)."""
    parser.add_argument(
        "--format",
        choices=("text", "markdown"),
        help="the tables as aligned text (the default) or as Markdown tables (not with --json)",
    )
    parser.add_argument(
        "--csv", type=Path, metavar="DIR", help="also write each table as DIR/<table>.csv (DIR is created)"
    )


def _limit_options(parser: argparse.ArgumentParser, refuse: str, max_jobs: int = DEFAULT_MAX_JOBS) -> None:
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


# ---------------------------------------------------------------- options


def horizon_ticks(scenario: Scenario, text: str) -> int:
    """--horizon T in ticks: T is read like a time in the file (its time unit,
    > 0, a whole number of ticks, within the host port's clock; exact, so
    0.1 ms at 10 kHz is one tick), by priora.scenario.loader.parse_time."""
    from priora.scenario.loader import parse_time

    try:
        return parse_time(text, scenario, "--horizon")
    except ScenarioError as exc:
        raise UsageError(f"--horizon: {exc.reason}") from None


def _check_output(
    option: str, path: Path | None, suffixes: tuple[str, ...], sources: tuple[Path | None, ...] = ()
) -> None:
    """Refuses an output before anything runs, so a typo costs no simulation;
    also one that is one of the command's input files, `sources`."""
    from priora import outputs

    if path is None:
        return
    if path.suffix.lower() not in suffixes:
        raise UsageError(f"{option}: {path}: the file name must end with {' or '.join(suffixes)}")
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(f"{option}: {path}: directory {parent} does not exist")
    outputs.refuse_input(option, path, sources)


Writer = Callable[["SimResult", Path], None]


def _gantt(options: dict[str, object]) -> Writer:
    from priora.pictures import gantt

    def draw(result: SimResult, path: Path) -> None:
        notice = gantt.draw(result, path, **options)  # type: ignore[arg-type]
        if notice:  # drawn, but not as asked (--window miss without a miss)
            print(f"priora: {notice}", file=sys.stderr)

    return draw


def _chart_options(args: argparse.Namespace, scenario: Scenario) -> dict[str, object]:
    """--window, --size and --dpi, checked before the run (one line each)."""
    chart = (("--window", args.window), ("--size", args.size), ("--dpi", args.dpi))
    given = [option for option, value in chart if value is not None]
    if args.gantt is None:
        if given:
            raise UsageError(f"{given[0]}: only with --gantt")
        return {}
    from priora.pictures import gantt_model

    options: dict[str, object] = {}
    if args.window is not None:
        options["window"] = gantt_model.parse_window(args.window, scenario)
    dpi = gantt_model.parse_dpi(args.dpi) if args.dpi is not None else gantt_model.DPI
    if args.dpi is not None:
        options["dpi"] = dpi
    if args.size is not None:
        size = gantt_model.parse_size(args.size)
        gantt_model.check_pixels(size, dpi, "--size")
        options["size"] = size
    if getattr(args, "target", None) is not None:
        options["target"] = args.target
    return options


def _ctf() -> Writer:
    from priora.trace import ctf

    write: Writer = ctf.write
    return write


def _check_ctf_directory(path: Path | None, sources: tuple[Path | None, ...] = ()) -> None:
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


def _chrome_trace(provenance: dict[str, Any] | None = None) -> Writer:
    from functools import partial

    from priora.trace import chrome_trace

    write: Writer = partial(chrome_trace.write, provenance=provenance)
    return write


def _html_report(target: str) -> Callable[[], Writer]:
    def load() -> Writer:
        from functools import partial

        from priora.pictures import html_report

        return partial(html_report.write, target=target)

    return load


def _write(
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
        raise _import_problem(option, exc) from None
    except OSError as exc:
        raise UsageError(f"{option}: cannot write {path}: {exc.strerror or exc}") from None


def _import_problem(what: str, exc: ImportError) -> UsageError:
    """matplotlib is the one optional dependency: name it when it is the one missing."""
    if (exc.name or "").split(".")[0] == "matplotlib":
        return UsageError(f"{what} needs matplotlib: {exc}")
    return UsageError(f"{what}: {exc}")


def _check_tables(args: argparse.Namespace) -> None:
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


def _tables(args: argparse.Namespace, sections: Sequence[Section]) -> str:
    """The tables as --format asks, after writing them into --csv DIR."""
    from priora.tables import render, write_csv

    if args.csv is not None:
        write_csv(sections, args.csv)
    return render(sections, args.format or "text")


def _provenance(
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


# ---------------------------------------------------------------- commands


def _scenario(args: argparse.Namespace) -> Scenario:
    """The scenario of FILE with --protocol and --horizon applied, the outputs
    checked first."""
    # Imported here so that `priora demo` and `--help` need no scenario parsing.
    from priora.scenario import bounds
    from priora.scenario.loader import load

    _check_output("--gantt", args.gantt, GANTT_SUFFIXES, (args.file,))
    _check_output("--trace", args.trace, TRACE_SUFFIXES, (args.file,))
    _check_ctf_directory(args.ctf, (args.file,))
    _check_output("--html", args.html, HTML_SUFFIXES, (args.file,))
    _check_tables(args)
    # With --horizon, a default horizon beyond the clock does not matter.
    scenario = load(args.file, check_default_horizon=args.horizon is None)
    if args.protocol is not None:
        protocol: Protocol = args.protocol
        scenario = scenario.with_protocol(protocol)
    if args.horizon is not None:
        scenario = scenario.with_horizon(horizon_ticks(scenario, args.horizon))
    bounds.check(scenario, bounds.Limits(args.max_jobs, args.max_ticks, args.max_actions))
    args.chart = _chart_options(args, scenario)
    return scenario


class Outcome(NamedTuple):
    """A command's output, and the reasons --strict fails it (one line each)."""

    text: str
    failures: tuple[str, ...] = ()


def _report(args: argparse.Namespace, result: SimResult, target: str = "host") -> Outcome:
    """The outputs asked for, then the report (and, with --strict, why the
    run fails). On QEMU the kernel's costs are its own: no cost model."""
    from priora.report.build import build_report, report_json, report_sections, strict_failures

    costs = {} if target == "host" else {"cost_model": None}
    if args.gantt is not None:
        _write("--gantt", args.gantt, lambda: _gantt(args.chart), result)
    if args.trace is not None:
        about = _provenance(args, "trace", result.scenario, target=target, **costs)
        _write("--trace", args.trace, lambda: _chrome_trace(about), result)
    if args.ctf is not None:
        _write("--ctf", args.ctf, _ctf, result, whole=False)
    if args.html is not None:  # `priora run` has a target; `simulate` runs on the host port
        _write("--html", args.html, _html_report(target), result)
    report = build_report(result)
    if args.json:
        about = _provenance(args, "report", result.scenario, target=target, **costs)
        text = report_json(report, about, summary=args.summary)
        if args.csv is not None:
            _tables(args, report_sections(report, args.summary))
    else:
        text = _tables(args, report_sections(report, args.summary))
    return Outcome(text, tuple(strict_failures(report)) if args.strict else ())


def _simulate(args: argparse.Namespace) -> Outcome:
    from priora.run.simulate import simulate

    return _report(args, simulate(_scenario(args)))


def _run(args: argparse.Namespace) -> Outcome:
    from priora.run import qemu_run

    timeout: float = args.timeout  # finite and > 0 (inputs.seconds)
    scenario = _scenario(args)
    return _report(args, qemu_run.run(scenario, args.target, timeout=timeout).result, args.target)


def _trace(args: argparse.Namespace) -> Outcome:
    from priora.run import trace_file

    sources = (args.file, args.scenario)
    _check_output("--gantt", args.gantt, GANTT_SUFFIXES, sources)
    _check_output("--trace", args.trace, TRACE_SUFFIXES, sources)
    _check_ctf_directory(args.ctf, sources)
    _check_output("--html", args.html, HTML_SUFFIXES, sources)
    _check_tables(args)
    if args.list and args.json:
        raise UsageError("--list: not with --json (the JSON document is the whole output)")
    given = None
    if args.scenario is not None:
        from priora.scenario.loader import load

        given = load(args.scenario, check_default_horizon=False)
    run = trace_file.read_run(args.file, args.run)
    scenario = trace_file.scenario_of(run, args.file, given)
    args.chart = _chart_options(args, scenario)
    if args.gantt is not None:
        args.chart["target"] = TRACE_TARGET
    outcome = _report(args, trace_file.result_of(run, scenario), TRACE_TARGET)
    if not args.list:
        return outcome
    return Outcome("\n".join([*trace_file.listing(run), ""]) + outcome.text, outcome.failures)


def _demo(args: argparse.Namespace) -> str:
    out: Path = args.out
    try:
        from priora.cli import demo

        return demo.run(out)
    except ImportError as exc:  # the charts need matplotlib
        raise _import_problem("demo", exc) from None
    except OSError as exc:
        raise UsageError(f"demo: cannot write into {out}: {exc.strerror or exc}") from None


def _analyze(args: argparse.Namespace) -> str:
    from priora.analysis import analysis_json, analysis_sections, analyze
    from priora.scenario.loader import load

    _check_tables(args)
    # Nothing runs, so a default horizon beyond the host port's clock does not matter.
    scenario = load(args.file, check_default_horizon=False)
    protocols: list[str] = args.protocol or list(ANALYSIS_PROTOCOLS)
    result = analyze(scenario, protocols)
    if not args.json:
        return _tables(args, analysis_sections(result))
    if args.csv is not None:
        _tables(args, analysis_sections(result))
    # Nothing runs and nothing costs: no target, no cost model.
    return analysis_json(result, _provenance(args, "analysis", None, protocol=list(result.protocols)))


def with_cost_model(scenario: Scenario, name: str, cpu_hz: int | None) -> Scenario:
    """The scenario under the cost model --cost-model NAME [--cpu-hz HZ]."""
    from priora.costs import model as costs
    from priora.record import replace

    if name == "measured" and cpu_hz is None:
        raise UsageError("--cost-model measured: give the CPU's clock rate with --cpu-hz")
    if name != "measured" and cpu_hz is not None:
        raise UsageError("--cpu-hz: only with --cost-model measured")
    if cpu_hz is not None and cpu_hz <= 0:
        raise UsageError(f"--cpu-hz: must be > 0, got {cpu_hz}")
    model = costs.named(name, cpu_hz, tick_hz=scenario.system.tick_hz)
    problem = costs.stalls(model, scenario.system.tick_hz)
    if problem is not None:
        raise UsageError(f"--cpu-hz: {cpu_hz}: {problem}")
    return replace(scenario, system=replace(scenario.system, cost_model=model))


def _breakdown(args: argparse.Namespace) -> str:
    from priora.breakdown.output import breakdown_json, breakdown_sections
    from priora.breakdown.search import breakdown
    from priora.scenario.loader import load

    _check_tables(args)
    # Every run has its own horizon (it changes with a period): none is checked here.
    scenario = load(args.file, check_default_horizon=False)
    if args.cost_model is not None:
        scenario = with_cost_model(scenario, args.cost_model, args.cpu_hz)
    elif args.cpu_hz is not None:
        raise UsageError("--cpu-hz: only with --cost-model measured")
    from priora.scenario.bounds import Limits

    limits = Limits(args.max_jobs, args.max_ticks, args.max_actions)
    result = breakdown(
        scenario,
        args.vary,
        args.protocol,
        synchronous_release=args.synchronous,
        ignore=args.ignore,
        limits=limits,
    )
    if not args.json:
        return _tables(args, breakdown_sections(result))
    if args.csv is not None:
        _tables(args, breakdown_sections(result))
    protocols = list(result.protocols)
    about = _provenance(
        args, "breakdown", None, target="host", protocol=protocols, cost_model=result.cost_model
    )
    return breakdown_json(result, about)


def _experiments(args: argparse.Namespace) -> str:
    from priora import outputs
    from priora.experiments import run_all, with_provenance, write

    if args.out is not None:
        for name in ("experiments.md", "experiments.json"):
            outputs.refuse_input("--out", args.out / name, (args.bench,))
    text, doc = run_all(quick=args.quick, bench=args.bench)
    if args.out is not None:
        write(args.out, text, with_provenance(doc, args.command_line, args.bench))
    return text


def _bench(args: argparse.Namespace) -> str:
    """scripts/bench.sh of the source tree the lab is installed from: it
    installs the cross compiler and QEMU if missing, builds and runs; its
    progress goes to stderr as it runs, its tables are the output. It runs
    from the tree's root: --json OUT is made absolute here, from the
    caller's directory. On failure, bench.py's own reason is the one line."""
    import subprocess
    import tempfile

    script = Path(__file__).resolve().parents[3] / "scripts" / "bench.sh"
    if not script.is_file():
        raise UsageError(f"bench: {script} not found: the benchmarks need Priora's source tree")
    options: list[str] = [_absolute_json(o) for o in args.options]
    for i, option in enumerate(options[:-1]):
        if option == "--json":
            options[i + 1] = os.path.abspath(options[i + 1])
    reason = ""
    with tempfile.TemporaryFile("w+") as out:
        child = subprocess.Popen([str(script), *options], stdout=out, stderr=subprocess.PIPE, text=True)
        assert child.stderr is not None
        for line in child.stderr:  # progress, passed on as it comes; bench.py's failure kept
            if line.startswith("bench.py: "):
                reason = line.removeprefix("bench.py: ").removeprefix("error: ").strip()
            else:
                sys.stderr.write(line)
        status = child.wait()
        out.seek(0)
        text = out.read()
    if status != 0:
        why = f": {reason}" if reason else ""
        raise UsageError(f"bench: {script.name} {' '.join(args.options)} failed with status {status}{why}")
    return text


def _absolute_json(option: str) -> str:
    return (
        "--json=" + os.path.abspath(option.removeprefix("--json="))
        if option.startswith("--json=")
        else option
    )


def _generate(args: argparse.Namespace) -> str:
    from priora.errors import SpecError
    from priora.generate import derive_seed, generate, load_spec, parse_params, with_overrides

    table: dict[str, object] = {}
    source = "--set"
    if args.spec is not None:
        source = str(args.spec)
        doc = load_spec(args.spec)
        for key in doc:
            if key not in ("generator", "campaign"):
                raise SpecError(
                    source, key, "unknown table (expected [generator], and [campaign] in a campaign)"
                )
        found = doc.get("generator", {})
        if not isinstance(found, dict):
            raise SpecError(source, "[generator]", "must be a table")
        table = found
    from priora import outputs

    count: int = args.count
    if count < 1:
        raise UsageError(f"--count: must be >= 1, got {count}")
    if count > MAX_GENERATED:
        raise UsageError(f"--count: at most {MAX_GENERATED} sets in one directory, got {count}")
    params = parse_params(source, with_overrides(source, table, args.set))
    out: Path = args.out
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out: cannot create {out}: {exc.strerror or exc}") from None
    width = max(4, len(str(count - 1)))
    paths = [out / f"set-{i:0{width}d}.toml" for i in range(count)]
    for path in paths:  # before any is written
        outputs.refuse_input("--out", path, (args.spec,))
    lines = []
    for i, path in enumerate(paths):
        seed = derive_seed(args.seed, i)
        ts = generate(params, seed)
        try:
            outputs.write_text(path, ts.toml())
        except OSError as exc:
            raise UsageError(f"--out: cannot write {path}: {exc.strerror or exc}") from None
        lines.append(f"{path}  seed {seed}  utilisation {float(ts.utilisation):.6f}")
    return "\n".join(lines)


def _campaign(args: argparse.Namespace) -> str:
    """`priora campaign` with its own options (parsed in main)."""
    handler: Callable[[argparse.Namespace], str] = args.handler
    return handler(args)


def _campaign_run(args: argparse.Namespace) -> str:
    from priora import campaign
    from priora.campaign import db, plot, report

    _check_output("--plot", args.plot, PLOT_SUFFIXES, (args.spec,))
    _check_output("--csv", args.csv, (".csv",), (args.spec,))
    for option, value, least in (
        ("--jobs", args.jobs, 1),
        ("--limit", args.limit, 1),
        ("--max-jobs", args.max_jobs, 0),
    ):
        if value is not None and value < least:
            raise UsageError(f"{option}: must be >= {least}, got {value}")
    path: Path = args.db if args.db is not None else Path(args.spec.stem + ".sqlite")
    _check_output("--db", path, (".sqlite", ".db", ".sqlite3"), (args.spec, args.plot, args.csv))
    spec = campaign.load(args.spec)
    outcome = campaign.run(
        spec,
        path,
        jobs=args.jobs,
        limit=args.limit,
        max_jobs=args.max_jobs if args.max_jobs is not None else campaign.DEFAULT_MAX_JOBS,
        ray_address=args.ray,
    )
    con = db.connect(path)
    try:
        text = report.summary(spec, con, path)
        if outcome.stopped:
            text += f"\nStopped after {outcome.ran} sets (--limit): run the same command again to go on.\n"
        if args.plot is not None:
            _campaign_write("--plot", args.plot, lambda out: plot.draw(spec, con, out))
        if args.csv is not None:
            _campaign_write("--csv", args.csv, lambda out: db.export_csv(con, out))
    finally:
        con.close()
    return text


def _campaign_write(option: str, path: Path, write: Callable[[Path], object]) -> None:
    """write(a temporary path), renamed to `path` when it succeeds (priora.outputs)."""
    from priora import outputs

    try:
        with outputs.replacing(path) as temporary:
            write(temporary)
    except ImportError as exc:
        raise _import_problem(option, exc) from None
    except OSError as exc:
        raise UsageError(f"{option}: cannot write {path}: {exc.strerror or exc}") from None


def _campaign_rerun(args: argparse.Namespace) -> str:
    from priora.campaign import db, report

    _check_output("--scenario", args.scenario, (".toml",), (args.db,))
    con, spec = db.open_existing(args.db)
    try:
        again = report.rerun(spec, con, args.row, args.db)
        if args.scenario is not None:
            text = report.scenario_text(spec, args.row)
            _campaign_write("--scenario", args.scenario, lambda out: out.write_text(text))
        return report.rerun_text(spec, again, args.db, args.scenario)
    finally:
        con.close()


def _campaign_summary(args: argparse.Namespace) -> str:
    from priora.campaign import db, report

    con, spec = db.open_existing(args.db)
    try:
        return report.summary(spec, con, args.db)
    finally:
        con.close()


def _campaign_plot(args: argparse.Namespace) -> str:
    from priora.campaign import db, plot

    _check_output("plot", args.out, PLOT_SUFFIXES, (args.db,))
    con, spec = db.open_existing(args.db)
    try:
        _campaign_write("plot", args.out, lambda out: plot.draw(spec, con, out))
    finally:
        con.close()
    return f"wrote {args.out}"


def _campaign_export(args: argparse.Namespace) -> str:
    from priora.campaign import db

    out: Path = args.csv if args.csv is not None else args.parquet
    option = "--csv" if args.csv is not None else "--parquet"
    _check_output(option, out, (".csv",) if args.csv is not None else (".parquet",), (args.db,))
    con, _ = db.open_existing(args.db)
    try:
        writer = db.export_csv if args.csv is not None else db.export_parquet
        count = 0

        def write(temporary: Path) -> None:
            nonlocal count
            count = writer(con, temporary)

        _campaign_write(option, out, write)
    finally:
        con.close()
    return f"wrote {count} rows to {out}"


# ---------------------------------------------------------------- main


def _error(message: str) -> int:
    # One line, even for a message with newlines in it (an OS error, a TOML error).
    print(f"priora: {' '.join(message.splitlines())}", file=sys.stderr)
    return EXIT_USER


def main(argv: list[str] | None = None) -> int:
    """Runs the command line `argv` (default: sys.argv[1:]); returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        if argv[:1] == ["bench"]:  # every option is bench.py's, help included
            args = argparse.Namespace(handler=_bench, options=argv[1:])
        elif argv[:1] == ["campaign"]:  # a command of its own, with subcommands on a database
            args = _campaign_args(argv[1:])
        else:
            args = _parser().parse_args(argv)
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

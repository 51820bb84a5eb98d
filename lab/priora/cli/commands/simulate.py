"""`priora simulate`, `priora run` and `priora trace`: a scenario run on the
kernel (on the host port, under QEMU, or read from a trace a program wrote)
and the same report of what happened, with the same outputs.

    priora simulate FILE [--protocol P] [--json] [--gantt OUT] [--window FROM:TO|miss]
                         [--size WxH] [--dpi N] [--trace OUT.json] [--ctf DIR] [--html OUT]
                         [--horizon T] [--strict] [--summary] [--format text|markdown]
                         [--csv DIR] [--max-jobs N] [--max-actions N] [--max-ticks N]
    priora run FILE --target qemu-rv32|qemu-rv64 [the same options] [--timeout S]
    priora trace FILE [--run LABEL] [--scenario FILE] [--list] [simulate's outputs]
"""

from __future__ import annotations

from priora import inputs
from priora.cli import writing
from priora.cli.options import (
    PROTOCOLS,
    Arg,
    Outcome,
    UsageError,
    limit_options,
    path,
    strict_option,
    table_options,
)
from priora.errors import ScenarioError

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from priora.cli.options import Handler
    from priora.cli.writing import Writer
    from priora.run.simulate import SimResult
    from priora.scenario.model import Protocol, Scenario

GANTT_SUFFIXES = (".png", ".svg", ".pdf")
TRACE_SUFFIXES = (".json",)
HTML_SUFFIXES = (".html", ".htm")
TARGETS = ("qemu-rv32", "qemu-rv64")  # priora.run.qemu_run.TARGETS
DEFAULT_TIMEOUT = 120.0  # priora.run.qemu_run.DEFAULT_TIMEOUT
TRACE_TARGET = "trace"  # priora trace: the kernel ran elsewhere, its costs were its own


def arguments(command: str) -> tuple[list[Arg], Handler]:
    """The options and the handler of simulate, run or trace."""
    if command == "trace":
        return _trace_options(), _trace
    if command == "simulate":
        return _scenario_options(), _simulate
    run = [
        Arg("--target", required=True, choices=TARGETS, help="where the kernel runs"),
        Arg(
            "--timeout",
            type=inputs.seconds("--timeout"),
            default=DEFAULT_TIMEOUT,
            metavar="S",
            help=f"give up when QEMU takes longer than S seconds of wall time (default: {DEFAULT_TIMEOUT:g})",
        ),
    ]
    return [*_scenario_options(), *run], _run


def _scenario_options() -> list[Arg]:
    """The options of simulate and run: the same scenario, the same report."""
    # FILE stays a str: it is named in messages as given, and pathlib's
    # import is start-up.
    return [
        Arg("file", metavar="FILE", help="scenario file (TOML)"),
        Arg("--protocol", choices=PROTOCOLS, help="protocol of every mutex (overrides the file)"),
        *_report_options("the file's time unit"),
        Arg("--horizon", metavar="T", help="run until T, in the file's time unit"),
        strict_option(" (one line on stderr per reason)"),
        *_summary_and_table_options(),
        *limit_options("refuse a run estimated to"),
    ]


def _report_options(unit: str) -> list[Arg]:
    """The report's outputs that simulate, run and trace share: JSON, the
    chart and its window, size and resolution, the traces, the HTML page."""
    return [
        Arg("--json", action="store_true", help="print the report as one JSON document"),
        Arg("--gantt", type=path, metavar="OUT", help="write a Gantt chart (.png, .svg or .pdf)"),
        Arg(
            "--window",
            metavar="FROM:TO",
            help=f'the chart shows FROM to TO ({unit}), or "miss": around the first deadline miss',
        ),
        Arg("--size", metavar="WxH", help="the chart's width and height in inches (such as 12x4)"),
        Arg("--dpi", metavar="N", help="the chart's dots per inch (default: 120)"),
        Arg("--trace", type=path, metavar="OUT", help="write a Chrome/Perfetto trace (.json)"),
        Arg(
            "--ctf",
            type=path,
            metavar="DIR",
            help="write the kernel trace as CTF (babeltrace2, Trace Compass)",
        ),
        Arg(
            "--html",
            type=path,
            metavar="OUT",
            help="write a self-contained HTML report with a zoomable chart (.html)",
        ),
    ]


def _summary_and_table_options() -> list[Arg]:
    return [
        Arg(
            "--summary", action="store_true", help="the tasks, resources and system tables only (no job rows)"
        ),
        *table_options(),
    ]


def _trace_options() -> list[Arg]:
    """The options of trace: simulate's outputs, on a trace file."""
    return [
        Arg(
            "file", type=path, metavar="FILE", help="a host program's trace dump or a RISC-V image's UART log"
        ),
        Arg("--run", metavar="LABEL", help="the run to read when FILE holds several"),
        Arg(
            "--scenario",
            type=path,
            metavar="FILE",
            help="the program's scenario file (TOML): its tasks' deadlines, its time unit, its resources",
        ),
        Arg("--list", action="store_true", help="print every record as a line of text before the report"),
        *_report_options("the time unit"),
        strict_option(),
        *_summary_and_table_options(),
    ]


# ---------------------------------------------------------------- checks


def horizon_ticks(scenario: Scenario, text: str) -> int:
    """--horizon T in ticks: T is read like a time in the file (its time unit,
    > 0, a whole number of ticks, within the host port's clock; exact, so
    0.1 ms at 10 kHz is one tick), by priora.scenario.loader.parse_time."""
    from priora.scenario.loader import parse_time

    try:
        return parse_time(text, scenario, "--horizon")
    except ScenarioError as exc:
        raise UsageError(f"--horizon: {exc.reason}") from None


def _check_outputs(args: argparse.Namespace, sources: tuple[writing.Source, ...]) -> None:
    """Every output the report options name, before anything runs."""
    writing.check_output("--gantt", args.gantt, GANTT_SUFFIXES, sources)
    writing.check_output("--trace", args.trace, TRACE_SUFFIXES, sources)
    writing.check_ctf_directory(args.ctf, sources)
    writing.check_output("--html", args.html, HTML_SUFFIXES, sources)
    writing.check_tables(args)


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


def _scenario(args: argparse.Namespace) -> Scenario:
    """The scenario of FILE with --protocol and --horizon applied, the outputs
    checked first."""
    from priora.scenario import bounds
    from priora.scenario.loader import load

    _check_outputs(args, (args.file,))
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


# ---------------------------------------------------------------- the report


def _gantt(options: dict[str, object]) -> Writer:
    from priora.pictures import gantt

    def draw(result: SimResult, path: Path) -> None:
        notice = gantt.draw(result, path, **options)  # type: ignore[arg-type]
        if notice:  # drawn, but not as asked (--window miss without a miss)
            writing.notice(notice)

    return draw


def _ctf() -> Writer:
    from priora.trace import ctf

    write: Writer = ctf.write
    return write


def _chrome_trace(provenance: dict[str, object] | None = None) -> Writer:
    from functools import partial

    from priora.trace import chrome_trace

    write: Writer = partial(chrome_trace.write, provenance=provenance)
    return write


def _html_report(target: str) -> Writer:
    from functools import partial

    from priora.pictures import html_report

    write: Writer = partial(html_report.write, target=target)
    return write


def _report(args: argparse.Namespace, result: SimResult, target: str = "host") -> Outcome:
    """The outputs asked for, then the report (and, with --strict, why the
    run fails). On QEMU the kernel's costs are its own: no cost model."""
    from priora.report.build import build_report
    from priora.report.text import report_sections, strict_failures

    costs = {} if target == "host" else {"cost_model": None}
    if args.gantt is not None:
        writing.write_result("--gantt", args.gantt, lambda: _gantt(args.chart), result)
    if args.trace is not None:
        about = writing.provenance(args, "trace", result.scenario, target=target, **costs)
        writing.write_result("--trace", args.trace, lambda: _chrome_trace(about), result)
    if args.ctf is not None:
        writing.write_result("--ctf", args.ctf, _ctf, result, whole=False)
    if args.html is not None:  # `priora run` has a target; `simulate` runs on the host port
        writing.write_result("--html", args.html, lambda: _html_report(target), result)
    report = build_report(result)
    if args.json:
        from priora.report.json_document import report_json

        about = writing.provenance(args, "report", result.scenario, target=target, **costs)
        text = report_json(report, about, summary=args.summary)
        if args.csv is not None:
            writing.tables(args, report_sections(report, args.summary))
    else:
        text = writing.tables(args, report_sections(report, args.summary))
    return Outcome(text, tuple(strict_failures(report)) if args.strict else ())


# ---------------------------------------------------------------- the commands


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

    _check_outputs(args, (args.file, args.scenario))
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

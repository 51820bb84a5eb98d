"""The report of one run as one self-contained HTML page (`--html OUT.html`).

The page holds the report's tables (tasks, resources, system, warnings, the
jobs folded), the response-time analysis of the run's protocol beside each
task's worst simulated response, and a Gantt chart drawn in the browser from
the run's timeline (priora.trace.timeline), zoomed with the wheel and panned by
dragging. Everything is inline: the style, the script (html_report.css and
html_report.js, shipped with the package) and the chart's data, as JSON in a
<script type="application/json">; a Content-Security-Policy forbids every
fetch, so the page reads the same offline. The tables are HTML written here,
so they read without the script.

Same run, same bytes: no date, no absolute path of the lab, keys and rows in
a fixed order.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from priora import __version__
from priora.record import replace
from priora.report.build import JobRow, Report, build_report
from priora.run.simulate import SimResult
from priora.scenario.model import Scenario
from priora.trace.timeline import Interval, TaskTimeline, Timeline, extract

# The PNG chart's colours (priora.pictures.gantt; tests/lab/test_html_report.py checks
# that the two agree): the page must read like the picture.
EXEC_COLOUR = "#4c72b0"
RESOURCE_COLOURS = ("#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#7f7f7f")
MISS_COLOUR = "#d62728"
REFUSAL_COLOUR = "#ffbf00"

# A run can have millions of jobs: the page lists the first ones, and says
# where the others are (the text and JSON reports list every one); its chart
# draws the run up to the instant where it would hold more than MAX_CHART_ITEMS
# bars and marks (about 40 bytes each), and says so.
MAX_JOB_ROWS = 2000
MAX_CHART_ITEMS = 200_000

UNIT_LABEL = {"tick": "ticks", "us": "µs", "ms": "ms"}
HOST = "host"
TRACE = "trace"  # priora trace FILE
DECIMALS = 6

# No fetch of any kind: what the page needs is in it.
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def write(result: SimResult, path: Path, target: str = HOST) -> None:
    """Writes the page of `result` to `path`; `target` is where it ran
    ("host", the kernel's host port in the lab, or a QEMU target's name)."""
    text = render(result, target)
    with path.open("w", encoding="utf-8", newline="\n") as out:
        out.write(text)


def render(result: SimResult, target: str = HOST) -> str:
    """The page of `result` as text."""
    report = build_report(result)
    timeline, complete = _bounded(extract(result))
    analysis = _analysis(result, target)
    scenario = result.scenario
    title = _title(scenario, target)
    unit = UNIT_LABEL[scenario.system.time_unit]
    data = {
        "title": title,
        "unit": unit,
        "end": _t(scenario.to_unit(timeline.end)),
        "colours": {"run": EXEC_COLOUR, "miss": MISS_COLOUR, "refusal": REFUSAL_COLOUR},
        "resources": [
            {"name": r.name, "colour": RESOURCE_COLOURS[i % len(RESOURCE_COLOURS)]}
            for i, r in enumerate(scenario.resources)
        ],
        "tasks": [_task_data(timeline, t) for t in timeline.by_urgency()],
    }
    chart = _chart_html(data)
    if not complete:
        chart = (
            f'<p class="note">The chart shows the run up to {data["end"]} {unit}, '
            f"its first {MAX_CHART_ITEMS} bars and marks; the tables cover the whole run. "
            "<code>--horizon</code> gives a shorter run.</p>\n" + chart
        )
    body = [
        _header(scenario, target, title),
        _section("Gantt chart", chart, "chart"),
        _section("Analysis beside the simulation", _analysis_html(scenario, report, analysis), "analysis"),
        _section("Tasks", _tasks_html(report), "tasks"),
        _section("Resources", _resources_html(report), "resources"),
        _section("System", _system_html(report), "system"),
    ]
    if report.warnings:
        body.append(_section("Warnings: calls the kernel refused", _warnings_html(report), "warnings"))
    body.append(_section("Jobs", _jobs_html(report), "jobs"))
    body.append(f"<footer>Written by priora {escape(__version__)}.</footer>")
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(title)}</title>",
            f"<style>\n{_asset('html_report.css')}</style>",
            "</head>",
            "<body>",
            *body,
            f'<script type="application/json" id="priora-data">{_json_in_html(data)}</script>',
            f"<script>\n{_asset('html_report.js')}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _asset(name: str) -> str:
    return resources.files("priora").joinpath(name).read_text(encoding="utf-8")


def _json_in_html(value: Any) -> str:
    """JSON that cannot end its <script> element early: <, > and & escaped
    (JSON.parse reads them back)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _t(value: float) -> int | float:
    """A time as the report writes it: an int when whole, else 6 decimals."""
    rounded = round(value, DECIMALS)
    return int(rounded) if float(rounded).is_integer() else rounded


# ---------------------------------------------------------------- the chart's data


_INTERVALS = ("executions", "critical_sections", "blocked", "boosts", "recoveries")
_INSTANTS = ("aborts", "releases", "deadlines", "misses", "finishes", "refusals")


def _bounded(timeline: Timeline) -> tuple[Timeline, bool]:
    """The timeline, cut before its (MAX_CHART_ITEMS + 1)-th interval or
    instant when it has more (intervals open then end there); True when whole."""
    times = [x.start for t in timeline.tasks for name in _INTERVALS for x in getattr(t, name)]
    times += [x.time for t in timeline.tasks for name in _INSTANTS for x in getattr(t, name)]
    if len(times) <= MAX_CHART_ITEMS:
        return timeline, True
    cut = sorted(times)[MAX_CHART_ITEMS]

    def keep(task: TaskTimeline) -> TaskTimeline:
        changes: dict[str, Any] = {
            name: tuple(replace(x, end=min(x.end, cut)) for x in getattr(task, name) if x.start < cut)
            for name in _INTERVALS
        }
        changes.update({name: tuple(x for x in getattr(task, name) if x.time < cut) for name in _INSTANTS})
        return replace(task, **changes)

    return Timeline(timeline.scenario, cut, tuple(map(keep, timeline.tasks))), False


def _span(timeline: Timeline, interval: Interval) -> list[int | float]:
    start, end = interval.in_unit(timeline.scenario)
    return [_t(start), _t(end)]


def _overlaps(executions: Sequence[Interval], ends: Sequence[int], within: Interval) -> list[Interval]:
    """The pieces of `executions` (in time order, apart; `ends` their ends)
    inside `within`: what ran while it held. A binary search finds the first,
    so that a long run costs no time per pair of section and execution."""
    pieces = []
    for e in executions[bisect_right(ends, within.start) :]:
        if e.start >= within.end:
            break
        start, end = max(e.start, within.start), min(e.end, within.end)
        if end > start:
            pieces.append(Interval(start, end))
    return pieces


def _task_data(timeline: Timeline, task: TaskTimeline) -> dict[str, Any]:
    """One row of the chart, every time in the file's unit. Resources are
    indices into the data's `resources`."""
    scenario = timeline.scenario
    index = {r.name: i for i, r in enumerate(scenario.resources)}

    def at(ns: int) -> int | float:
        return _t(scenario.to_unit(ns))

    ends = [e.end for e in task.executions]
    inside: list[list[Any]] = []
    for cs in task.critical_sections:  # sorted by start: an inner section is drawn over its outer one
        for piece in _overlaps(task.executions, ends, cs):
            inside.append([*_span(timeline, piece), index[cs.resource], "lost" if cs.aborted else ""])
    for rec in task.recoveries:
        for piece in _overlaps(task.executions, ends, rec):
            inside.append([*_span(timeline, piece), index[rec.resource], "recovery"])
    holds = [[*_span(timeline, cs), index[cs.resource]] for cs in task.critical_sections]
    holds += [[*_span(timeline, rec), index[rec.resource]] for rec in task.recoveries]
    deadlines = {d.job: d.time for d in task.deadlines}
    finishes = {f.job: f.time for f in task.finishes}
    missed = {m.job for m in task.misses}
    misses = []
    for m in task.misses:
        start = deadlines.get(m.job, m.time)
        # Late until it finishes; a job that never finished is late to the end.
        misses.append([at(m.time), at(start), at(max(start, finishes.get(m.job, timeline.end)))])
    shared = task.task < len(scenario.tasks) and scenario.tasks[task.task].timeshare
    return {
        "name": task.name,
        "priority": task.base_priority,
        # the row's label: its priority, or its band and nice value (a time-sharing task)
        "band": f"ts, nice {scenario.tasks[task.task].nice}" if shared else f"p{task.base_priority}",
        "runs": [_span(timeline, e) for e in task.executions],
        "inside": inside,
        "holds": holds,
        "blocked": [
            [*_span(timeline, b), index[b.resource], int(b.timed_out), int(b.ceiling is not None)]
            for b in task.blocked
        ],
        "boosts": [[*_span(timeline, b), b.priority, int(b.cause == "ceiling")] for b in task.boosts],
        "releases": [[at(r.time), r.job] for r in task.releases],
        # A deadline after the end of the run is not part of the picture.
        "deadlines": [
            [at(d.time), d.job, int(d.job in missed)] for d in task.deadlines if d.time <= timeline.end
        ],
        "misses": misses,
        "aborts": [[at(a.time), index[a.resource], a.by] for a in task.aborts],
        "refusals": [[at(f.time), f.error.removeprefix("PR_"), f.action_text] for f in task.refusals],
    }


def _chart_html(data: dict[str, Any]) -> str:
    unit = escape(data["unit"])
    return "\n".join(
        [
            '<div class="toolbar">',
            '<button type="button" id="reset">Reset zoom</button>',
            f'<span id="range">0 to {escape(str(data["end"]))} {unit}</span>',
            "<span>Wheel: zoom around the pointer. Drag: pan. Keys: + - zoom, arrows pan, 0 resets. "
            "Hover a bar: its times.</span>",
            "</div>",
            '<div id="gantt"><noscript>The chart needs JavaScript; the tables below do not.</noscript></div>',
            '<div id="legend"></div>',
        ]
    )


# ---------------------------------------------------------------- the analysis


def _analysis_protocol(result: SimResult) -> tuple[str, str | None]:
    """The protocol whose analysis the run is compared with, and a note when
    the run's mutexes are not all under it (the analysis applies one
    protocol to every mutex)."""
    scenario = result.scenario
    used = sorted({r.protocol for r in scenario.resources if r.kind == "mutex"})
    if len(used) == 1:
        return used[0], None
    protocol = scenario.system.protocol
    if not used:
        return protocol, None
    note = (
        f"The run's mutexes use the protocols {', '.join(used)}; the analysis applies "
        f"the file's [system] protocol, {protocol}, to every mutex."
    )
    return protocol, note


def _analysis(result: SimResult, target: str = HOST) -> dict[str, Any]:
    """`priora analyze`'s document for the run's protocol, or why there is none."""
    from priora.analysis import AnalysisError, analysis_dict, analyze

    protocol, note = _analysis_protocol(result)
    if target == TRACE and not any(t.body for t in result.scenario.tasks):
        why = "a trace gives no task's body (its execution times and sections): give --scenario FILE"
        return {"protocol": protocol, "note": note, "refused": why}
    try:
        doc = analysis_dict(analyze(result.scenario, [protocol]))
    except AnalysisError as exc:
        return {"protocol": protocol, "note": note, "refused": str(exc)}
    return {"protocol": protocol, "note": note, "refused": None, "doc": doc}


def _verdict(task: dict[str, Any]) -> tuple[str, str]:
    """(text, CSS class) of one task's verdict under the analysis."""
    if task["unbounded"]:
        return "unbounded", "bad"
    if task["meets_deadline"] is True:
        return "schedulable (R <= D)", "good"
    if task["meets_deadline"] is False:
        return "not shown schedulable (R > D)", "bad"
    if task["response"] is None:
        return "no bound", ""
    return "no deadline", ""


def _within(simulated: int | float | None, bound: int | float | None, unit: str) -> tuple[str, str]:
    if simulated is None:
        return "no job finished", ""
    if bound is None:
        return "-", ""
    if simulated <= bound:
        return "yes", "good"
    return f"no: {_t(simulated - bound)} {unit} over", "bad"


def _analysis_html(scenario: Scenario, report: Report, analysis: dict[str, Any]) -> str:
    unit = report.system.time_unit
    protocol = analysis["protocol"]
    lines = [
        f"<p>Response-time analysis under protocol <b>{escape(protocol)}</b> "
        f"(<code>priora analyze FILE --protocol {escape(protocol)}</code>): the blocking term B and the "
        "bound R on each task's response time, beside the worst response of the run. The analysis "
        "counts no kernel cost and covers every release; the run covers its horizon only.</p>"
    ]
    if analysis["note"] is not None:
        lines.append(f'<p class="note">{escape(analysis["note"])}</p>')
    if analysis["refused"] is not None:
        lines.append(f'<p class="note">No analysis for this task set: {escape(analysis["refused"])}</p>')
        result: dict[str, Any] = {"reason": None, "tasks": {}, "tests": {}}
    else:
        result = analysis["doc"]["protocols"][protocol]
        if result["reason"] is not None:
            why = escape(result["reason"])
            lines.append(f'<p class="note">No analysis under {escape(protocol)}: {why}</p>')
    headers = [
        "task",
        "priority",
        f"deadline ({unit})",
        "jobs run",
        f"worst simulated response ({unit})",
        f"max blocked in the run ({unit})",
        f"B, blocking bound ({unit})",
        f"R, response bound ({unit})",
        "analysis verdict",
        "simulated <= R",
    ]
    rows: list[list[Cell]] = []
    reasons: list[str] = []
    for task, (name, row) in zip(scenario.tasks, report.tasks.items(), strict=True):
        relative = task.deadline or task.period
        deadline = None if relative is None else _t(scenario.to_unit(scenario.ticks_to_ns(relative)))
        found = result["tasks"].get(name)
        if found is None:
            rows.append([name, task.priority, deadline, row.jobs, row.max_response, row.max_blocked,
                         None, None, ("-", ""), ("-", "")])  # fmt: skip
            continue
        if found["reason"] is not None and found["reason"] != result["reason"]:
            reasons.append(f"{name}: {found['reason']}")
        rows.append(
            [
                name,
                task.priority,
                deadline,
                row.jobs,
                row.max_response,
                row.max_blocked,
                "inf" if found["blocking"] is None and found["unbounded"] else found["blocking"],
                "inf" if found["response"] is None and found["unbounded"] else found["response"],
                _verdict(found),
                _within(row.max_response, found["response"], unit),
            ]
        )
    lines.append(_table(headers, rows, "analysis-table"))
    if reasons:
        lines.append('<ul class="notes">' + "".join(f"<li>{escape(r)}</li>" for r in reasons) + "</ul>")
    tests = result.get("tests", {})
    if tests:
        from priora.analysis.output import TEST_TITLES

        test_rows: list[list[Cell]] = []
        for key, test in tests.items():
            verdict = {True: ("yes", "good"), False: ("no", "bad"), None: ("-", "")}[test["passes"]]
            test_rows.append([TEST_TITLES[key], verdict, test["value"], test["reason"]])
        lines.append(
            "<h3>Schedulability tests</h3>"
            + _table(["test", "schedulable by it", "value", "why"], test_rows, "tests-table")
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- tables

# A cell: a value, or (text, CSS class) for a verdict.
Cell = str | int | float | bool | None | tuple[str, str]


def _cell(value: Cell) -> str:
    if isinstance(value, tuple):
        text, css = value
        return f'<td class="{css}">{escape(text)}</td>' if css else f"<td>{escape(text)}</td>"
    if value is None:
        return "<td>-</td>"
    if isinstance(value, bool):
        return f"<td>{'yes' if value else 'no'}</td>"
    if isinstance(value, int | float):
        return f'<td class="num">{value}</td>'
    return f"<td>{escape(value)}</td>"


def _table(headers: Sequence[str], rows: Iterable[Sequence[Cell]], css: str) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "\n".join("<tr>" + "".join(map(_cell, row)) + "</tr>" for row in rows)
    return f'<table class="{css}">\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>'


def _section(title: str, content: str, ident: str) -> str:
    return f'<section id="{ident}">\n<h2>{escape(title)}</h2>\n{content}\n</section>'


def _cost_model(scenario: Scenario) -> str:
    model = scenario.system.cost_model
    return model.name if model is not None else "zero"


def _title(scenario: Scenario, target: str) -> str:
    """The page's title: file, protocol, target and the kernel's costs."""
    costs = f"cost model {_cost_model(scenario)}" if target == HOST else "QEMU's costs"
    if target == TRACE:
        costs = "the traced program's costs"
    return f"{Path(scenario.source).name}: protocol {scenario.system.protocol}, {target}, {costs}"


def _header(scenario: Scenario, target: str, title: str) -> str:
    system = scenario.system
    where = "the kernel's host port, in the lab" if target == HOST else "the kernel, bare metal on QEMU"
    costs = (
        f"cost model {_cost_model(scenario)}"
        if target == HOST
        else "the emulated CPU's own costs (QEMU -icount: one instruction is 1 ns)"
    )
    if target == TRACE:  # priora trace: read from a program's own trace
        where, costs = "a trace recorded by the program itself (priora trace)", "the program's own"
    facts = [
        ("scenario file", scenario.source),
        ("protocol", system.protocol),
        ("target", f"{target}: {where}"),
        ("kernel costs", costs),
        ("time unit", f"{system.time_unit} (tick_hz {system.tick_hz})"),
    ]
    items = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts)
    return f'<header>\n<h1>{escape(title)}</h1>\n<dl class="facts">{items}</dl>\n</header>'


def _tasks_html(report: Report) -> str:
    unit = report.system.time_unit
    headers = ["task", "jobs", f"max response ({unit})", f"mean response ({unit})", f"max blocked ({unit})",
               f"max inverted ({unit})", "misses", "timeouts", "errors", "aborts",
               f"lost ({unit})"]  # fmt: skip
    rows: list[list[Cell]] = [
        [
            name,
            t.jobs,
            t.max_response,
            t.mean_response,
            t.max_blocked,
            t.max_inverted,
            t.misses,
            t.timeouts,
            t.errors,
            t.aborts,
            t.lost,
        ]  # fmt: skip
        for name, t in report.tasks.items()
    ]
    if report.recoveries:
        headers.append(f"recovery ({unit})")
        for row, t in zip(rows, report.tasks.values(), strict=True):
            row.append(t.recovery)
    return _table(headers, rows, "tasks-table")


def _resources_html(report: Report) -> str:
    unit = report.system.time_unit
    headers = ["resource", "kind", "protocol", "ceiling", "downs", "ups", "most waiters",
               f"longest hold ({unit})", "aborts"]  # fmt: skip
    rows: list[list[Cell]] = [
        [name, r.kind, r.protocol, r.ceiling, r.downs, r.ups, r.most_waiters, r.longest_hold, r.aborts]
        for name, r in report.resources.items()
    ]
    if report.recoveries:
        headers.append(f"recovery ({unit})")
        for row, r in zip(rows, report.resources.values(), strict=True):
            row.append(r.recovery)
    return _table(headers, rows, "resources-table")


def _system_html(report: Report) -> str:
    s = report.system
    unit = s.time_unit
    pairs: list[tuple[str, Cell]] = [
        ("time unit", f"{unit} (tick_hz {s.tick_hz})"),
        ("protocol", s.protocol),
        ("quantum", f"{s.quantum} {unit}" if s.quantum else "none"),
        ("horizon", f"{s.horizon} {unit} (stopped: {s.stopped})"),
        ("utilisation", f"{s.utilisation:.6f}"),
        ("nominal utilisation", None if s.nominal_utilisation is None else f"{s.nominal_utilisation:.6f}"),
        ("context switches", s.context_switches),
        ("priority changes", s.priority_changes),
        ("jobs", s.jobs),
        ("misses", s.misses),
        ("refused calls", s.refused),
        ("aborts", s.aborts),
        ("lost", f"{s.lost} {unit}"),
    ]
    if report.recoveries:
        pairs.append(("recovery", f"{s.recovery} {unit}"))
    return _table(["figure", "value"], [[k, v] for k, v in pairs], "system-table")


def _warnings_html(report: Report) -> str:
    unit = report.system.time_unit
    return "<ul>" + "".join(f"<li>{escape(w.line(unit))}</li>" for w in report.warnings) + "</ul>"


_JOB_COLUMNS = ("task", "job", "release", "start", "finish", "response", "deadline", "missed", "blocked",
                "inverted", "timeouts", "errors", "aborts", "lost")  # fmt: skip
_JOB_TIMES = {"release", "start", "finish", "response", "deadline", "blocked", "inverted", "lost", "recovery"}


def _jobs_html(report: Report) -> str:
    unit = report.system.time_unit
    columns = _JOB_COLUMNS + (("recovery",) if report.recoveries else ())
    headers = [f"{c} ({unit})" if c in _JOB_TIMES else c for c in columns]
    count = len(report.jobs)
    shown: Sequence[JobRow] = report.jobs[:MAX_JOB_ROWS]

    def row(job: JobRow) -> list[Cell]:
        cells: list[Cell] = [getattr(job, c) for c in columns]
        if job.missed:
            cells[columns.index("missed")] = ("yes", "bad")
        return cells

    summary = f"{count} jobs" if count <= MAX_JOB_ROWS else f"the first {MAX_JOB_ROWS} of {count} jobs"
    note = (
        ""
        if count <= MAX_JOB_ROWS
        else f'<p class="note">The report of priora simulate (text or --json) lists all {count} jobs.</p>'
    )
    return (
        f"<details><summary>{summary} (click to show)</summary>\n{note}"
        f"{_table(headers, map(row, shown), 'jobs-table')}\n</details>"
    )

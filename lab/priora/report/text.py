"""The report as tables (priora.tables): jobs, tasks, resources, the
services, the system and the warnings, as `priora simulate` prints them;
and the reasons --strict fails a run.
"""

from __future__ import annotations

from priora.report.build import (
    JOB_FIELDS,
    RECOVERY_FIELDS,
    Report,
    WarningRow,
    row_fields,
)
from priora.tables import Cell, Lines, Pairs, Section, Table, render

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from priora.tables import Format


# The Jobs table's columns: the JobRow fields, in this order; the rcs ones
# only when a mutex is restartable (_restartable).
_JOBS_TEXT = ("task", "job", "release", "start", "finish", "response", "deadline", "missed", "blocked",
              "inverted", "timeouts", "errors")  # fmt: skip
_JOBS_RCS = ("aborts", "lost")
_TIMES = {"release", "start", "finish", "response", "deadline", "blocked", "inverted", "lost", "recovery"}


def _restartable(report: Report) -> bool:
    """A mutex of the run is rcs: the text shows the aborts and the lost work."""
    return any(r.protocol == "rcs" for r in report.resources.values())


def _recovery_columns(report: Report) -> tuple[str, ...]:
    """The `recovery` columns, shown when a mutex of the run has a recovery."""
    return RECOVERY_FIELDS if report.recoveries else ()


def _ceilings(report: Report) -> bool:
    """A mutex of the run has a ceiling (pcp, ipcp, npcs): the text shows it."""
    return any(r.ceiling is not None for r in report.resources.values())


def _jobs_table(report: Report, unit: str) -> Table:
    names = _JOBS_TEXT + (_JOBS_RCS if _restartable(report) else ()) + _recovery_columns(report)
    headers = [f"{name} ({unit})" if name in _TIMES else name for name in names]
    columns = [report.jobs._columns[JOB_FIELDS.index(name)] for name in names]
    return Table("jobs", "Jobs", headers, columns)


def _tasks_table(report: Report, unit: str) -> Table:
    headers = ["task", "jobs", *(f"{h} ({unit})" for h in ("max response", "mean response"))]
    headers += [f"max blocked ({unit})", f"max inverted ({unit})", "misses", "timeouts", "errors"]
    rcs = _restartable(report)
    if rcs:
        headers += ["aborts", f"lost ({unit})"]
    headers += [f"{name} ({unit})" for name in _recovery_columns(report)]
    # The TaskRow fields, in their order.
    rows: list[list[Cell]] = [
        [name, *list(row_fields(t).values())[: len(headers) - 1]] for name, t in report.tasks.items()
    ]
    if report.timeshare:
        headers += ["band", f"cpu ({unit})", "cpu share"]
        for row, t in zip(rows, report.tasks.values(), strict=True):
            row += [t.band, t.cpu, f"{t.cpu_share:.6f}"]
    return Table("tasks", "Tasks", headers, list(zip(*rows, strict=True)))


def _resources_table(report: Report, unit: str) -> Table:
    headers = ["resource", "kind", "protocol"]
    ceilings, rcs = _ceilings(report), _restartable(report)
    if ceilings:
        headers.append("ceiling")
    headers += ["downs", "ups", "most waiters", f"longest hold ({unit})"]
    if rcs:
        headers.append("aborts")
    if report.recoveries:
        headers.append(f"recovery ({unit})")
    rows: list[list[Cell]] = []
    for name, r in report.resources.items():
        row: list[Cell] = [name, r.kind, r.protocol, *([r.ceiling] if ceilings else [])]
        row += [r.downs, r.ups, r.most_waiters, r.longest_hold, *([r.aborts] if rcs else [])]
        row += [r.recovery] if report.recoveries else []
        rows.append(row)
    return Table("resources", "Resources", headers, list(zip(*rows, strict=True)), align="lll")


def _services_tables(report: Report, unit: str) -> list[Table]:
    """The tables of the queues, event flags, timers and interrupts the scenario has."""
    tables = []
    if report.queues:
        headers = ["queue", "length", "order", "inherit", "sends", "receives", "most messages", "send waits"]
        headers += ["receive waits", "left"]
        rows: list[list[Cell]] = [[name, *vars(q).values()] for name, q in report.queues.items()]
        tables.append(Table("queues", "Message queues", headers, list(zip(*rows, strict=True))))
    if report.events:
        rows = [[name, e.sets, e.wakeups, f"0x{e.flags:08x}"] for name, e in report.events.items()]
        headers = ["events", "sets", "wakeups", "flags at end"]
        tables.append(Table("events", "Event flags", headers, list(zip(*rows, strict=True))))
    if report.timers:
        headers = ["timer", f"phase ({unit})", f"period ({unit})", "priority", "expiries", "dropped"]
        headers += [f"max lateness ({unit})", "failed calls"]
        rows = [[name, *vars(t).values()] for name, t in report.timers.items()]
        tables.append(Table("timers", "Timers", headers, list(zip(*rows, strict=True))))
    if report.interrupts:
        headers = ["interrupt", f"phase ({unit})", f"period ({unit})", "runs", "failed calls"]
        rows = [[name, *vars(i).values()] for name, i in report.interrupts.items()]
        tables.append(Table("interrupts", "Interrupts", headers, list(zip(*rows, strict=True))))
    if report.arrivals:
        headers = ["task", "arrivals", "refused", "deferred", f"max jitter ({unit})"]
        headers += [f"max response from arrival ({unit})", "hard misses", "soft misses", "aborted"]
        rows = [[name, *vars(a).values()] for name, a in report.arrivals.items()]
        tables.append(Table("arrivals", "Arrivals", headers, list(zip(*rows, strict=True))))
    return tables


def _system_pairs(report: Report) -> Pairs:
    s = report.system
    unit = s.time_unit
    pairs: list[tuple[str, str]] = [
        ("time unit", f"{unit} (tick_hz {s.tick_hz})"),
        ("protocol", s.protocol),
        *([("quantum", f"{s.quantum} {unit} (round robin among equal priorities)")] if s.quantum else []),
        ("horizon", f"{s.horizon} {unit} (stopped: {s.stopped})"),
        ("utilisation", f"{s.utilisation:.6f}"),
        ("nominal utilisation", "-" if s.nominal_utilisation is None else f"{s.nominal_utilisation:.6f}"),
        ("context switches", str(s.context_switches)),
        ("priority changes", str(s.priority_changes)),
        ("jobs", str(s.jobs)),
        ("misses", str(s.misses)),
        *([("refused calls", f"{s.refused} (Warnings, below)")] if s.refused else []),
    ]
    if _restartable(report):
        pairs += [("aborts", str(s.aborts)), ("lost", f"{s.lost} {unit}")]
    if report.recoveries:
        pairs.append(("recovery", f"{s.recovery} {unit}"))
    if report.timeshare:
        pairs += [("real-time band CPU share", f"{s.realtime_share:.6f}")]
        pairs += [("time-sharing band CPU share", f"{s.timeshare_share:.6f}")]
    # The CSV file: the JSON document's system entry, key by key.
    raw = list(row_fields(s, report.recoveries, report.timeshare).items())
    return Pairs("system", "System", ("figure", "value"), pairs, raw)


_WARNING_COLUMNS = ("task", "job", "time", "action", "action_text", "error", "cause")


def _warnings_lines(report: Report) -> Lines:
    unit = report.system.time_unit
    columns = [[getattr(w, name) for w in report.warnings] for name in _WARNING_COLUMNS]
    headers = [f"time ({unit})" if name == "time" else name for name in _WARNING_COLUMNS]
    table = Table("warnings", "Warnings", headers, columns)
    return Lines("Warnings", [w.line(unit) for w in report.warnings], table)


def strict_failures(report: Report) -> list[str]:
    """Why `priora simulate --strict` fails the run, one line each: every
    refused call (the same call refused again is one line, with its count),
    then every task with misses. Empty when the run is clean."""
    unit = report.system.time_unit
    lines: list[str] = []
    groups: dict[tuple[str, int | None, str], list[WarningRow]] = {}
    for w in report.warnings:
        groups.setdefault((w.task, w.action, w.error), []).append(w)
    for same in groups.values():
        line = same[0].line(unit)
        if len(same) > 1:
            last = same[-1]
            line += f" (and {len(same) - 1} more times, the last in job {last.job} at {last.time} {unit})"
        lines.append(line)
    missed: dict[str, list[int]] = {}  # task -> rows of its missed jobs, read by column
    for row, (task, miss) in enumerate(
        zip(report.jobs.column("task"), report.jobs.column("missed"), strict=True)
    ):
        if miss:
            missed.setdefault(task, []).append(row)
    for task in report.tasks:  # file order
        rows = missed.get(task, [])
        if not rows:
            continue
        first = report.jobs[rows[0]]
        at = f"{first.deadline} {unit}"
        if len(rows) == 1:
            lines.append(f"{task} job {first.job} missed its deadline at {at}")
        else:
            lines.append(f"{task} missed {len(rows)} deadlines, the first in job {first.job} at {at}")
    return lines


def report_sections(report: Report, summary: bool = False) -> list[Section]:
    """The tables (jobs, tasks, resources), the system block and the
    warnings; `summary`: without the jobs table."""
    unit = report.system.time_unit
    sections: list[Section] = [] if summary else [_jobs_table(report, unit)]
    sections += [_tasks_table(report, unit), _resources_table(report, unit)]
    sections += _services_tables(report, unit)
    sections.append(_system_pairs(report))
    if report.warnings:
        sections.append(_warnings_lines(report))
    return sections


def report_text(report: Report, summary: bool = False, fmt: Format = "text") -> str:
    """Aligned tables (jobs, tasks, resources) and the system block, every
    time column headed with the file's unit; `summary`: without the jobs
    table; `fmt` "markdown": as Markdown tables (priora.tables)."""
    return render(report_sections(report, summary), fmt)

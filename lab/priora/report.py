"""The report of one simulation: per job, per task, per resource, system.

`build_report` turns a `SimResult` (kernel times in ns, NEVER for times that
did not happen) into plain values in the scenario file's time unit, so that
`report_json` and `report_text` only format. The JSON document is described
by report.schema.json (shipped with the package) and docs/report-schema.md.

Times are ints when they are a whole number of the unit, else floats rounded
to 6 decimals: 11 ticks at 1000 Hz in ms read 11, not 11.0; at 512 Hz they
read 21.484375; a mean of 5/3 ticks reads 1.666667.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any, Literal, cast

import numpy as np

from priora import native
from priora.model import Action, Scenario, Task
from priora.simulate import SimResult

Number = int | float
Stopped = Literal["horizon", "quiescent"]

DECIMALS = 6


# Plain (not frozen) dataclasses: a frozen one takes ten times longer to
# build, and a report can have millions of job rows.
@dataclass
class JobRow:
    task: str
    job: int
    release: Number
    start: Number | None  # None: never ran
    finish: Number | None  # None: unfinished when the run ended
    response: Number | None  # finish - release; None when unfinished
    timeouts: int
    blocked: Number
    inverted: Number
    missed: bool  # True only for a miss that happened (not for an open deadline)
    deadline: Number | None  # absolute; None: the task has no deadline


@dataclass
class TaskRow:
    jobs: int
    max_response: Number | None  # over finished jobs; None if none finished
    mean_response: Number | None
    max_blocked: Number  # 0 when the task has no job
    max_inverted: Number
    misses: int
    timeouts: int


@dataclass
class ResourceRow:
    kind: str
    protocol: str | None  # mutexes only
    downs: int
    ups: int
    most_waiters: int
    longest_hold: Number | None  # mutexes only


@dataclass
class SystemRow:
    utilisation: float
    nominal_utilisation: float | None  # None: no periodic task
    context_switches: int
    priority_changes: int
    horizon: Number
    stopped: Stopped
    time_unit: str
    tick_hz: int
    protocol: str
    jobs: int
    misses: int


@dataclass
class Report:
    jobs: tuple[JobRow, ...]
    tasks: dict[str, TaskRow]  # in the scenario's task order
    resources: dict[str, ResourceRow]  # in the scenario's resource order
    system: SystemRow


# ---------------------------------------------------------------- building


def _number(value: float) -> Number:
    """An int when integral after rounding, so that float noise of the unit
    conversion (10.999999999999998) does not show. np.round, as `_column`
    does, so that a value reads the same in the jobs and in the tasks."""
    rounded = float(np.round(value, DECIMALS))
    return int(rounded) if rounded.is_integer() else rounded


def _time(scenario: Scenario, ns: int | float) -> Number:
    return _number(scenario.to_unit(ns))


def _column(scenario: Scenario, ns: np.ndarray[Any, Any]) -> list[Number | None]:
    """A column of ns (NEVER = did not happen) in the file's unit, converted
    at once: one job row at a time through numpy scalars is ~10x slower, and
    a report may have millions of rows."""
    # Scenario.to_unit is plain arithmetic, so it takes a whole array too.
    to_unit = cast(Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any]], scenario.to_unit)
    values = np.round(to_unit(ns.astype(np.float64)), DECIMALS)
    # An object array holds Python ints, floats and None side by side.
    never = ns == native.NEVER if ns.dtype == np.uint64 else np.zeros(len(ns), dtype=bool)
    whole = (values == np.floor(values)) & ~never  # NEVER might not fit an int64
    out = values.astype(object)
    out[whole] = values[whole].astype(np.int64).astype(object)
    out[never] = None
    converted: list[Number | None] = out.tolist()
    return converted


def _jobs(result: SimResult) -> tuple[JobRow, ...]:
    scenario, jobs = result.scenario, result.jobs
    names = [t.name for t in scenario.tasks]
    finished = jobs["finish"] != native.NEVER
    # finish - release only where finished: NEVER - release would read as a time.
    response = np.where(finished, jobs["finish"] - jobs["release"], np.uint64(native.NEVER))
    columns = zip(
        [names[t] for t in jobs["task"].tolist()],
        jobs["job"].tolist(),
        _column(scenario, jobs["release"]),
        _column(scenario, jobs["start"]),
        _column(scenario, jobs["finish"]),
        _column(scenario, response),
        jobs["timeouts"].tolist(),
        _column(scenario, jobs["blocked"]),
        _column(scenario, jobs["inverted"]),
        (jobs["missed"] == 1).tolist(),
        _column(scenario, jobs["deadline"]),
        strict=True,
    )
    return tuple(JobRow(*c) for c in columns)


def _task_row(scenario: Scenario, rows: np.ndarray[Any, Any]) -> TaskRow:
    # Responses in ns, so that the mean is converted once (no rounding twice).
    finished = rows[rows["finish"] != native.NEVER]
    responses = (finished["finish"] - finished["release"]).astype(np.float64)
    some = len(responses) > 0
    return TaskRow(
        jobs=len(rows),
        max_response=_time(scenario, float(responses.max())) if some else None,
        mean_response=_time(scenario, float(responses.mean())) if some else None,
        max_blocked=_time(scenario, int(rows["blocked"].max(initial=0))),
        max_inverted=_time(scenario, int(rows["inverted"].max(initial=0))),
        misses=int(np.count_nonzero(rows["missed"] == 1)),
        timeouts=int(rows["timeouts"].sum()),
    )


def _tasks(result: SimResult) -> dict[str, TaskRow]:
    scenario, jobs = result.scenario, result.jobs
    return {t.name: _task_row(scenario, jobs[jobs["task"] == i]) for i, t in enumerate(scenario.tasks)}


def _resources(result: SimResult) -> dict[str, ResourceRow]:
    scenario = result.scenario
    rows: dict[str, ResourceRow] = {}
    for r, c in zip(scenario.resources, result.semaphores, strict=True):
        is_mutex = r.kind == "mutex"
        hold = None if c.longest_hold_ns is None or not is_mutex else _time(scenario, c.longest_hold_ns)
        rows[r.name] = ResourceRow(
            kind=r.kind,
            protocol=r.protocol if is_mutex else None,
            downs=c.downs,
            ups=c.ups,
            most_waiters=c.max_waiters,
            longest_hold=hold,
        )
    return rows


def _compute_ticks(body: tuple[Action, ...]) -> int:
    return sum(a.ticks for a in body if a.kind == "compute")


def nominal_utilisation(tasks: tuple[Task, ...]) -> float | None:
    """Sum of C/T over the periodic tasks, C being every compute of the body
    (a critical section skipped on a timeout still counts: this is the
    demand as written, not as run). None when no task is periodic."""
    periodic = [t for t in tasks if t.period is not None]
    if not periodic:
        return None
    total = sum((Fraction(_compute_ticks(t.body), t.period) for t in periodic if t.period), Fraction(0))
    return round(float(total), DECIMALS)


def _system(result: SimResult, jobs: tuple[JobRow, ...]) -> SystemRow:
    scenario = result.scenario
    busy = result.busy_ns / result.end_ns if result.end_ns > 0 else 0.0
    return SystemRow(
        utilisation=round(busy, DECIMALS),
        nominal_utilisation=nominal_utilisation(scenario.tasks),
        context_switches=result.context_switches,
        priority_changes=result.priority_changes,
        horizon=_time(scenario, result.end_ns),
        stopped="quiescent" if result.quiescent else "horizon",
        time_unit=scenario.system.time_unit,
        tick_hz=scenario.system.tick_hz,
        protocol=scenario.system.protocol,
        jobs=len(jobs),
        misses=sum(1 for j in jobs if j.missed),
    )


def build_report(result: SimResult) -> Report:
    """The report of `result`, every time in the scenario file's unit."""
    jobs = _jobs(result)
    return Report(
        jobs=jobs,
        tasks=_tasks(result),
        resources=_resources(result),
        system=_system(result, jobs),
    )


# ---------------------------------------------------------------- JSON


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of `report_json`'s document (report.schema.json)."""
    text = resources.files("priora").joinpath("report.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _fields(row: JobRow | TaskRow | ResourceRow | SystemRow) -> dict[str, Any]:
    # The rows hold only scalars, so a shallow copy is what asdict's deep
    # copy would give, at a fraction of its cost on a million jobs.
    return dict(vars(row))


def report_dict(report: Report) -> dict[str, Any]:
    """The JSON document as Python values; keys in a fixed order (the
    dataclasses' field order), tasks and resources in the scenario's order."""
    return {
        "jobs": [_fields(j) for j in report.jobs],
        "tasks": {name: _fields(t) for name, t in report.tasks.items()},
        "resources": {name: _fields(r) for name, r in report.resources.items()},
        "system": _fields(report.system),
    }


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _block(key: str, value: list[Any] | dict[str, Any]) -> str:
    """One top-level key: each job (or task, resource, system field) on a
    line of its own, so the document reads and greps line by line."""
    if isinstance(value, list):
        items, brackets = [_compact(v) for v in value], "[]"
    else:
        items, brackets = [f"{_compact(k)}: {_compact(v)}" for k, v in value.items()], "{}"
    if not items:
        return f"  {_compact(key)}: {brackets}"
    body = ",\n".join(f"    {item}" for item in items)
    return f"  {_compact(key)}: {brackets[0]}\n{body}\n  {brackets[1]}"


def report_json(report: Report) -> str:
    """One JSON document (keys jobs, tasks, resources, system), laid out one
    entry per line; json.loads gives back report_dict(report)."""
    return "{\n" + ",\n".join(_block(k, v) for k, v in report_dict(report).items()) + "\n}"


# ---------------------------------------------------------------- text

Cell = str | int | float | bool | None


def _cells(values: tuple[Cell, ...]) -> list[str]:
    """A column's texts: None as "-", booleans as yes/no, numbers as they are."""
    return ["-" if v is None else ("yes" if v else "no") if type(v) is bool else str(v) for v in values]


def _table(title: str, headers: list[str], rows: list[list[Cell]], left: int = 1) -> str:
    """A titled table; the first `left` columns (names) are left-aligned,
    the others (numbers) right-aligned so that digits line up. Built column
    by column: a report may have millions of rows."""
    if not rows:
        return f"{title}: none"
    columns: list[list[str]] = []
    for i, (header, values) in enumerate(zip(headers, zip(*rows, strict=True), strict=True)):
        cells = [header, "", *_cells(values)]
        width = max(map(len, cells))
        cells[1] = "-" * width
        columns.append([c.ljust(width) for c in cells] if i < left else [c.rjust(width) for c in cells])
    return "\n".join([title, *("  ".join(line).rstrip() for line in zip(*columns, strict=True))])


def _jobs_text(report: Report, unit: str) -> str:
    headers = ["task", "job", *(f"{h} ({unit})" for h in ("release", "start", "finish", "response"))]
    headers += [f"deadline ({unit})", "missed", f"blocked ({unit})", f"inverted ({unit})", "timeouts"]
    rows: list[list[Cell]] = [
        [
            j.task,
            j.job,
            j.release,
            j.start,
            j.finish,
            j.response,
            j.deadline,
            j.missed,
            j.blocked,
            j.inverted,
            j.timeouts,
        ]
        for j in report.jobs
    ]
    return _table("Jobs", headers, rows)


def _tasks_text(report: Report, unit: str) -> str:
    headers = ["task", "jobs", *(f"{h} ({unit})" for h in ("max response", "mean response"))]
    headers += [f"max blocked ({unit})", f"max inverted ({unit})", "misses", "timeouts"]
    rows: list[list[Cell]] = [
        [name, t.jobs, t.max_response, t.mean_response, t.max_blocked, t.max_inverted, t.misses, t.timeouts]
        for name, t in report.tasks.items()
    ]
    return _table("Tasks", headers, rows)


def _resources_text(report: Report, unit: str) -> str:
    headers = ["resource", "kind", "protocol", "downs", "ups", "most waiters", f"longest hold ({unit})"]
    rows: list[list[Cell]] = [
        [name, r.kind, r.protocol, r.downs, r.ups, r.most_waiters, r.longest_hold]
        for name, r in report.resources.items()
    ]
    return _table("Resources", headers, rows, left=3)


def _system_text(report: Report) -> str:
    s = report.system
    unit = s.time_unit
    pairs: list[tuple[str, str]] = [
        ("time unit", f"{unit} (tick_hz {s.tick_hz})"),
        ("protocol", s.protocol),
        ("horizon", f"{s.horizon} {unit} (stopped: {s.stopped})"),
        ("utilisation", f"{s.utilisation:.6f}"),
        ("nominal utilisation", "-" if s.nominal_utilisation is None else f"{s.nominal_utilisation:.6f}"),
        ("context switches", str(s.context_switches)),
        ("priority changes", str(s.priority_changes)),
        ("jobs", str(s.jobs)),
        ("misses", str(s.misses)),
    ]
    width = max(len(k) for k, _ in pairs)
    return "\n".join(["System", *(f"  {k.ljust(width)}  {v}" for k, v in pairs)])


def report_text(report: Report) -> str:
    """Aligned tables (jobs, tasks, resources) and the system block, every
    time column headed with the file's unit."""
    unit = report.system.time_unit
    sections = [_jobs_text(report, unit), _tasks_text(report, unit), _resources_text(report, unit)]
    return "\n\n".join([*sections, _system_text(report)])

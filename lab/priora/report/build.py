"""The report of one simulation: per job, per task, per resource, system.

`build_report` turns a `SimResult` (kernel times in ns, NEVER for times that
did not happen) into plain values in the scenario file's time unit, so that
the JSON document (priora.report.json_document: report.schema.json, shipped
with the package, and docs/report-schema.md) and the tables
(priora.report.text) only format.

Times are ints when they are a whole number of the unit, else floats rounded
to 6 decimals: 11 ticks at 1000 Hz in ms read 11, not 11.0; at 512 Hz they
read 21.484375; a mean of 5/3 ticks reads 1.666667.

A run can have millions of jobs, and one Python object per job costs more
than the simulation itself. So the job rows are kept column by column
(`JobRows`): each column is converted from the C rows once, in C
(lab/native/job_fields.c) and one .tolist(); a `JobRow` is built only when a
row is asked for, and `report_text` and `report_json` format the columns
directly. numpy is imported only for what C does not convert: a column
with a time that is not a whole number of the unit, the bands of
time-sharing tasks, the arrivals of sporadic tasks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from priora.record import field, fields, record
from priora.run import native
from priora.run.simulate import ScriptCounters, SimResult
from priora.scenario.model import UNITS_PER_SECOND, Action, Scenario, Task, in_unit

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from typing import Any, Literal, overload

    import numpy as np

    Stopped = Literal["horizon", "quiescent"]

Number = int | float

DECIMALS = 6


@record
class JobRow:
    task: str
    job: int
    release: Number
    start: Number | None  # None: never ran
    finish: Number | None  # None: unfinished when the run ended
    response: Number | None  # finish - release; None when unfinished
    timeouts: int  # waits that timed out, or failed at once with no wait (timeout 0)
    errors: int  # semaphore calls that failed otherwise (PR_EDEADLK, PR_EOVERFLOW, PR_EPERM...)
    blocked: Number
    inverted: Number
    missed: bool  # True only for a miss that happened (not for an open deadline)
    deadline: Number | None  # absolute; None: the task has no deadline
    aborts: int = 0  # rcs: sections of the job aborted by a more urgent task, and restarted
    lost: Number = 0  # rcs: CPU time of the job spent in those sections before their restart
    recovery: Number = 0  # rcs with a recovery: CPU time the job spent restoring their shared state


JOB_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(JobRow))
# The fields present only when a mutex of the run has a recovery (Report.recoveries).
RECOVERY_FIELDS = ("recovery",)
# The bands' fields (tasks: band, CPU time and share; system: each band's
# share), shown and written only when the scenario has time-sharing tasks.
TIMESHARE_FIELDS = ("band", "cpu", "cpu_share", "realtime_share", "timeshare_share")


class JobRows(Sequence[JobRow]):
    """The job rows of a report, in release order, kept as one list per field
    of JobRow (`column`). Indexing and iterating build the JobRow objects on
    demand. Equal to any sequence of equal JobRows (a tuple of them, say).

    The rows of a run (`build_report`) keep the C rows they come from
    (`source`) and make the lists when first asked for: `report_json` writes
    the jobs from the C rows, without a Python object per job."""

    __slots__ = ("_lists", "_length", "_source")

    def __init__(self, columns: Mapping[str, list[Any]]) -> None:
        self._lists: tuple[list[Any], ...] | None = self._checked(columns)
        self._length = len(self._lists[0])
        self._source: tuple[Scenario, bytes] | None = None

    @staticmethod
    def _checked(columns: Mapping[str, list[Any]]) -> tuple[list[Any], ...]:
        if set(columns) != set(JOB_FIELDS):
            raise ValueError(f"job columns must be exactly {', '.join(JOB_FIELDS)}")
        if len({len(values) for values in columns.values()}) > 1:
            raise ValueError("job columns of different lengths")
        return tuple(columns[name] for name in JOB_FIELDS)

    @classmethod
    def of_run(cls, scenario: Scenario, jobs: bytes) -> JobRows:
        """The rows of `jobs` (pr_lab_job_t rows of a run of `scenario`, as
        SimResult.job_rows), converted when first read."""
        rows = cls.__new__(cls)
        length = len(jobs) // int(native.ffi.sizeof("pr_lab_job_t"))
        rows._lists, rows._length, rows._source = None, length, (scenario, jobs)
        return rows

    @property
    def source(self) -> tuple[Scenario, bytes] | None:
        """The scenario and C rows (pr_lab_job_t's bytes) these rows convert, or None."""
        return self._source

    @property
    def _columns(self) -> tuple[list[Any], ...]:
        if self._lists is None:
            assert self._source is not None
            self._lists = self._checked(_job_lists(*self._source))
        return self._lists

    @classmethod
    def from_rows(cls, rows: Iterable[JobRow]) -> JobRows:
        kept = list(rows)
        return cls({name: [getattr(r, name) for r in kept] for name in JOB_FIELDS})

    def column(self, name: str) -> list[Any]:
        """A copy of the values of field `name`, one per job."""
        return list(self._columns[JOB_FIELDS.index(name)])

    def __len__(self) -> int:
        return self._length

    if TYPE_CHECKING:

        @overload
        def __getitem__(self, index: int) -> JobRow: ...

        @overload
        def __getitem__(self, index: slice) -> tuple[JobRow, ...]: ...

    def __getitem__(self, index: int | slice) -> JobRow | tuple[JobRow, ...]:
        if isinstance(index, slice):
            return tuple(map(JobRow, *(values[index] for values in self._columns)))
        return JobRow(*(values[index] for values in self._columns))

    def __iter__(self) -> Iterator[JobRow]:
        return map(JobRow, *self._columns)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, JobRows):
            return self._columns == other._columns
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __repr__(self) -> str:
        return f"JobRows({tuple(self)!r})"


@record
class TaskRow:
    jobs: int
    max_response: Number | None  # over finished jobs; None if none finished
    mean_response: Number | None
    max_blocked: Number  # 0 when the task has no job
    max_inverted: Number
    misses: int
    timeouts: int
    errors: int
    aborts: int = 0  # rcs: the interpreter's count of restarted sections (pr_script_t.aborts)
    lost: Number = 0  # rcs: the interpreter's lost work (pr_script_t.lost)
    recovery: Number = 0  # rcs with a recovery: the sum of the jobs' recovery
    band: str = "realtime"  # "realtime" or "timeshare" (Report.timeshare)
    cpu: Number = 0  # its CPU time over the run (Report.timeshare)
    cpu_share: float = 0.0  # that over the run's length


@record
class ResourceRow:
    kind: str
    protocol: str | None  # mutexes only
    downs: int
    ups: int
    most_waiters: int
    longest_hold: Number | None  # mutexes only
    ceiling: int | None = None  # pcp, ipcp: the mutex's ceiling; npcs: 31; else None
    aborts: int = 0  # rcs: holders whose section on it was aborted (pr_sem_stats)
    recovery: Number = 0  # rcs with a recovery: CPU time its aborted holders spent recovering


@record
class QueueRow:
    """A message queue: its attributes and the kernel's counters (pr_msgq_status)."""

    length: int
    message_order: str  # "priority" or "fifo"
    inherit: bool
    sends: int  # messages sent
    receives: int  # messages received
    most_messages: int  # the most messages waiting in it at once
    send_waits: int  # sends that waited for room
    receive_waits: int  # receives that waited for a message
    left: int  # messages still in it when the run ended


@record
class EventsRow:
    """Event flags: the kernel's counters (pr_events_status)."""

    sets: int  # set calls
    wakeups: int  # waits a set satisfied
    flags: int  # the flags when the run ended


@record
class TimerRow:
    """A software timer: its attributes and the kernel's counters (pr_timer_status)."""

    phase: Number  # its first expiry
    period: Number  # 0: one-shot
    priority: int
    expiries: int  # expiries whose body ran
    dropped: int  # expiries dropped: the previous one's body had not run yet
    max_lateness: Number  # the latest a body started after its expiry
    failed_calls: int  # calls of its body that failed (no room, no unit, an error)


@record
class InterruptRow:
    phase: Number
    period: Number  # 0: once
    runs: int  # how many times its body ran
    failed_calls: int  # calls of its body that failed (no room, no unit, an error)


@record
class ArrivalRow:
    """A sporadic task, or one with release jitter, a hard deadline or an
    abort time: how its jobs arrived, missed and were aborted."""

    arrivals: int  # jobs that arrived
    refused: int  # sporadic: requests refused as too early
    deferred: int  # sporadic: early requests deferred to the earliest allowed tick
    max_jitter: Number  # the largest release - arrival
    # The largest finish - arrival (the analysis' response time); None: none finished.
    max_response: Number | None
    hard_misses: int = 0  # deadline misses of a hard task (each aborted a job)
    soft_misses: int = 0  # deadline misses of a soft task (the job went on)
    aborted: int = (
        0  # its jobs aborted: chosen at a hard miss (least importance first), or at their abort time
    )


@record
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
    aborts: int = 0  # the sum of the jobs' aborts
    lost: Number = 0  # the sum of the jobs' lost work
    recovery: Number = 0  # the sum of the jobs' recovery
    refused: int = 0  # calls the kernel refused: the entries of Report.warnings
    quantum: Number = 0  # round robin among equal priorities ([system] quantum); 0 = none
    realtime_share: float = 0.0  # the real-time tasks' CPU time over the run's length (Report.timeshare)
    timeshare_share: float = 0.0  # the time-sharing tasks'


@record
class WarningRow:
    """A call the kernel refused (priora.run.refusals): the job went on without it."""

    task: str
    job: int
    time: Number
    action: int | None  # index in the task's body; None: not followed
    action_text: str  # the action as the file writes it ("lock B"); else the call refused
    error: str  # the kernel's error code ("PR_EDEADLK")
    cause: str  # why, from the kernel's state at that instant
    cycle: list[dict[str, Any]] | None  # PR_EDEADLK: {task, mutex, holder, by_ceiling} back to the task
    base_priority: int | None  # PR_ECEILING: the task's base priority
    ceiling: int | None  # PR_ECEILING: the mutex's ceiling
    skipped: list[int] | None  # a refused lock: the first and last actions the job skips

    def line(self, unit: str) -> str:
        """One line of the text report."""
        where = f"body[{self.action}]" if self.action is not None else "an action not found in the body:"
        what = f'{where} "{self.action_text}"'
        outcome = "the job goes on"
        if self.skipped is not None:
            first, last = self.skipped
            span = f"body[{first}]" if first == last else f"body[{first}] to body[{last}]"
            outcome = f"the job skips its critical section ({span})"
        return (
            f"{self.task} job {self.job} at {self.time} {unit}: {what} refused with {self.error}: "
            f"{self.cause}; {outcome}"
        )


@record
class Report:
    jobs: JobRows
    tasks: dict[str, TaskRow]  # in the scenario's task order
    resources: dict[str, ResourceRow]  # in the scenario's resource order
    system: SystemRow
    warnings: list[WarningRow] = field(default_factory=list)  # in time order
    # A mutex of the run is rcs with a recovery: the `recovery` fields are
    # shown (text) and written (JSON); without one they are all 0 and left
    # out, so that such a run's report reads as before recoveries existed.
    recoveries: bool = False
    # Message queues, event flags, software timers and interrupts, each in
    # file order; a report shows (text) and writes (JSON) only those the
    # scenario has.
    queues: dict[str, QueueRow] = field(default_factory=dict)
    events: dict[str, EventsRow] = field(default_factory=dict)
    timers: dict[str, TimerRow] = field(default_factory=dict)
    interrupts: dict[str, InterruptRow] = field(default_factory=dict)
    # The scenario has time-sharing tasks: the bands' fields are shown and
    # written (TIMESHARE_FIELDS); without, the report reads as before bands.
    timeshare: bool = False
    # The tasks that are sporadic or have release jitter, in file order
    # (none: the report reads as before arrivals existed).
    arrivals: dict[str, ArrivalRow] = field(default_factory=dict)


# ---------------------------------------------------------------- building


def _number(value: float) -> Number:
    """An int when integral after rounding, so that float noise of the unit
    conversion (10.999999999999998) does not show. Rounded as np.round
    rounds (`_round`), as `_column_float` does, so that a value reads the
    same in the jobs and in the tasks."""
    rounded = _round(value)
    return int(rounded) if rounded.is_integer() else rounded


SCALE = 10.0**DECIMALS


def _round(value: float) -> float:
    """np.round(value, DECIMALS) without numpy: numpy's algorithm (the value
    times 10**DECIMALS, rounded to the nearest integer, ties to even, then
    divided by 10**DECIMALS), each step the same IEEE operation. Python's
    round() to an int is exact, and the int is exactly the float numpy's
    rint gives, so the quotient is the same float
    (tests/lab/test_report.py compares the two)."""
    return round(value * SCALE) / SCALE


def _time(scenario: Scenario, ns: int | float) -> Number:
    return _number(scenario.to_unit(ns))


def _column_float(scenario: Scenario, ns: np.ndarray[Any, Any]) -> list[Number | None]:
    """A column of ns (NEVER = did not happen) in the file's unit, converted
    at once as `_time` converts one value."""
    from typing import cast  # numpy imports typing: no start-up to save here

    import numpy as np

    # Scenario.to_unit is plain arithmetic, so it takes a whole array too.
    to_unit = cast("Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any]]", scenario.to_unit)
    values = np.round(to_unit(ns.astype(np.float64)), DECIMALS)
    # An object array holds Python ints, floats and None side by side.
    never = ns == native.NEVER if ns.dtype == np.uint64 else np.zeros(len(ns), dtype=bool)
    whole = (values == np.floor(values)) & ~never  # NEVER might not fit an int64
    out = values.astype(object)
    out[whole] = values[whole].astype(np.int64).astype(object)
    out[never] = None
    converted: list[Number | None] = out.tolist()
    return converted


def units_per_second(scenario: Scenario) -> int:
    """The factor of Scenario.to_unit: a time in the unit is ns * this / 1e9."""
    system = scenario.system
    return system.tick_hz if system.time_unit == "tick" else UNITS_PER_SECOND[system.time_unit]


def _column(scenario: Scenario, rows: bytes, name: str) -> list[Any]:
    """Field `name` of the C job rows `rows`, one value per job. A time is
    in the unit: converted in C when every time of the column is a whole
    number of it (always, when the unit is the tick or a multiple of it; an
    int then, and None for a time that did not happen), else by
    `_column_float`, in floats; counts are ints, `missed` a bool."""
    ffi, lib = native.ffi, native.lib()
    n = len(rows) // ffi.sizeof("pr_lab_job_t")
    values = ffi.new("int64_t[]", max(1, n))
    nevers = ffi.new("uint64_t[]", max(1, n))
    jobs = ffi.cast("const pr_lab_job_t *", ffi.from_buffer(rows))
    found = int(
        lib.pr_lab_job_column(jobs, n, JOB_FIELDS.index(name), units_per_second(scenario), values, nevers)
    )
    if found == native.FIELD_NOT_WHOLE:
        array = native.records(rows, "JOB_DTYPE")
        return _column_float(scenario, _response(array) if name == "response" else array[name])
    if found < 0:
        raise ValueError(f"the job column {name} could not be read in C ({found})")
    column: list[Any] = memoryview(ffi.buffer(values, 8 * n)).cast("q").tolist()
    for i in memoryview(ffi.buffer(nevers, 8 * found)).cast("Q").tolist():
        column[i] = None
    return column


def _response(jobs: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """finish - release where finished, NEVER elsewhere: NEVER - release
    would read as a time."""
    import numpy as np

    finished = jobs["finish"] != native.NEVER
    return np.where(finished, jobs["finish"] - jobs["release"], np.uint64(native.NEVER))


def _jobs(result: SimResult) -> JobRows:
    return JobRows.of_run(result.scenario, result.job_rows)


def _job_lists(scenario: Scenario, rows: bytes) -> dict[str, list[Any]]:
    columns = {name: _column(scenario, rows, name) for name in JOB_FIELDS}
    names = [t.name for t in scenario.tasks]
    columns["task"] = [names[i] for i in columns["task"]]
    columns["missed"] = [m == 1 for m in columns["missed"]]
    return columns


def _task_row(scenario: Scenario, totals: Any, script: ScriptCounters) -> TaskRow:
    """One task's row from its pr_lab_task_totals_t. The mean response in
    ns, exact (an integer sum over a count), so that it is converted once
    (no rounding twice)."""
    some = totals.finished > 0
    return TaskRow(
        jobs=int(totals.jobs),
        max_response=_time(scenario, float(int(totals.max_response))) if some else None,
        mean_response=_time(scenario, int(totals.response_sum) / int(totals.finished)) if some else None,
        max_blocked=_time(scenario, int(totals.max_blocked)),
        max_inverted=_time(scenario, int(totals.max_inverted)),
        misses=int(totals.misses),
        timeouts=int(totals.timeouts),
        errors=int(totals.errors),
        aborts=script.aborts,
        lost=_time(scenario, script.lost_ns),
        recovery=_time(scenario, int(totals.recovery)),
    )


def cpu_by_task(result: SimResult) -> list[int]:
    """Each task's CPU time in ns (model order), from the trace's SWITCH
    records: a task runs from the record that switches it in to the next
    SWITCH (or the end of the run). Host and QEMU alike."""
    import numpy as np

    trace = result.trace
    switches = trace[trace["event"] == native.EVENT["SWITCH"]]
    times = switches["time"].astype(np.int64)
    ends = np.append(times[1:], np.int64(result.end_ns))
    ran = np.bincount(switches["task"], weights=(ends - times).astype(np.float64), minlength=256)
    return [int(ran[i]) for i in range(len(result.scenario.tasks))]


def _bands(result: SimResult, rows: dict[str, TaskRow]) -> None:
    """The bands' fields of the task rows (a scenario with time-sharing tasks)."""
    scenario = result.scenario
    for t, cpu in zip(scenario.tasks, cpu_by_task(result), strict=True):
        row = rows[t.name]
        row.band = "timeshare" if t.timeshare else "realtime"
        row.cpu = _time(scenario, cpu)
        row.cpu_share = round(cpu / result.end_ns, DECIMALS) if result.end_ns > 0 else 0.0


def _tasks(result: SimResult, totals: Any) -> dict[str, TaskRow]:
    """Every task's row, from `totals` (task_totals(result): one C pass over
    the job rows, lab/native/task_totals.c): no sort, no column gathered."""
    scenario = result.scenario
    rows: dict[str, TaskRow] = {}
    for i, t in enumerate(scenario.tasks):
        rows[t.name] = _task_row(scenario, totals[i], result.scripts[i])
    if has_timeshare(scenario):
        _bands(result, rows)
    return rows


def task_totals(result: SimResult) -> Any:
    """Per task of the file, its pr_lab_task_totals_t (an array of them):
    one C pass over the job rows."""
    ffi = native.ffi
    ntasks = len(result.scenario.tasks)
    totals = ffi.new("pr_lab_task_totals_t[]", max(1, ntasks))
    err = native.lib().pr_lab_task_totals(
        ffi.cast("const pr_lab_job_t *", ffi.from_buffer(result.job_rows)), result.job_count, ntasks, totals
    )
    if err != 0:
        raise ValueError("a job's task is not a task of the scenario")
    return totals


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
            ceiling=scenario.kernel_ceiling(r.name),
            aborts=c.aborts,
            recovery=_time(scenario, c.recovery_ns),
        )
    return rows


def _queues(result: SimResult) -> dict[str, QueueRow]:
    return {
        q.name: QueueRow(
            q.length,
            q.message_order,
            q.inherit,
            c.sends,
            c.receives,
            c.most_messages,
            c.send_waits,
            c.receive_waits,
            c.messages,
        )  # fmt: skip
        for q, c in zip(result.scenario.queues, result.queues, strict=True)
    }


def _events(result: SimResult) -> dict[str, EventsRow]:
    return {
        e.name: EventsRow(c.sets, c.wakeups, c.flags)
        for e, c in zip(result.scenario.events, result.events, strict=True)
    }


def _timers(result: SimResult) -> dict[str, TimerRow]:
    s = result.scenario
    return {
        t.name: TimerRow(
            in_unit(s, t.phase),
            in_unit(s, t.period),
            t.priority,
            c.expiries,
            c.dropped,
            in_unit(s, c.max_lateness),
            c.failed,
        )
        for t, c in zip(s.timers, result.timers, strict=True)
    }


def _interrupts(result: SimResult) -> dict[str, InterruptRow]:
    s = result.scenario
    return {
        i.name: InterruptRow(in_unit(s, i.phase), in_unit(s, i.period), c.runs, c.failed)
        for i, c in zip(s.interrupts, result.interrupts, strict=True)
    }


def _arrivals(result: SimResult) -> dict[str, ArrivalRow]:
    """Per sporadic task or task with jitter or an offset: the kernel's counters, and the
    response times from each job's arrival (its deadline less the relative
    deadline: the kernel counts deadlines from arrivals)."""
    s = result.scenario
    rows: dict[str, ArrivalRow] = {}
    if not result.arrivals:  # a run on a target: it has none of these tasks (priora.run.blob)
        return rows
    if not any(t.sporadic or t.jitter or t.offset or t.hard or t.abort_time for t in s.tasks):
        return rows
    import numpy as np

    jobs = result.jobs
    for i, (t, c) in enumerate(zip(s.tasks, result.arrivals, strict=True)):
        if not (t.sporadic or t.jitter or t.offset or t.hard or t.abort_time):
            continue
        mine = jobs[(jobs["task"] == i) & (jobs["finish"] != native.NEVER)]
        worst: Number | None = None
        if t.deadline is not None and len(mine):
            arrival = mine["deadline"] - np.uint64(s.ticks_to_ns(t.deadline))
            worst = _time(s, int((mine["finish"] - arrival).max()))
        rows[t.name] = ArrivalRow(
            c.arrivals, c.refused, c.deferred, in_unit(s, c.max_jitter), worst,
            c.hard_misses, c.misses - c.hard_misses, c.aborted,
        )  # fmt: skip
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
    # A sporadic task at its most frequent: one job per minimum interarrival time.
    gaps = [(t, t.period or t.min_interarrival) for t in tasks if t.period or t.min_interarrival]
    # The exact sum over a common denominator (without fractions' import),
    # then the nearest float: int / int rounds once, as float(Fraction).
    common = math.lcm(*(gap for _, gap in gaps if gap))
    total = sum(_compute_ticks(t.body) * (common // gap) for t, gap in gaps if gap)
    return round(total / common, DECIMALS)


def _warnings(result: SimResult) -> list[WarningRow]:
    # Most runs refuse nothing: one pass in C then, and no import of the
    # module that reads refusals (start-up).
    if native.refusals_end(result.trace_records, result.record_count) == 0:
        return []
    from priora.run import refusals

    scenario = result.scenario
    return [
        WarningRow(
            task=f.task_name,
            job=f.job,
            time=_time(scenario, f.time),
            action=f.action,
            action_text=f.action_text,
            error=f.error,
            cause=f.cause,
            cycle=f.cycle_list(),
            base_priority=f.base_priority,
            ceiling=f.ceiling,
            skipped=list(f.skipped) if f.skipped is not None else None,
        )
        for f in refusals.find(result)
    ]


def _system(result: SimResult, refused: int, totals: Any) -> SystemRow:
    """The system's row; `totals`: task_totals(result)."""
    scenario = result.scenario
    per_task = [totals[i] for i in range(len(scenario.tasks))]
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
        jobs=result.job_count,
        misses=sum(int(t.misses) for t in per_task),
        aborts=sum(int(t.aborts) for t in per_task),
        lost=_time(scenario, sum(int(t.lost) for t in per_task)),
        recovery=_time(scenario, sum(int(t.recovery) for t in per_task)),
        refused=refused,
        quantum=_time(scenario, scenario.ticks_to_ns(scenario.system.quantum)),
    )


def has_timeshare(scenario: Scenario) -> bool:
    """`scenario` has time-sharing tasks (Report.timeshare)."""
    return any(t.timeshare for t in scenario.tasks)


def has_recoveries(scenario: Scenario) -> bool:
    """A mutex of `scenario` is rcs with a recovery (Report.recoveries)."""
    return any(r.kind == "mutex" and r.protocol == "rcs" and r.recovery > 0 for r in scenario.resources)


def build_report(result: SimResult) -> Report:
    """The report of `result`, every time in the scenario file's unit."""
    warnings = _warnings(result)
    totals = task_totals(result)
    tasks = _tasks(result, totals)
    system = _system(result, len(warnings), totals)
    timeshare = has_timeshare(result.scenario)
    if timeshare:
        rows = list(zip(tasks.values(), result.scenario.tasks, strict=True))
        system.realtime_share = round(sum(r.cpu_share for r, t in rows if not t.timeshare), DECIMALS)
        system.timeshare_share = round(sum(r.cpu_share for r, t in rows if t.timeshare), DECIMALS)
    return Report(
        jobs=_jobs(result),
        tasks=tasks,
        resources=_resources(result),
        system=system,
        warnings=warnings,
        recoveries=has_recoveries(result.scenario),
        queues=_queues(result),
        events=_events(result),
        timers=_timers(result),
        interrupts=_interrupts(result),
        timeshare=timeshare,
        arrivals=_arrivals(result),
    )


Row = (
    TaskRow
    | ResourceRow
    | SystemRow
    | WarningRow
    | QueueRow
    | EventsRow
    | TimerRow
    | InterruptRow
    | ArrivalRow
)


def row_fields(row: Row, recoveries: bool = True, timeshare: bool = True) -> dict[str, Any]:
    """A row's fields by name, without the recovery or the time-sharing ones
    when the run has none (the JSON objects, the text tables)."""
    # The rows hold only scalars, so a shallow copy is what asdict's deep
    # copy would give, at a fraction of its cost.
    values = dict(vars(row))
    if not recoveries:
        for name in RECOVERY_FIELDS:
            values.pop(name, None)
    if not timeshare:
        for name in TIMESHARE_FIELDS:
            values.pop(name, None)
    return values

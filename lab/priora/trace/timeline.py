"""What each task did over time, read from a run's kernel trace: the intervals
and instants that the pictures (priora.pictures.gantt, priora.pictures.html_report) and the
trace exports (priora.trace.chrome_trace) draw.

The trace is read once, in C, by the lab's native library
(lab/native/intervals.c, beside the job accounting of metrics.c): this module
only names its spans' objects and puts them into the records below. Every
time is the kernel's, in ns; `Interval.in_unit` and `Mark.in_unit` convert to
the file's time unit with `Scenario.to_unit`.

How each kind is read (docs/trace-format.md):
  executions        SWITCH in .. SWITCH out (0xFF is the idle task: not a task)
  critical sections a mutex is held from a WAKE ok on it (handed over by an
                    up), or else from its holder's DOWN ok (taken in the call:
                    at once, after a pcp retry, or by an rcs take-over), until
                    the holder's UP ok, or the ABORT of its section (rcs: then
                    the section is `aborted`, its work lost). Counting and
                    binary semaphores have no holder, hence no critical sections.
  blocked           BLOCK .. WAKE (ok; PR_ETIMEDOUT: a timeout; PR_EAGAIN: pcp
                    woke it to try again). A CEILING record after the BLOCK
                    marks a wait on pcp's system ceiling (`ceiling`, `holder`)
  aborts            ABORT records (rcs): the holder, the mutex, who took it
  recoveries        rcs with a recovery: the aborted holder's RECOVER record ..
                    its UP with PR_EABORTED (it restored the shared state and
                    handed the mutex to the requester, which waited meanwhile)
  boosts            the effective priority (PRIO records) above the base
                    (TASK_CREATE, PRIO_SET), one interval per value, with the
                    cause of the change that set it ("inherit" for pip, pcp
                    and rcs; "ceiling" for ipcp and npcs, lent from the lock on)
  marks             RELEASE, JOB_DONE; a deadline is the release plus the
                    task's deadline (default: its period), from the model
  misses            the job rows of the run (result.jobs, the lab's accounting,
                    which the report prints): each job with missed == 1, marked
                    at its absolute deadline. Not the MISS records: the kernel
                    writes one when it takes the tick at a deadline, and it never
                    takes the tick at the end of the run, so a job whose deadline
                    is the end (compute 12 in a period of 10, horizon 10) has none,
                    yet it missed, and the report says so. Every MISS record is
                    such a job, at its deadline, so the rows give MISS's marks
                    plus those at the end.
  refusals          the calls the kernel refused (priora.run.refusals: the DOWN and
                    UP records with an error; the report's warnings)
  waits             MSGQ_WAIT .. MSGQ_WAKE (a send waiting for room, a receive
                    for a message), EVENTS_WAIT that waits .. EVENTS_WAKE
                    (PR_ETIMEDOUT: a timeout): waits on queues and event flags
  services          SEND and RECEIVE ok (a message sent, received: the queue
                    and the message's priority), EVENTS_SET ok with arg0 1
                    (flags set), on the calling task's row; TIMER_EXPIRE on the
                    timer service's row. The same calls made in an interrupt
                    (task 0xFF) go to Timeline.interrupt_marks.
The timer service task (kernel task len(tasks), when the scenario has
timers) has a row of its own, named "timers", after the file's tasks.
Empty intervals are dropped: they mark a decision taken at one instant (a task
switched in and out again at once), not time spent; for the same reason, an
execution (or a boost at one value) that resumes at the instant it stopped
goes on as one interval. Intervals still open when the trace ends close at
the end of the run.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from priora.errors import NativeError
from priora.record import record
from priora.run import native, refusals
from priora.run.refusals import Refusal
from priora.run.simulate import SimResult
from priora.scenario.model import Scenario, Task


@record(frozen=True)
class Interval:
    """[start, end) in ns."""

    start: int
    end: int

    @property
    def duration(self) -> int:
        return self.end - self.start

    def in_unit(self, scenario: Scenario) -> tuple[float, float]:
        return scenario.to_unit(self.start), scenario.to_unit(self.end)


@record(frozen=True)
class CriticalSection(Interval):
    """The task holds mutex `resource`; `aborted` (rcs): a more urgent task
    took it over at `end`, and the work done inside is lost."""

    resource: str
    aborted: bool = False


@record(frozen=True)
class Blocked(Interval):
    """The task waits on semaphore `resource`; `timed_out`: the wait ended by
    its timeout. `ceiling` (pcp): it waited on the system ceiling (that
    value, set by a mutex `holder` held), `resource` being free or not."""

    resource: str
    timed_out: bool = False
    ceiling: int | None = None
    holder: str | None = None


@record(frozen=True)
class Recovery(Interval):
    """rcs with a recovery: the task, whose section on `resource` was
    aborted, restores the shared state at the priority of `waiter`, which
    waits for the mutex meanwhile."""

    resource: str
    waiter: str


@record(frozen=True)
class Boost(Interval):
    """The task's effective priority is `priority`, above its base; `cause`:
    why it took that value (native.CAUSE_NAME: "inherit", "ceiling", ...)."""

    priority: int
    cause: str = "inherit"


@record(frozen=True)
class Abort:
    """rcs: at `time` the task's section on `resource` was aborted, and `by` took the mutex."""

    time: int
    resource: str
    by: str

    def in_unit(self, scenario: Scenario) -> float:
        return scenario.to_unit(self.time)


@record(frozen=True)
class Mark:
    """An instant of job `job` (1, 2, ...): a release, deadline, miss or finish."""

    time: int
    job: int

    def in_unit(self, scenario: Scenario) -> float:
        return scenario.to_unit(self.time)


@record(frozen=True)
class PriorityChange:
    """A PRIO record: `cause` is one of native.CAUSE_NAME's names, `resource` the mutex
    through which the change came (None for cause "set")."""

    time: int
    old: int
    new: int
    cause: str
    resource: str | None


@record(frozen=True)
class Wait(Interval):
    """A wait on a message queue or event flags (not a semaphore: Blocked)."""

    object: str  # the queue or the event flags
    what: str  # "room" (a send), "message" (a receive) or "flags"
    timed_out: bool = False


@record(frozen=True)
class ServiceMark:
    """A message sent or received, flags set, a timer expiring."""

    time: int
    kind: str  # "send", "receive", "set" or "expire"
    object: str  # the queue, event flags or timer
    detail: int  # send, receive: the message's priority; set: the flags after; expire: the expiry tick


@record(frozen=True)
class TaskTimeline:
    task: int  # kernel id = index in the model
    name: str
    base_priority: int
    executions: tuple[Interval, ...]
    critical_sections: tuple[CriticalSection, ...]  # by start
    blocked: tuple[Blocked, ...]
    boosts: tuple[Boost, ...]
    priority_changes: tuple[PriorityChange, ...]
    aborts: tuple[Abort, ...]
    releases: tuple[Mark, ...]
    deadlines: tuple[Mark, ...]  # one per release of a task with a deadline
    misses: tuple[Mark, ...]  # at the job's deadline, as the report counts them
    finishes: tuple[Mark, ...]
    refusals: tuple[Refusal, ...] = ()  # calls the kernel refused, in time order
    recoveries: tuple[Recovery, ...] = ()  # rcs: by start
    services: tuple[ServiceMark, ...] = ()  # sends, receives, sets, timer expiries, in time order
    waits: tuple[Wait, ...] = ()  # on queues and event flags, by start

    def job_at(self, time: int) -> int:
        """The job a task runs at `time`: one more than those finished by then."""
        return 1 + sum(1 for f in self.finishes if f.time <= time)


@record(frozen=True)
class Timeline:
    scenario: Scenario
    end: int  # ns, where open intervals were closed
    tasks: tuple[TaskTimeline, ...]  # in kernel id order
    interrupt_marks: tuple[ServiceMark, ...] = ()  # sends and sets made in interrupts

    def by_urgency(self) -> list[TaskTimeline]:
        """Most urgent first (base priority; ties in kernel id order)."""
        return sorted(self.tasks, key=lambda t: (-t.base_priority, t.task))


def _objects(scenario: Scenario, models: list[Task]) -> tuple[Any, list[Any]]:
    """The run's objects for pr_lab_spans (and the C memory behind them)."""
    ffi = native.ffi
    base = np.array([t.priority for t in models], dtype=np.int32)
    rel = np.array(
        [
            scenario.ticks_to_ns(t.deadline or t.period or 0) if (t.deadline or t.period) else 0
            for t in models
        ],
        dtype=np.uint64,
    )
    is_mutex = np.array([r.kind == "mutex" for r in scenario.resources] + [False], dtype=np.uint8)
    objects = ffi.new("pr_lab_objects_t *")
    objects.ntasks = len(models)
    objects.base = ffi.cast("const int32_t *", ffi.from_buffer(base))
    objects.rel_deadline = ffi.cast("const uint64_t *", ffi.from_buffer(rel))
    objects.nsems = len(scenario.resources)
    objects.is_mutex = ffi.cast("const uint8_t *", ffi.from_buffer(is_mutex))
    objects.nqueues = len(scenario.queues)
    objects.nevents = len(scenario.events)
    objects.ntimers = len(scenario.timers)
    objects.timer_row = len(scenario.tasks)
    return objects, [base, rel, is_mutex]


def spans(result: SimResult, models: list[Task], end: int) -> np.ndarray[Any, np.dtype[np.void]]:
    """The spans of the run (native.SPAN_DTYPE rows), from the lab's C pass
    over its trace (lab/native/intervals.c)."""
    ffi, lib = native.ffi, native.lib()
    trace = result.trace
    objects, keep = _objects(result.scenario, models)
    records = ffi.cast("const pr_trace_record_t *", ffi.from_buffer(trace))
    bound = int(lib.pr_lab_spans_bound(records, len(trace), objects))
    out = np.zeros(bound, dtype=native.SPAN_DTYPE)
    count = lib.pr_lab_spans(
        records, len(trace), objects, end, ffi.cast("pr_lab_span_t *", ffi.from_buffer(out)), bound
    )
    del keep
    if count < 0:
        raise NativeError("the lab could not read the intervals of the kernel trace")
    return out[:count]


SPAN = native.SPAN_KIND
WHAT = ("room", "message", "flags")
SERVICE = ("send", "receive", "set", "expire")


class _Rows:
    """The spans of each row by kind, converted into the records."""

    def __init__(self, scenario: Scenario, models: list[Task]) -> None:
        self.scenario = scenario
        self.models = models
        self.rows: list[dict[int, list[Any]]] = [{k: [] for k in SPAN.values()} for _ in models]
        self.interrupt_marks: list[ServiceMark] = []

    def _task_name(self, i: int) -> str:
        return self.models[i].name if 0 <= i < len(self.models) else "?"

    def _resource(self, i: int) -> str:
        resources = self.scenario.resources
        return resources[i].name if i < len(resources) else f"S{i}"

    def _change_through(self, obj: int, msgq: int) -> str | None:
        names = self.scenario.queues if msgq else self.scenario.resources
        return names[obj].name if obj < len(names) else None

    def _service_object(self, kind: int, obj: int) -> str:
        s = self.scenario
        names = s.queues if kind < 2 else s.events if kind == 2 else s.timers
        return names[obj].name

    def add(self, row: tuple[int, int, int, int, int, int, int, int, int]) -> None:
        start, end, a, b, task, kind, obj, flag, cause = row
        item: Any
        if kind == SPAN["EXEC"]:
            item = Interval(start, end)
        elif kind == SPAN["HOLD"]:
            item = CriticalSection(start, end, self._resource(obj), bool(flag))
        elif kind == SPAN["BLOCKED"]:
            by = self.models[b].name if 0 <= b < len(self.models) else None
            item = Blocked(start, end, self._resource(obj), bool(flag), None if a < 0 else a, by)
        elif kind == SPAN["RECOVERY"]:
            item = Recovery(start, end, self._resource(obj), self._task_name(a))
        elif kind == SPAN["BOOST"]:
            item = Boost(start, end, a, native.CAUSE_NAME.get(cause, "?"))
        elif kind == SPAN["ABORT"]:
            item = Abort(start, self._resource(obj), self._task_name(a))
        elif kind == SPAN["CHANGE"]:
            item = PriorityChange(
                start, a, b, native.CAUSE_NAME.get(cause, "?"), self._change_through(obj, flag)
            )
        elif kind in (SPAN["RELEASE"], SPAN["DEADLINE"], SPAN["FINISH"]):
            item = Mark(start, a)
        elif kind == SPAN["WAIT"]:
            names = self.scenario.queues if flag < 2 else self.scenario.events
            item = Wait(start, end, names[obj].name, WHAT[flag], bool(b))
        else:
            item = ServiceMark(start, SERVICE[flag], self._service_object(flag, obj), a)
            if task < 0:
                self.interrupt_marks.append(item)
                return
        self.rows[task][kind].append(item)


def extract(result: SimResult) -> Timeline:
    """The timeline of every task of `result`, from its trace (the lab's C
    pass, lab/native/intervals.c; its misses from its job rows)."""
    scenario = result.scenario
    # The file's tasks, and the timer service task after them.
    models = list(scenario.tasks)
    if scenario.timers:
        models.append(Task("timers", scenario.system.timer_service_priority, None, 0, None, ()))
    last = int(result.trace["time"][-1]) if len(result.trace) else 0
    end = max(result.end_ns, last)
    rows = _Rows(scenario, models)
    for row in spans(result, models, end).tolist():
        rows.add(row)
    misses: list[list[Mark]] = [[] for _ in models]
    late = result.jobs[result.jobs["missed"] == 1]  # in release order: each task's in job order
    for task, job, deadline in zip(*(late[k].tolist() for k in ("task", "job", "deadline")), strict=True):
        misses[task].append(Mark(deadline, job))
    refused = refusals.find(result)
    tasks = []
    for i, model in enumerate(models):
        got = rows.rows[i]
        tasks.append(
            TaskTimeline(
                task=i,
                name=model.name,
                base_priority=model.priority,
                executions=tuple(got[SPAN["EXEC"]]),
                critical_sections=tuple(sorted(got[SPAN["HOLD"]], key=lambda c: (c.start, -c.end))),
                blocked=tuple(got[SPAN["BLOCKED"]]),
                boosts=tuple(got[SPAN["BOOST"]]),
                priority_changes=tuple(got[SPAN["CHANGE"]]),
                aborts=tuple(got[SPAN["ABORT"]]),
                releases=tuple(got[SPAN["RELEASE"]]),
                deadlines=tuple(got[SPAN["DEADLINE"]]),
                misses=tuple(misses[i]),
                finishes=tuple(got[SPAN["FINISH"]]),
                refusals=tuple(f for f in refused if f.task == i),
                recoveries=tuple(sorted(got[SPAN["RECOVERY"]], key=lambda c: c.start)),
                services=tuple(got[SPAN["SERVICE"]]),
                waits=tuple(got[SPAN["WAIT"]]),
            )
        )
    return Timeline(scenario, end, tuple(tasks), tuple(rows.interrupt_marks))

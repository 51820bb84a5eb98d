"""What each task did over time, read from a run's kernel trace: the intervals
and instants that the pictures (priora.gantt) and the trace export
(priora.chrome_trace) draw.

Pure Python, one pass over the records in order; speed does not matter here
(a picture shows a few hundred ticks), exactness does. Every time is the
kernel's, in ns; `Interval.in_unit` and `Mark.in_unit` convert to the file's
time unit with `Scenario.to_unit`.

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
  refusals          the calls the kernel refused (priora.refusals: the DOWN and
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

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from priora import native, refusals
from priora.model import Scenario, Task
from priora.refusals import Refusal
from priora.simulate import SimResult

EV = native.EVENT


@dataclass(frozen=True)
class Interval:
    """[start, end) in ns."""

    start: int
    end: int

    @property
    def duration(self) -> int:
        return self.end - self.start

    def in_unit(self, scenario: Scenario) -> tuple[float, float]:
        return scenario.to_unit(self.start), scenario.to_unit(self.end)


@dataclass(frozen=True)
class CriticalSection(Interval):
    """The task holds mutex `resource`; `aborted` (rcs): a more urgent task
    took it over at `end`, and the work done inside is lost."""

    resource: str
    aborted: bool = False


@dataclass(frozen=True)
class Blocked(Interval):
    """The task waits on semaphore `resource`; `timed_out`: the wait ended by
    its timeout. `ceiling` (pcp): it waited on the system ceiling (that
    value, set by a mutex `holder` held), `resource` being free or not."""

    resource: str
    timed_out: bool = False
    ceiling: int | None = None
    holder: str | None = None


@dataclass(frozen=True)
class Recovery(Interval):
    """rcs with a recovery: the task, whose section on `resource` was
    aborted, restores the shared state at the priority of `waiter`, which
    waits for the mutex meanwhile."""

    resource: str
    waiter: str


@dataclass(frozen=True)
class Boost(Interval):
    """The task's effective priority is `priority`, above its base; `cause`:
    why it took that value (native.CAUSE_NAME: "inherit", "ceiling", ...)."""

    priority: int
    cause: str = "inherit"


@dataclass(frozen=True)
class Abort:
    """rcs: at `time` the task's section on `resource` was aborted, and `by` took the mutex."""

    time: int
    resource: str
    by: str

    def in_unit(self, scenario: Scenario) -> float:
        return scenario.to_unit(self.time)


@dataclass(frozen=True)
class Mark:
    """An instant of job `job` (1, 2, ...): a release, deadline, miss or finish."""

    time: int
    job: int

    def in_unit(self, scenario: Scenario) -> float:
        return scenario.to_unit(self.time)


@dataclass(frozen=True)
class PriorityChange:
    """A PRIO record: `cause` is one of native.CAUSE_NAME's names, `resource` the mutex
    through which the change came (None for cause "set")."""

    time: int
    old: int
    new: int
    cause: str
    resource: str | None


@dataclass(frozen=True)
class Wait(Interval):
    """A wait on a message queue or event flags (not a semaphore: Blocked)."""

    object: str  # the queue or the event flags
    what: str  # "room" (a send), "message" (a receive) or "flags"
    timed_out: bool = False


@dataclass(frozen=True)
class ServiceMark:
    """A message sent or received, flags set, a timer expiring."""

    time: int
    kind: str  # "send", "receive", "set" or "expire"
    object: str  # the queue, event flags or timer
    detail: int  # send, receive: the message's priority; set: the flags after; expire: the expiry tick


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Timeline:
    scenario: Scenario
    end: int  # ns, where open intervals were closed
    tasks: tuple[TaskTimeline, ...]  # in kernel id order
    interrupt_marks: tuple[ServiceMark, ...] = ()  # sends and sets made in interrupts

    def by_urgency(self) -> list[TaskTimeline]:
        """Most urgent first (base priority; ties in kernel id order)."""
        return sorted(self.tasks, key=lambda t: (-t.base_priority, t.task))


@dataclass
class _Task:
    """What is being built for one task, and what is still open."""

    base: int
    effective: int
    executions: list[Interval] = field(default_factory=list)
    critical_sections: list[CriticalSection] = field(default_factory=list)
    blocked: list[Blocked] = field(default_factory=list)
    boosts: list[Boost] = field(default_factory=list)
    changes: list[PriorityChange] = field(default_factory=list)
    aborts: list[Abort] = field(default_factory=list)
    recoveries: list[Recovery] = field(default_factory=list)
    releases: list[Mark] = field(default_factory=list)
    deadlines: list[Mark] = field(default_factory=list)
    misses: list[Mark] = field(default_factory=list)
    finishes: list[Mark] = field(default_factory=list)
    running_since: int | None = None
    holding: dict[int, int] = field(default_factory=dict)  # mutex -> since
    recovering: dict[int, tuple[int, str]] = field(default_factory=dict)  # mutex -> (since, waiter)
    blocked_on: tuple[int, int] | None = None  # (semaphore, since)
    blocked_ceiling: tuple[int, int] | None = None  # pcp: (ceiling, holder) of the current wait
    boosted_since: int | None = None
    boost_cause: str = "inherit"
    services: list[ServiceMark] = field(default_factory=list)
    waits: list[Wait] = field(default_factory=list)
    waiting: tuple[str, str, int] | None = None  # (object, what, since) of the current wait


class _Builder:
    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        # The file's tasks, and the timer service task after them.
        self.models = list(scenario.tasks)
        if scenario.timers:
            service = scenario.system.timer_service_priority
            self.models.append(Task("timers", service, None, 0, None, ()))
        self.tasks = [_Task(t.priority, t.priority) for t in self.models]
        self.interrupt_marks: list[ServiceMark] = []
        self.running: int | None = None
        self.handlers = {
            EV["TASK_CREATE"]: self._create,
            EV["TASK_DELETE"]: self._delete,
            EV["RELEASE"]: self._release,
            EV["SWITCH"]: self._switch,
            EV["BLOCK"]: self._block,
            EV["WAKE"]: self._wake,
            EV["PRIO"]: self._prio,
            EV["PRIO_SET"]: self._prio_set,
            EV["JOB_DONE"]: self._job_done,
            EV["DOWN"]: self._down,
            EV["UP"]: self._up,
            EV["ABORT"]: self._abort,
            EV["RECOVER"]: self._recover,
            EV["CEILING"]: self._ceiling,
            EV["SEND"]: self._message,
            EV["RECEIVE"]: self._message,
            EV["EVENTS_SET"]: self._set,
            EV["TIMER_EXPIRE"]: self._expire,
            EV["MSGQ_WAIT"]: self._wait,
            EV["EVENTS_WAIT"]: self._wait,
            EV["MSGQ_WAKE"]: self._woken,
            EV["EVENTS_WAKE"]: self._woken,
        }

    # ---- helpers ----

    def _name(self, sem: int) -> str:
        return self.scenario.resources[sem].name

    def _is_mutex(self, sem: int) -> bool:
        return sem < len(self.scenario.resources) and self.scenario.resources[sem].kind == "mutex"

    def _task(self, r: Any) -> _Task | None:
        tid = native.task_id(r)
        return self.tasks[tid] if 0 <= tid < len(self.tasks) else None

    def _end_boost(self, t: _Task, now: int) -> None:
        if t.boosted_since is not None and now > t.boosted_since:
            boost = Boost(t.boosted_since, now, t.effective, t.boost_cause)
            last = t.boosts[-1] if t.boosts else None
            # A value left and taken back at one instant is one boost.
            if last is not None and last.end == boost.start and last.priority == boost.priority:
                t.boosts[-1] = Boost(last.start, now, last.priority, last.cause)
            else:
                t.boosts.append(boost)
        t.boosted_since = None

    def _start_boost(self, t: _Task, now: int, cause: str | None = None) -> None:
        # Called after every change of the base or the effective priority;
        # a change of the base alone keeps the cause of the boost.
        if cause is not None:
            t.boost_cause = cause
        if t.effective > t.base:
            t.boosted_since = now

    def _end_hold(self, t: _Task, sem: int, now: int, aborted: bool = False) -> None:
        since = t.holding.pop(sem)
        if now > since:
            t.critical_sections.append(CriticalSection(since, now, self._name(sem), aborted))

    def _end_recovery(self, t: _Task, sem: int, now: int) -> None:
        since, waiter = t.recovering.pop(sem)
        if now > since:
            t.recoveries.append(Recovery(since, now, self._name(sem), waiter))

    def _end_block(self, t: _Task, now: int, timed_out: bool) -> None:
        ceiling = t.blocked_ceiling
        t.blocked_ceiling = None
        if t.blocked_on is None:
            return
        sem, since = t.blocked_on
        t.blocked_on = None
        if now > since:
            value, holder = ceiling if ceiling is not None else (None, None)
            by = self.models[holder].name if holder is not None and 0 <= holder < len(self.tasks) else None
            t.blocked.append(Blocked(since, now, self._name(sem), timed_out, value, by))

    def _end_run(self, now: int) -> None:
        if self.running is None:
            return
        t = self.tasks[self.running]
        if t.running_since is not None and now > t.running_since:
            last = t.executions[-1] if t.executions else None
            # Switched out and back in at one instant (another task ran for
            # no time): one interval, as it looks.
            if last is not None and last.end == t.running_since:
                t.executions[-1] = Interval(last.start, now)
            else:
                t.executions.append(Interval(t.running_since, now))
        t.running_since = None
        self.running = None

    # ---- one handler per event ----

    def _create(self, r: Any, now: int) -> None:
        t = self._task(r)
        if t is not None:
            t.base = t.effective = int(r["arg0"])

    def _delete(self, r: Any, now: int) -> None:
        t = self._task(r)
        if t is None:
            return
        for sem in list(t.holding):
            self._end_hold(t, sem, now)
        for sem in list(t.recovering):
            self._end_recovery(t, sem, now)
        self._end_block(t, now, timed_out=False)
        self._end_wait(t, now, timed_out=False)
        self._end_boost(t, now)

    def _release(self, r: Any, now: int) -> None:
        tid = native.task_id(r)
        t = self.tasks[tid]
        job = int(r["value"])
        t.releases.append(Mark(now, job))
        model = self.models[tid]
        relative = model.deadline or model.period
        if relative:
            # As the job accounting (lab/native/metrics.c) computes it, so
            # that the picture and the report agree.
            t.deadlines.append(Mark(now + self.scenario.ticks_to_ns(relative), job))

    def _switch(self, r: Any, now: int) -> None:
        self._end_run(now)
        tid = native.task_id(r)
        if tid >= 0:
            self.running = tid
            self.tasks[tid].running_since = now

    def _block(self, r: Any, now: int) -> None:
        t = self._task(r)
        if t is not None:
            t.blocked_on = (int(r["object"]), now)
            t.blocked_ceiling = None

    def _ceiling(self, r: Any, now: int) -> None:
        # pcp: right after its BLOCK, the wait is on the system ceiling.
        t = self._task(r)
        if t is not None:
            t.blocked_ceiling = (int(r["arg0"]), native.task_id(r, "arg1"))

    def _wake(self, r: Any, now: int) -> None:
        t = self._task(r)
        if t is None:
            return
        result = int(r["result"])
        self._end_block(t, now, timed_out=result == native.PR_ETIMEDOUT)
        sem = int(r["object"])
        if result == native.PR_OK and self._is_mutex(sem):
            # Handed over: the WAKE comes before the releaser's UP, so holds
            # are kept per task, never as one holder per mutex. (PR_EAGAIN:
            # woken to try again, it holds nothing yet.)
            t.holding[sem] = now

    def _down(self, r: Any, now: int) -> None:
        t = self._task(r)
        sem = int(r["object"])
        # Taken in the call, unless a WAKE handed it over already.
        if (
            t is not None
            and int(r["result"]) == native.PR_OK
            and self._is_mutex(sem)
            and sem not in t.holding
        ):
            t.holding[sem] = now

    def _up(self, r: Any, now: int) -> None:
        t = self._task(r)
        sem = int(r["object"])
        if t is not None and int(r["result"]) == native.PR_OK and sem in t.holding:
            self._end_hold(t, sem, now)
        if t is not None and int(r["result"]) == native.PR_EABORTED and sem in t.recovering:
            self._end_recovery(t, sem, now)  # restored, and handed over

    def _abort(self, r: Any, now: int) -> None:
        t = self._task(r)
        sem = int(r["object"])
        if t is None or not self._is_mutex(sem):
            return
        if sem in t.holding:
            self._end_hold(t, sem, now, aborted=True)
        by = native.task_id(r, "arg0")
        name = self.models[by].name if 0 <= by < len(self.tasks) else "?"
        t.aborts.append(Abort(now, self._name(sem), name))

    def _recover(self, r: Any, now: int) -> None:
        t = self._task(r)
        sem = int(r["object"])
        if t is None or not self._is_mutex(sem):
            return
        waiter = native.task_id(r, "arg0")
        name = self.models[waiter].name if 0 <= waiter < len(self.tasks) else "?"
        t.recovering[sem] = (now, name)

    def _service(self, r: Any, mark: ServiceMark) -> None:
        t = self._task(r)
        if t is not None:
            t.services.append(mark)
        elif native.task_id(r) < 0:
            self.interrupt_marks.append(mark)

    def _message(self, r: Any, now: int) -> None:
        queue = int(r["object"])
        if int(r["result"]) == native.PR_OK and queue < len(self.scenario.queues):
            kind = "send" if int(r["event"]) == EV["SEND"] else "receive"
            self._service(r, ServiceMark(now, kind, self.scenario.queues[queue].name, int(r["arg0"])))

    def _set(self, r: Any, now: int) -> None:
        events = int(r["object"])
        if int(r["result"]) == native.PR_OK and int(r["arg0"]) == 1 and events < len(self.scenario.events):
            flags = int(r["value"]) & 0xFFFFFFFF
            self._service(r, ServiceMark(now, "set", self.scenario.events[events].name, flags))

    def _expire(self, r: Any, now: int) -> None:
        timer = int(r["object"])
        if self.scenario.timers and timer < len(self.scenario.timers):
            mark = ServiceMark(now, "expire", self.scenario.timers[timer].name, int(r["value"]) & 0xFFFFFFFF)
            self.tasks[len(self.scenario.tasks)].services.append(mark)

    def _wait(self, r: Any, now: int) -> None:
        t = self._task(r)
        index = int(r["object"])
        if int(r["event"]) == EV["MSGQ_WAIT"]:
            names = [q.name for q in self.scenario.queues]
            what = "room" if int(r["arg0"]) == 1 else "message"
        elif int(r["arg1"]) == 1:  # EVENTS_WAIT that waits
            names, what = [e.name for e in self.scenario.events], "flags"
        else:
            return
        if t is not None and index < len(names):
            t.waiting = (names[index], what, now)

    def _end_wait(self, t: _Task, now: int, timed_out: bool) -> None:
        if t.waiting is None:
            return
        name, what, since = t.waiting
        t.waiting = None
        if now > since:
            t.waits.append(Wait(since, now, name, what, timed_out))

    def _woken(self, r: Any, now: int) -> None:
        t = self._task(r)
        if t is not None:
            self._end_wait(t, now, timed_out=int(r["result"]) == native.PR_ETIMEDOUT)

    def _prio(self, r: Any, now: int) -> None:
        t = self._task(r)
        if t is None:
            return
        sem = int(r["object"])
        cause = native.CAUSE_NAME.get(int(r["value"]) & 0xFF, "?")
        if (int(r["value"]) >> 8) & 0xFF == native.PR_OBJ_MSGQ:  # lent through a message queue
            queues = self.scenario.queues
            resource = queues[sem].name if sem < len(queues) else None
        else:
            resource = self._name(sem) if sem < len(self.scenario.resources) else None
        old, new = int(r["arg0"]), int(r["arg1"])
        t.changes.append(PriorityChange(now, old, new, cause, resource))
        self._end_boost(t, now)
        t.effective = new
        self._start_boost(t, now, cause)

    def _prio_set(self, r: Any, now: int) -> None:
        t = self._task(r)
        if t is None or int(r["result"]) != native.PR_OK:
            return
        self._end_boost(t, now)
        t.base = int(r["arg1"])
        self._start_boost(t, now)

    def _job_done(self, r: Any, now: int) -> None:
        t = self._task(r)
        if t is not None:
            t.finishes.append(Mark(now, int(r["value"])))

    # ---- the pass ----

    def feed(self, r: Any) -> None:
        handler = self.handlers.get(int(r["event"]))
        if handler is not None:
            handler(r, int(r["time"]))

    def close(self, end: int) -> None:
        self._end_run(end)
        for t in self.tasks:
            for sem in list(t.holding):
                self._end_hold(t, sem, end)
            for sem in list(t.recovering):
                self._end_recovery(t, sem, end)
            self._end_block(t, end, timed_out=False)
            self._end_wait(t, end, timed_out=False)
            self._end_boost(t, end)

    def missed(self, jobs: np.ndarray[Any, Any]) -> None:
        """The misses, from the job rows (in release order, so each task's
        are in job order)."""
        late = jobs[jobs["missed"] == 1]
        for task, job, deadline in zip(*(late[k].tolist() for k in ("task", "job", "deadline")), strict=True):
            self.tasks[task].misses.append(Mark(deadline, job))

    def result(self, end: int, refused: tuple[Refusal, ...]) -> Timeline:
        tasks = []
        for i, (t, model) in enumerate(zip(self.tasks, self.models, strict=True)):
            tasks.append(
                TaskTimeline(
                    task=i,
                    name=model.name,
                    base_priority=model.priority,
                    executions=tuple(t.executions),
                    critical_sections=tuple(sorted(t.critical_sections, key=lambda c: (c.start, -c.end))),
                    blocked=tuple(t.blocked),
                    boosts=tuple(t.boosts),
                    priority_changes=tuple(t.changes),
                    aborts=tuple(t.aborts),
                    releases=tuple(t.releases),
                    deadlines=tuple(t.deadlines),
                    misses=tuple(t.misses),
                    finishes=tuple(t.finishes),
                    refusals=tuple(f for f in refused if f.task == i),
                    recoveries=tuple(sorted(t.recoveries, key=lambda c: c.start)),
                    services=tuple(t.services),
                    waits=tuple(t.waits),
                )
            )
        return Timeline(self.scenario, end, tuple(tasks), tuple(self.interrupt_marks))


def extract(result: SimResult) -> Timeline:
    """The timeline of every task of `result`, from its trace (its misses
    from its job rows)."""
    builder = _Builder(result.scenario)
    for record in result.trace:
        builder.feed(record)
    builder.missed(result.jobs)
    last = int(result.trace["time"][-1]) if len(result.trace) else 0
    end = max(result.end_ns, last)
    builder.close(end)
    return builder.result(end, refusals.find(result))

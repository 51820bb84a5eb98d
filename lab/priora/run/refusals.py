"""The calls the kernel refused inside a scenario, read from a run's trace:
who, in which job, when, at which action of the body, with which error, and
why, from the state of the kernel at that instant.

A refusal is a DOWN or UP record of a task whose result is an error other
than a timeout (PR_ETIMEDOUT, PR_EAGAIN: the `timeouts` of the report) or
the PR_EABORTED of an unlock (rcs: a restart, counted in `aborts`): exactly
the calls the job accounting counts in `errors` (lab/native/metrics.c).

The record does not say which action made the call. `_follow` walks the body
as the scenario interpreter does (kernel/scenario/interp.c), one kernel call
at a time, and each DOWN or UP record of the task is matched with the action
the interpreter runs next: a refused lock skips its section (where an unlock
of a mutex held from before may still be called), an unlock that reports an
abort restarts its section. A record that does not match puts the task out
of step until its job ends; its refusals then have no action (never seen on
the examples and the random sets of tests/lab/test_refusals.py).

The cause is read from the trace's state at the refusal: who holds each
mutex (DOWN ok, WAKE ok: handed over, UP ok, ABORT unless the aborted holder
then recovers: RECOVER), who waits for which
(BLOCK, CEILING for pcp's system ceiling, until WAKE or DOWN), the tasks'
base priorities (TASK_CREATE, PRIO_SET). For PR_EDEADLK it is the cycle:
from the mutex asked for, its holder, the mutex that holder waits for, its
holder, ..., back to the caller.
"""

from __future__ import annotations

from collections.abc import Generator

from priora.record import record, replace
from priora.run import native
from priora.run.simulate import SimResult
from priora.scenario.model import Action, Scenario, in_unit

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from typing import Any

    import numpy as np

EV = native.EVENT
CALLS = (EV["DOWN"], EV["UP"])
# Not refusals: the waits that end without the unit (the `timeouts` of the
# report); an unlock's PR_EABORTED is an rcs restart, not an error.
NOT_REFUSED = (native.PR_OK, native.PR_ETIMEDOUT, native.PR_EAGAIN)
# Error codes (kernel/include/priora/errors.h) whose cause is said below
# (priora.run.native's, checked against the library at load).
PR_EPERM = native.PR_EPERM
PR_EHELD = native.PR_EHELD
PR_EDEADLK = native.PR_EDEADLK
PR_EOVERFLOW = native.PR_EOVERFLOW
# The records the state at a refusal is read from.
STATE_EVENTS = tuple(
    EV[name]
    for name in ("TASK_CREATE", "TASK_DELETE", "PRIO_SET", "BLOCK", "CEILING", "WAKE", "ABORT", "RECOVER",
                 "JOB_DONE", "DOWN", "UP")
)  # fmt: skip


@record(frozen=True)
class Link:
    """One step of a cycle of waits: `task` waits for `mutex`, held by
    `holder`; `by_ceiling` (pcp): the wait is on the system ceiling, which
    `mutex` sets (the mutex asked for may be free)."""

    task: str
    mutex: str
    holder: str
    by_ceiling: bool = False


@record(frozen=True)
class Refusal:
    """One call the kernel refused, at `time` (ns). `action` is the index in
    the task's body (None: the task's calls could not be followed), and
    `skipped` the actions the job skips after a refused lock (first, last)."""

    time: int
    task: int  # kernel id = index in the model
    task_name: str
    job: int
    action: int | None
    action_text: str  # the action as the file writes it; else the call refused ("lock B")
    call: str  # "lock", "unlock", "down" or "up": what the kernel refused
    resource: str
    error: str  # "PR_EDEADLK", ...
    cause: str
    cycle: tuple[Link, ...] = ()  # PR_EDEADLK: the waits that lead back to the task
    base_priority: int | None = None  # PR_ECEILING: the task's base priority
    ceiling: int | None = None  # PR_ECEILING: the mutex's ceiling
    skipped: tuple[int, int] | None = None

    def in_unit(self, scenario: Scenario) -> float:
        return scenario.to_unit(self.time)

    def cycle_list(self) -> list[dict[str, Any]] | None:
        """The cycle as JSON values (the report's warnings, the trace's
        args); None for an error other than PR_EDEADLK."""
        if self.error != "PR_EDEADLK":
            return None
        return [
            {"task": link.task, "mutex": link.mutex, "holder": link.holder, "by_ceiling": link.by_ceiling}
            for link in self.cycle
        ]


def refused_mask(trace: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The records of a trace array that are refusals (the rule of the
    module's docstring, lab/native/trace_scan.c)."""
    import numpy as np

    mask = np.zeros(len(trace), dtype=np.uint8)
    ffi = native.ffi
    native.lib().pr_lab_refusals(
        ffi.cast("const pr_trace_record_t *", ffi.from_buffer(trace)), len(trace), ffi.from_buffer(mask)
    )
    return mask.view(np.bool_)


def find(result: SimResult) -> tuple[Refusal, ...]:
    """Every refusal of `result`, in trace order. A run without one costs one
    pass in C over its trace; a run with some is read in Python up to the last."""
    end = native.refusals_end(result.trace_records, result.record_count)
    if end == 0:
        return ()
    return _read(result, refused_mask(result.trace), end)[0]


def unfollowed_calls(result: SimResult) -> int:
    """The DOWN and UP records of the whole run that matched no action of
    their task's body (0 when the interpreter was followed throughout)."""
    return _read(result, refused_mask(result.trace), len(result.trace))[1]


def _read(result: SimResult, refused: np.ndarray[Any, Any], end: int) -> tuple[tuple[Refusal, ...], int]:
    """The refusals among the first `end` records, and the calls not followed."""
    import numpy as np

    trace = result.trace
    rows = np.flatnonzero(np.isin(trace["event"][:end], STATE_EVENTS))
    picked = trace[rows]
    names = ("time", "event", "task", "object", "result", "arg0", "arg1", "value")
    columns = [picked[n].tolist() for n in names]
    # Task ids decoded (12-bit tags beyond 254 tasks): the subject, and a
    # CEILING's holder in arg1 (elsewhere arg1 is no task).
    columns[2] = native.task_ids(picked).tolist()
    columns[6] = np.where(
        picked["event"] == EV["CEILING"], native.task_ids(picked, "arg1"), picked["arg1"]
    ).tolist()
    flags = refused[rows].tolist()
    state = _State(result.scenario)
    found: list[Refusal] = []
    for row, is_refusal in zip(zip(*columns, strict=True), flags, strict=True):
        refusal = state.feed(_Record(*row), is_refusal)
        if refusal is not None:
            found.append(refusal)
    return tuple(found), state.unfollowed


# ---------------------------------------------------------------- the body, as the interpreter runs it


@record(frozen=True)
class _Record:
    time: int
    event: int
    task: int
    object: int
    result: int
    arg0: int
    arg1: int
    value: int


@record(frozen=True)
class _Expect:
    """The next call the interpreter makes: at body[`action`], `event` on
    semaphore `sem`. `optional`: it may not be made (an unlock of a mutex
    the task no longer holds, in a skipped range or a restart). `event` None:
    the job's end (its JOB_DONE)."""

    action: int
    event: int | None
    sem: int
    optional: bool = False


_Follower = Generator[_Expect, "_Record | None", None]
_Restart = Generator[_Expect, "_Record | None", int]


def _matching_unlock(body: tuple[Action, ...], lock: int) -> int:
    """interp.c's matching_unlock: the next unlock of the same mutex."""
    for i in range(lock + 1, len(body)):
        if body[i].kind == "unlock" and body[i].resource == body[lock].resource:
            return i
    return len(body)


def _follow(body: tuple[Action, ...], sem_of: dict[str, int]) -> _Follower:
    """One job of interp.c's pr_script_body, as a coroutine: it yields each
    call the interpreter would make next and is sent the record of that call
    (None: an optional call that was not made)."""
    skipped: set[int] = set()  # sections this job skips in full (interp.c's skipped[])
    i = 0
    while i < len(body):
        a = body[i]
        sem = sem_of.get(a.resource, -1) if a.resource is not None else -1
        if a.kind not in ("lock", "unlock", "down", "up"):  # no DOWN or UP record
            i += 1
        elif a.kind == "lock":
            done = yield _Expect(i, EV["DOWN"], sem)
            if done is not None and done.result != native.PR_OK:
                end = _matching_unlock(body, i)
                for k in range(i + 1, end):  # skip_section
                    b = body[k]
                    s = sem_of.get(b.resource, -1) if b.resource is not None else -1
                    if b.kind == "lock":
                        skipped.add(s)
                    elif b.kind == "unlock" and s in skipped:
                        skipped.discard(s)
                    elif b.kind == "unlock":  # held from before: unlocked now, if still held
                        yield _Expect(k, EV["UP"], s, optional=True)
                i = end
            i += 1
        elif a.kind == "unlock" and sem in skipped:
            skipped.discard(sem)
            i += 1
        elif a.kind == "unlock":
            done = yield _Expect(i, EV["UP"], sem)
            if done is not None and done.result == native.PR_EABORTED:
                i = yield from _restart(body, sem_of, i, skipped)
            else:
                i += 1
        else:  # down, up
            yield _Expect(i, EV["DOWN"] if a.kind == "down" else EV["UP"], sem)
            i += 1
    yield _Expect(len(body), None, -1)


def _restart(body: tuple[Action, ...], sem_of: dict[str, int], u: int, skipped: set[int]) -> _Restart:
    """interp.c's restart_section: the sections opened since the aborted
    section's lock and still held are unlocked, in semaphore order; returns
    the index of that lock, where the job goes on."""
    sem = sem_of[body[u].resource or ""]
    lock = u
    while lock > 0 and not (body[lock].kind == "lock" and sem_of.get(body[lock].resource or "") == sem):
        lock -= 1
    opened: set[int] = set()
    for k in range(lock + 1, u):
        b = body[k]
        s = sem_of[b.resource] if b.resource is not None else -1
        if b.kind == "lock":
            opened.add(s)
        elif b.kind == "unlock" and s in opened:
            opened.discard(s)
        elif b.kind == "unlock":
            skipped.add(s)
    for s in sorted(opened):
        yield _Expect(u, EV["UP"], s, optional=True)
    return lock


class _Cursor:
    """Where one task is in its body, record by record."""

    def __init__(self, body: tuple[Action, ...], sem_of: dict[str, int]) -> None:
        self.body = body
        self.sem_of = sem_of
        self._start()

    def _start(self) -> None:
        self.follower = _follow(self.body, self.sem_of)
        self.expect: _Expect | None = next(self.follower)
        self.lost = False

    def _send(self, record: _Record | None) -> None:
        try:
            self.expect = self.follower.send(record)
        except StopIteration:  # unreachable: the job's end is the last expectation
            self.expect, self.lost = None, True

    def call(self, r: _Record) -> int | None:
        """The action that made the call `r` (a DOWN or UP record of the task)."""
        while not self.lost and self.expect is not None:
            e = self.expect
            if e.event == r.event and e.sem == r.object:
                self._send(r)
                return e.action
            if not e.optional:
                break
            self._send(None)
        self.lost = True
        return None

    def job_done(self) -> None:
        """The job ended: the next one starts at the first action."""
        self._start()


# ---------------------------------------------------------------- the state at a refusal


@record
class _Wait:
    sem: int  # the mutex asked for
    ceiling_mutex: int | None = None  # pcp: the mutex that sets the system ceiling
    ceiling_holder: int | None = None


class _State:
    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.sem_of = {r.name: i for i, r in enumerate(scenario.resources)}
        self.base = [t.priority for t in scenario.tasks]
        self.jobs_done = [0] * len(scenario.tasks)
        self.holder: dict[int, int] = {}  # mutex -> the task that holds it
        self.waits: dict[int, _Wait] = {}  # task -> what it waits for
        self.cursors = [_Cursor(t.body, self.sem_of) for t in scenario.tasks]
        self.unfollowed = 0  # calls whose action is unknown

    def _task(self, tid: int) -> str:
        return self.scenario.tasks[tid].name if 0 <= tid < len(self.scenario.tasks) else f"T{tid}"

    def _sem(self, sid: int) -> str:
        return self.scenario.resources[sid].name if 0 <= sid < len(self.scenario.resources) else f"S{sid}"

    def _is_mutex(self, sid: int) -> bool:
        return 0 <= sid < len(self.scenario.resources) and self.scenario.resources[sid].kind == "mutex"

    def feed(self, r: _Record, refused: bool) -> Refusal | None:
        """Takes one record into the state; returns the refusal it is, if any
        (built from the state before the record)."""
        tid = r.task
        known = 0 <= tid < len(self.cursors)
        refusal = None
        if r.event in CALLS and known:
            action = self.cursors[tid].call(r)
            self.unfollowed += action is None
            if refused:
                refusal = self._refusal(r, action)
        if r.event == EV["TASK_CREATE"] and known:
            self.base[tid] = r.arg0
        elif r.event == EV["PRIO_SET"] and known and r.result == native.PR_OK:
            self.base[tid] = r.arg1
        elif r.event == EV["BLOCK"]:
            self.waits[tid] = _Wait(r.object)
        elif r.event == EV["CEILING"] and tid in self.waits:
            self.waits[tid] = _Wait(r.object, r.value, r.arg1)
        elif r.event in (EV["WAKE"], EV["TASK_DELETE"]):
            self.waits.pop(tid, None)
            if r.event == EV["WAKE"] and r.result == native.PR_OK and self._is_mutex(r.object):
                self.holder[r.object] = tid  # handed over: the releaser's UP follows
        elif r.event == EV["ABORT"] and self.holder.get(r.object) == tid:
            del self.holder[r.object]  # the new holder's DOWN follows, or this RECOVER
        elif r.event == EV["RECOVER"] and r.object not in self.holder:
            self.holder[r.object] = tid  # it kept the mutex to recover, until a WAKE hands it over
        elif r.event == EV["DOWN"]:
            self.waits.pop(tid, None)
            if r.result == native.PR_OK and self._is_mutex(r.object):
                self.holder[r.object] = tid
        elif r.event == EV["UP"] and r.result == native.PR_OK and self.holder.get(r.object) == tid:
            del self.holder[r.object]
        elif r.event == EV["JOB_DONE"] and known:
            self.jobs_done[tid] = r.value  # the jobs it has completed, this one included
            self.cursors[tid].job_done()
        return refusal

    def _refusal(self, r: _Record, action: int | None) -> Refusal:
        tid, sid = r.task, r.object
        body = self.scenario.tasks[tid].body
        error = native.errname(r.result)
        resource = self._sem(sid)
        is_down = r.event == EV["DOWN"]
        call = ("lock" if is_down else "unlock") if self._is_mutex(sid) else ("down" if is_down else "up")
        refusal = Refusal(
            time=r.time,
            task=tid,
            task_name=self._task(tid),
            job=self.jobs_done[tid] + 1,
            action=action,
            action_text=action_text(self.scenario, body[action])
            if action is not None
            else f"{call} {resource}",
            call=call,
            resource=resource,
            error=error,
            cause="",
        )
        if action is not None and call == "lock" and body[action].kind == "lock":
            refusal = replace(refusal, skipped=(action + 1, _matching_unlock(body, action)))
        return self._cause(refusal, r)

    def _cause(self, f: Refusal, r: _Record) -> Refusal:
        tid, sid = r.task, r.object
        me = f.task_name
        if r.result == PR_EDEADLK:
            cycle = self._cycle(tid, sid)
            return replace(f, cause=_cycle_text(cycle, me), cycle=cycle)
        if r.result == native.PR_ECEILING:
            res = self.scenario.resources[sid]
            ceiling = self.scenario.kernel_ceiling(res.name)
            base = self.base[tid]
            cause = (
                f"{me}'s base priority {base} is above the ceiling {ceiling} of {res.name} ({res.protocol})"
            )
            return replace(f, cause=cause, base_priority=base, ceiling=ceiling)
        holder = self.holder.get(sid)
        reasons = {
            PR_EHELD: f"{me} holds {f.resource} already (scenario mutexes are not recursive)",
            PR_EPERM: f"{me} does not hold {f.resource}"
            + (f" ({self._task(holder)} does)" if holder is not None else ""),
            PR_EOVERFLOW: f"{f.resource} is at its max already ({r.value})",
            native.PR_EABORTED: f"{me}'s section on {f.resource} was aborted by a more urgent task (rcs)",
        }
        return replace(f, cause=reasons.get(r.result, f"the kernel refused {f.call} {f.resource}"))

    def _cycle(self, tid: int, sid: int) -> tuple[Link, ...]:
        """The waits from `tid`'s lock of `sid` back to `tid`, as the kernel
        walked them (its holder chain): each holder, the mutex it waits for
        or, pcp, the mutex that sets the system ceiling it waits on. Empty
        when the trace's state does not close the cycle."""
        step = self._first_wait(tid, sid)
        links: list[Link] = []
        current = tid
        seen: set[int] = set()
        while step is not None:
            mutex, holder, by_ceiling = step
            links.append(Link(self._task(current), self._sem(mutex), self._task(holder), by_ceiling))
            if holder == tid:
                return tuple(links)
            if holder in seen:
                break
            seen.add(holder)
            current = holder
            step = self._waits_for(holder)
        return ()

    def _first_wait(self, tid: int, sid: int) -> tuple[int, int, bool] | None:
        """(mutex, holder, by ceiling) of the wait the caller asked for: the
        mutex's holder; or, for a free pcp mutex, the holder of the mutex
        with the highest ceiling among those other tasks hold (the system
        ceiling)."""
        holder = self.holder.get(sid)
        if holder is not None:
            return sid, holder, False
        held = [
            (self.scenario.kernel_ceiling(self._sem(m)) or 0, m, t)
            for m, t in self.holder.items()
            if t != tid and self.scenario.resources[m].protocol == "pcp"
        ]
        if not held:
            return None
        _, mutex, holder = max(held)
        return mutex, holder, True

    def _waits_for(self, tid: int) -> tuple[int, int, bool] | None:
        wait = self.waits.get(tid)
        if wait is None:
            return None
        if wait.ceiling_mutex is not None and wait.ceiling_holder is not None:
            return wait.ceiling_mutex, wait.ceiling_holder, True
        holder = self.holder.get(wait.sem)
        return None if holder is None else (wait.sem, holder, False)


def _cycle_text(cycle: tuple[Link, ...], me: str) -> str:
    """`T1 wants B, held by T2, which waits for A, held by T1`."""
    if not cycle:
        return f"{me}'s lock would close a cycle of waits (the trace does not show it whole)"
    parts = []
    for i, link in enumerate(cycle):
        if link.by_ceiling:
            wait = f"is blocked by the ceiling of {link.mutex}"
        else:
            wait = f"wants {link.mutex}" if i == 0 else f"waits for {link.mutex}"
        parts.append(f"{link.task if i == 0 else 'which'} {wait}, held by {link.holder}")
    return ", ".join(parts)


# ---------------------------------------------------------------- actions as written


def action_text(scenario: Scenario, a: Action) -> str:
    """An action as the file writes it: `lock S timeout 5`, `compute 2.5`."""
    if a.kind in ("compute", "delay"):
        return f"{a.kind} {in_unit(scenario, a.ticks)}"
    text = f"{a.kind} {a.resource}"
    if a.kind in ("set", "clear", "wait"):
        text += f" 0x{a.mask:x}"
    if a.kind == "wait":
        text += " all" if a.wait_all else " any"
        text += " clear" if a.clear else ""
    if a.priority is not None:
        text += f" priority {a.priority}"
    if a.timeout is not None:
        text += f" timeout {in_unit(scenario, a.timeout)}"
    return text

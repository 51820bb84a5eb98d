"""The blocking term B_i of each task under each protocol (docs/analysis.md,
"Blocking").

B_i bounds the time during which a less urgent task runs while a job of
task i (or, under busy-period analysis, any job of a level-i busy period) is
pending. Every rule below reads the tasks' critical sections through
`stretches` and `charges` (taskset.py) with the set of mutexes relevant to
task i under that protocol:

    none   the mutexes i locks, when nothing between the holder and i can run
    pip    mutexes whose inheritance level (taskset._inheritance_levels) >= p_i
    pcp    mutexes whose ceiling >= p_i
    ipcp   mutexes whose ceiling >= p_i
    npcs   every mutex
    rcs    the recoveries a job waits for at its own locks (a mutex with a
           recovery: recovery_waits); the lost work, and the recoveries a
           more urgent task waits for, are an abort cost of the aborter
           (abort_cost)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from priora.analysis.taskset import TaskInfo, TaskSet, deadlock, longest_stretch, stretches
from priora.record import record

PROTOCOLS: tuple[str, ...] = ("none", "pip", "pcp", "ipcp", "npcs", "rcs")


@record(frozen=True)
class Term:
    """One critical section (or stretch) counted in a blocking term."""

    task: str
    mutex: str
    ticks: int


@record(frozen=True)
class Blocking:
    ticks: int | None  # None: no finite bound (see reason)
    terms: tuple[Term, ...] = ()
    reason: str | None = None


def protocol_problem(ts: TaskSet, protocol: str) -> str | None:
    """Why the protocol's analysis does not apply to the whole task set, or None."""
    if protocol in ("none", "pip"):
        cycle = deadlock(ts)
        if cycle is not None:
            return cycle
    if protocol == "pip":
        for m in ts.mutexes.values():
            if m.fifo:
                return f"mutex {m.name} is FIFO-ordered: pip needs priority order (the kernel refuses it)"
    if protocol == "pcp":
        for m in ts.mutexes.values():
            if m.fifo and len(m.users) >= 2:
                return (
                    f"mutex {m.name} is FIFO-ordered: the pcp analysis assumes that the most urgent "
                    "waiter gets a mutex first"
                )
    if protocol in ("pcp", "ipcp"):
        for m in ts.mutexes.values():
            if m.ceiling is None:
                continue
            for name in m.users:
                task = ts.task(name)
                if task.priority > m.ceiling:
                    return (
                        f"mutex {m.name}: its ceiling {m.ceiling} is below the priority {task.priority} "
                        f"of {name}, which locks it (ceiling violated)"
                    )
    return None


def _longest(ts: TaskSet, task: TaskInfo, relevant: frozenset[str]) -> Blocking:
    """The longest single stretch of a less urgent task on a relevant mutex."""
    best: Term | None = None
    for k in ts.lower(task):
        s = longest_stretch(k, relevant)
        if s is not None and (best is None or s.ticks > best.ticks):
            best = Term(k.name, s.mutex, s.ticks)
    return Blocking(best.ticks, (best,)) if best is not None else Blocking(0)


def _ceiling_relevant(ts: TaskSet, task: TaskInfo) -> frozenset[str]:
    return frozenset(
        m.name for m in ts.mutexes.values() if m.ceiling is not None and m.ceiling >= task.priority
    )


def blocking_pcp(ts: TaskSet, task: TaskInfo) -> Blocking:
    """pcp and ipcp: a job is blocked at most once, for one critical section of
    one less urgent task, on a mutex whose ceiling is at least its priority
    [Sha-Rajkumar-Lehoczky 1990; Rajkumar 1991 for the immediate ceiling]."""
    return _longest(ts, task, _ceiling_relevant(ts, task))


def blocking_npcs(ts: TaskSet, task: TaskInfo) -> Blocking:
    """npcs: a job is blocked at most once, by the longest critical section of
    any less urgent task (no preemption inside a section) [Mok 1983], the
    blocking of limited-preemptive scheduling [Buttazzo 2011, chapter 8]:
    the whole section, not one tick less, because a less urgent task that
    locks at the very instant a job is released locks first (a call at a
    tick's instant runs before that tick's releases; docs/analysis.md)."""
    return _longest(ts, task, frozenset(ts.mutexes))


def blocking_pip(ts: TaskSet, task: TaskInfo) -> Blocking:
    """pip: each less urgent task blocks at most once per level-i busy period,
    for at most its longest stretch on a relevant mutex, so B_i is the sum
    over the less urgent tasks of their longest relevant stretch (the
    per-task half of the bound of [Sha-Rajkumar-Lehoczky 1990]). A mutex is
    relevant when its holder can inherit a priority >= p_i: direct blocking
    (i locks it) and push-through blocking (a more urgent task locks it),
    transitively through nested sections.

    Their other half, one section per semaphore, does not hold on this
    kernel: an unlock hands the mutex to its first waiter at once, and that
    waiter can be a less urgent task queued earlier, which then blocks the
    next lock of the same mutex (docs/analysis.md, "pip", has the example)."""
    relevant = frozenset(
        m.name for m in ts.mutexes.values() if m.inheritance is not None and m.inheritance >= task.priority
    )
    terms: list[Term] = []
    for k in ts.lower(task):
        s = longest_stretch(k, relevant)
        if s is not None and s.ticks > 0:
            terms.append(Term(k.name, s.mutex, s.ticks))
    return Blocking(sum(t.ticks for t in terms), tuple(terms))


def blocking_none(ts: TaskSet, task: TaskInfo) -> Blocking:
    """none: a waiter lends nothing. A less urgent holder L of a mutex that i,
    or any task at or above i's priority, locks can keep such a task waiting
    while i's level has work pending; and any task whose priority lies
    strictly between L's and i's can preempt L meanwhile, as often as it is
    released: no bound in terms of critical sections (the unbounded priority
    inversion). (A more urgent task H kept waiting by L while i runs is
    deferred, then runs inside i's window: that is why H's mutexes count,
    not only i's.) Without such a medium task, and when no holder can wait
    in turn for another task (no transitive blocking), the less urgent tasks
    run during a level-i busy period for at most one stretch of one of them
    on those mutexes: B_i is the longest such stretch."""
    relevant = frozenset(
        m.name for m in ts.mutexes.values() if m.highest is not None and m.highest >= task.priority
    )
    blockers = [k for k in ts.lower(task) if k.locks() & relevant]
    if not blockers:
        return Blocking(0)
    for k in blockers:
        for e in ts.edges:
            if e.task == k.name and e.held in relevant:
                others = [t for t in ts.mutexes[e.locked].users if t != k.name]
                if others:
                    return Blocking(
                        None,
                        reason=(
                            f"{k.name} may wait for {e.locked} (locked by {others[0]}) while it holds "
                            f"{e.held} (transitive blocking without inheritance: not bounded)"
                        ),
                    )
    lowest = min(blockers, key=lambda k: k.priority)
    medium = [m for m in ts.tasks if m is not task and lowest.priority < m.priority < task.priority]
    if medium:
        m = max(medium, key=lambda t: t.priority)
        mutex = next(x for x in ts.mutexes if x in lowest.locks() and x in relevant)
        waiter = task.name if mutex in task.locks() else _most_urgent_user(ts, mutex)
        return Blocking(
            None,
            reason=(
                f"{m.name} (priority {m.priority}) can preempt {lowest.name} (priority {lowest.priority}) "
                f"while {lowest.name} holds {mutex} and {waiter} waits for it: unbounded priority inversion"
            ),
        )
    return _longest(ts, task, relevant)


def _most_urgent_user(ts: TaskSet, mutex: str) -> str:
    return max((ts.task(u) for u in ts.mutexes[mutex].users), key=lambda t: t.priority).name


def _lock_wait(ts: TaskSet, locker: TaskInfo, mutex: str) -> Term | None:
    """rcs: the recovery one lock of `mutex` by `locker` may wait for. When
    the mutex has a recovery, a less urgent task k that locks it may hold it:
    the lock aborts k's section, and `locker` waits while k restores the
    state, at `locker`'s priority, for the mutex's recovery (the abort itself
    takes no time: zero overheads). The least urgent such k is named."""
    m = ts.mutexes[mutex]
    if m.recovery == 0:
        return None
    holders = [k for k in ts.tasks if k.priority < locker.priority and mutex in k.locks()]
    if not holders:
        return None
    return Term(min(holders, key=lambda k: k.priority).name, mutex, m.recovery)


def recovery_waits(ts: TaskSet, aborter: TaskInfo) -> tuple[Term, ...]:
    """rcs: the recoveries one job of `aborter` may wait for: one per lock
    action (_lock_wait). A job can find a holder to abort at each of its
    locks, even of one mutex: an unlock hands the mutex to its first waiter,
    which may be a less urgent task queued before."""
    return tuple(w for s in aborter.sections if (w := _lock_wait(ts, aborter, s.mutex)) is not None)


def _replay_waits(ts: TaskSet, task: TaskInfo, mutex: str) -> int:
    """rcs: the recoveries the restart of one of `task`'s sections on `mutex`
    may wait for (the longest over its sections): the replay runs the
    section's locks again, its own first, each one a _lock_wait."""
    longest, inside = 0, None
    before: tuple[str, ...] = ()
    for step in task.steps:
        for taken in (m for m in step.held if m not in before):  # a lock step takes one
            if taken == mutex:
                inside = 0
            if inside is not None:
                wait = _lock_wait(ts, task, taken)
                inside += wait.ticks if wait is not None else 0
        if inside is not None and mutex not in step.held:
            longest, inside = max(longest, inside), None
        before = step.held
    return longest


def _recovery_detour(ts: TaskSet, task: TaskInfo) -> str | None:
    """Why nested sections with a recovery may keep `task` waiting beyond
    the recoveries, or None. A holder aborted on a mutex with a recovery is
    raised to the requester's priority and keeps every other mutex it holds:
    a task not more urgent than that priority then waits for such a mutex
    (as under pip) until the holder has recovered, waited to lock again and
    replayed its section; and a lock left inside the aborted section may
    wait for another task before the recovery. Not covered when a task that
    locks one of the two mutexes is above the nesting task and at or above
    `task`'s priority (its wait delays `task`)."""
    for e in ts.edges:
        held, locked = ts.mutexes[e.held], ts.mutexes[e.locked]
        if held.recovery == 0 and locked.recovery == 0:
            continue
        k = ts.task(e.task)
        for name in (*held.users, *locked.users):
            h = ts.task(name)
            if h.priority > k.priority and h.priority >= task.priority:
                restored = held.name if held.recovery else locked.name
                return (
                    f"{k.name} locks {locked.name} while it holds {held.name}, and {restored} has a "
                    f"recovery: an aborted holder keeps its other mutexes, so {h.name} may wait beyond "
                    "the recovery (nested sections with a recovery are not covered)"
                )
    return None


def blocking_rcs(ts: TaskSet, task: TaskInfo) -> Blocking:
    """rcs: a more urgent task that wants a mutex aborts its less urgent
    holder. Without a recovery it takes the mutex at once: no job ever waits
    for a less urgent one (and a holder never waits: whatever it wants is
    free or aborted for it), B_i = 0. With one, it waits while the holder
    recovers: B_i is the abort and recovery time of [Tokuda-Nakajima 1993],
    section 2.3, summed over the job's locks (recovery_waits). The holder's
    lost work, and the recoveries more urgent tasks wait for, are charged to
    the aborter (abort_cost)."""
    detour = _recovery_detour(ts, task)
    if detour is not None:
        return Blocking(None, reason=detour)
    terms = recovery_waits(ts, task)
    return Blocking(sum(t.ticks for t in terms), terms)


BLOCKING: dict[str, Callable[[TaskSet, TaskInfo], Blocking]] = {
    "none": blocking_none,
    "pip": blocking_pip,
    "pcp": blocking_pcp,
    "ipcp": blocking_pcp,
    "npcs": blocking_npcs,
    "rcs": blocking_rcs,
}


def abort_cost(ts: TaskSet, aborter: TaskInfo, floor: int) -> int:
    """rcs: the work that one job of `aborter` can make tasks of priority >=
    `floor` lose and redo, and wait for. Each of its lock actions on a mutex
    m aborts at most one holder, a task k less urgent than the aborter, which
    loses at most its longest section on m (it restarts from its lock) and,
    replaying it, may wait for recoveries again (_replay_waits). Only tasks k
    with priority >= floor delay a task of priority `floor` so. The
    recoveries the aborter waits for (recovery_waits) run at its priority,
    whoever holds the mutex: they delay every task at or below it."""
    key = ("abort", aborter.name, floor)
    if key in ts.memo:
        return ts.memo[key]
    cost = 0
    locks = Counter(section.mutex for section in aborter.sections)
    for mutex, count in locks.items():  # the same for every lock of one mutex
        wait = _lock_wait(ts, aborter, mutex)  # recovery_waits, summed by mutex
        cost += count * (wait.ticks if wait is not None else 0)
        cost += count * max(
            (
                k.longest_section(mutex) + _replay_waits_memo(ts, k, mutex)
                for k in ts.tasks
                if k is not aborter and floor <= k.priority < aborter.priority
            ),
            default=0,
        )
    ts.memo[key] = cost
    return cost


def _replay_waits_memo(ts: TaskSet, task: TaskInfo, mutex: str) -> int:
    """_replay_waits, computed once per task and mutex (it walks the body)."""
    key = ("replay " + mutex, task.name, 0)
    if key not in ts.memo:
        ts.memo[key] = _replay_waits(ts, task, mutex) if mutex in task.locks() else 0
    return ts.memo[key]


def longest_critical_section(ts: TaskSet) -> Term | None:
    """CS of the kernelized-monitor bound [Tokuda-Nakajima 1993]: the
    longest stretch during which any task holds any mutex."""
    best: Term | None = None
    everything = frozenset(ts.mutexes)
    for t in ts.tasks:
        for s in stretches(t, everything):
            if best is None or s.ticks > best.ticks:
                best = Term(t.name, s.mutex, s.ticks)
    return best

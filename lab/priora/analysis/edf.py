"""EDF tests (docs/analysis.md, "EDF"): what the task set would need under an
earliest-deadline-first scheduler. Priora's kernel schedules by fixed
priority; these answer "would EDF do" beside the fixed-priority tests.

- The processor-demand test with a blocking term ([Baruah-Rosier-Howell
  1990] for the demand bound function; the blocking function b(L) in the
  form of [Baruah 2006]): for every absolute deadline L,

      b(L) + sum_i dbf_i(L) <= L,    dbf_i(L) = max(0, floor((L - D_i) / T_i) + 1) C_i

  b(L) is the longest critical section that a job with relative deadline
  > L can be inside when the interval starts and that delays a job with
  deadline <= L:
    npcs        any section of a task with D_j > L (non-preemptive sections);
    pcp, ipcp   under EDF their counterpart is the stack resource policy
                [Baker 1991] with preemption levels in deadline order: a section
                of a task with D_j > L on a mutex that some task with D_k <= L
                locks.
  none, pip and rcs have no such test here (none: unbounded inversion; pip
  and rcs under EDF need other analyses).
- The bound for the kernelized monitor (npcs) of [Tokuda-Nakajima 1993],
  section 2.3: sum_j (C_j + CS) / T_j <= 1, CS the longest critical section.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from priora.analysis.blocking import longest_critical_section
from priora.analysis.fixed_priority import Test
from priora.analysis.taskset import TaskInfo, TaskSet, longest_stretch

# More absolute deadlines than this to check, and the test gives up.
MAX_POINTS = 100_000

EDF_PROTOCOLS = ("pcp", "ipcp", "npcs")


def _periodic_problem(ts: TaskSet) -> str | None:
    for t in ts.tasks:
        if t.period is None:
            return f"task {t.name} has no period"
        if t.jitter:
            return f"task {t.name} has release jitter, which this test does not cover"
        if t.offset:
            return f"task {t.name} has a phase offset, which this test does not cover"
    return None


def _blocking_function(ts: TaskSet, protocol: str) -> Callable[[int], int]:
    """b(L) for `protocol`, cached per set of tasks with D <= L."""
    tasks = ts.tasks
    cache: dict[frozenset[str], int] = {}

    def b(length: int) -> int:
        near = frozenset(t.name for t in tasks if _deadline(t) <= length)
        if near not in cache:
            if protocol == "npcs":
                relevant = frozenset(ts.mutexes)
            else:
                relevant = frozenset(m.name for m in ts.mutexes.values() if near & set(m.users))
            far: list[TaskInfo] = [t for t in tasks if t.name not in near]
            cache[near] = max(
                (s.ticks for t in far if (s := longest_stretch(t, relevant)) is not None), default=0
            )
        return cache[near]

    return b


def _deadline(t: TaskInfo) -> int:
    if t.deadline is None:  # periodic tasks always have one (the period by default)
        raise ValueError(f"task {t.name} has no deadline")
    return t.deadline


def demand(ts: TaskSet, protocol: str, max_points: int = MAX_POINTS) -> Test:
    """The processor-demand test with blocking, checked at every absolute
    deadline L up to min(H + D_max, L*), where H is the hyperperiod and, when
    U < 1, L* = (sum_i U_i max(0, T_i - D_i) + b_max) / (1 - U): beyond L*
    the demand can no longer exceed L, and beyond H + D_max (no blocking
    there) it repeats, one hyperperiod adding U H <= H."""
    if protocol not in EDF_PROTOCOLS:
        reason = {
            "none": "without inheritance the blocking under EDF is unbounded as under fixed priority",
            "pip": "no EDF demand test with a pip blocking term here",
            "rcs": "no EDF demand test with rcs abort costs here",
        }.get(protocol, f"no EDF test for {protocol}")
        return Test(None, reason=reason)
    problem = _periodic_problem(ts)
    if problem:
        return Test(None, reason=problem)
    periods = [t.period for t in ts.tasks if t.period is not None]
    u = sum((Fraction(t.wcet, t.period) for t in ts.tasks if t.period), Fraction(0))
    if u > 1:
        return Test(False, reason=f"U = {float(u):.6f} > 1")
    b = _blocking_function(ts, protocol)
    deadlines = [_deadline(t) for t in ts.tasks]
    d_min, d_max = min(deadlines), max(deadlines)
    limit = math.lcm(*periods) + d_max
    if u < 1:
        slack = sum(
            (Fraction(t.wcet, t.period) * max(0, t.period - _deadline(t)) for t in ts.tasks if t.period),
            Fraction(0),
        )
        limit = min(limit, math.floor((slack + b(d_min)) / (1 - u)))
    count = sum(
        (limit - _deadline(t)) // t.period + 1 for t in ts.tasks if t.period and limit >= _deadline(t)
    )
    if count > max_points:
        return Test(None, reason=f"{count} absolute deadlines to check, more than the limit of {max_points}")
    points = sorted(
        {
            k * t.period + _deadline(t)
            for t in ts.tasks
            if t.period
            for k in range((limit - _deadline(t)) // t.period + 1)
        }
        if limit >= d_min
        else set()
    )
    for length in points:
        total = b(length)
        for t in ts.tasks:
            if t.period is not None and length >= _deadline(t):
                total += ((length - _deadline(t)) // t.period + 1) * t.wcet
        if total > length:
            return Test(
                False,
                reason=f"at L = {ts.show(length)} the demand with blocking is {ts.show(total)} > L",
            )
    return Test(True)


def kernelized_monitor(ts: TaskSet, protocol: str) -> Test:
    """[Tokuda-Nakajima 1993], section 2.3: EDF with a kernelized monitor
    (npcs) is schedulable if sum_j (C_j + CS) / T_j <= 1, CS being the longest
    critical section of the task set (0 without one). For implicit deadlines
    (D = T; a longer deadline only helps)."""
    if protocol != "npcs":
        return Test(None, reason="this bound is for the kernelized monitor (npcs) only")
    problem = _periodic_problem(ts)
    if problem:
        return Test(None, reason=problem)
    for t in ts.tasks:
        if t.period is not None and _deadline(t) < t.period:
            return Test(None, reason=f"task {t.name} has a deadline shorter than its period")
    longest = longest_critical_section(ts)
    cs = longest.ticks if longest is not None else 0
    total = sum((Fraction(t.wcet + cs, t.period) for t in ts.tasks if t.period), Fraction(0))
    if total > 1:
        return Test(False, total, f"sum (C + CS)/T = {float(total):.6f} > 1 with CS = {ts.show(cs)}")
    return Test(True, total)

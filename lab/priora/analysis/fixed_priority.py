"""Fixed-priority tests (docs/analysis.md, "Fixed priority"): total
utilisation, the Liu-Layland bound with blocking, the hyperbolic bound with
blocking, and exact response-time analysis with blocking.

Every verdict is exact: integers in ticks and fractions.Fraction, never a
floating-point comparison. The Liu-Layland bound n(2^(1/n) - 1) is
irrational; x <= n(2^(1/n) - 1) is decided as (x/n + 1)^n <= 2.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

from priora.analysis.taskset import TaskInfo, TaskSet
from priora.record import record

# Response-time iteration: steps over all jobs of one busy period, after which
# the analysis gives up (a level utilisation very close to 1 with a long
# period converges slowly).
MAX_STEPS = 100_000


@record(frozen=True)
class Test:
    """A schedulability test's verdict: True (passes), False (fails), None
    (does not apply; see reason)."""

    passes: bool | None
    value: Fraction | None = None  # the test's figure when it has one (a utilisation)
    reason: str | None = None


@record(frozen=True)
class Interferer:
    """A task that can run before the analysed one: C_j (with any abort cost
    it causes) and T_j (None: one job)."""

    name: str
    wcet: int
    period: int | None
    jitter: int = 0  # J_j: its jobs are released up to J_j ticks after their arrival


@record(frozen=True)
class Response:
    ticks: int | None  # the worst-case response time R_i; None: not found (see reason)
    meets: bool | None  # R_i <= D_i; None when the task has no deadline or R_i is unknown
    unbounded: bool  # no finite bound exists in this analysis
    reason: str | None = None


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def response_time(
    task: TaskInfo,
    blocking: int,
    interferers: Sequence[Interferer],
    max_steps: int = MAX_STEPS,
    final: int = 0,
) -> Response:
    """R_i by busy-period response-time analysis with blocking
    [Joseph-Pandya 1986; Audsley et al. 1993 for B_i; Lehoczky 1990 and
    Tindell-Burns-Wellings 1994 for deadlines beyond the period], as the
    start time of the job's final non-preemptive region of F = `final` ticks
    (npcs; 0 for a job preemptible to its end), which nothing preempts once
    started [Davis-Burns-Bril-Lukkien 2007; Buttazzo 2011, chapter 8]. For
    the jobs q of the level-i busy period that starts at a critical instant,

        S_q = B_i + q C_i + (C_i - F) + sum_j ceil(S_q / T_j) C_j   (least fixed point)
        R_i = max_q (S_q + F - q T_i)

    and q = 0 .. ceil(L / T_i) - 1, L the busy period's length: with F > 0 a
    job can end within its period while the busy period goes on (the work
    released during its final region), so a later job can be the worst
    [Bril-Lukkien-Verhaegh 2009]. With release jitter [Audsley et al. 1993]
    an interferer's jobs count as ceil((S_q + J_j) / T_j), the busy period
    holds ceil((L + J_i) / T_i) jobs of the task, and its response is
    counted from the arrival: R_i = max_q (S_q + F - q T_i) + J_i. A phase
    offset O_i [Tokuda-Nakajima 1993] delays every release of the task by
    the same amount, so its releases keep their pattern (nothing changes
    for the tasks it interferes with) and its own response from the arrival
    gains O_i: R_i = max_q (S_q + F - q T_i) + J_i + O_i. A
    sporadic task counts with its minimum interarrival time as T. A task
    without a period has one job; an
    interferer without a period counts once. ceil counts the jobs released
    before S_q: one released at S_q's very instant is too late, since a call
    at a tick's instant runs before that tick's releases (docs/analysis.md)."""
    periodic = [j for j in interferers if j.period is not None]
    once = sum(j.wcet for j in interferers if j.period is None)
    # The utilisations as exact fractions over one common denominator (the
    # periods' least common multiple): u_hp = hp / common, the level's
    # (u_hp plus the task's own) = level / common. Integers, as Fraction
    # would compute them, without a Fraction per term.
    common = math.lcm(*(j.period for j in periodic if j.period is not None), task.period or 1)
    hp = sum(j.wcet * (common // j.period) for j in periodic if j.period is not None)
    level = hp + (task.wcet * (common // task.period) if task.period is not None else 0)
    fixed = blocking + once
    deadline = task.deadline
    if task.period is not None and (level > common or (level == common and fixed > 0)):
        return _unbounded(
            deadline, f"the tasks at or above its priority use {level / common:.6f} of the processor"
        )
    if task.period is None and (hp > common or (hp == common and fixed + task.wcet > 0)):
        return _unbounded(deadline, f"the tasks above its priority use {hp / common:.6f} of the processor")
    steps = 0

    def least_fixed_point(base: int, own_period: int | None = None) -> int | None:
        """The least w >= base + sum C_j with w = base + sum ceil(w / T_j) C_j
        (with the task's own jobs when own_period is given), or None when
        the step limit is reached."""
        nonlocal steps
        terms = [(j.period, j.wcet, j.jitter) for j in periodic if j.period is not None]
        if own_period is not None:
            terms.append((own_period, task.wcet, task.jitter))
        w = base + sum(c for _, c, _ in terms)
        while True:
            following = base + sum(_ceil(w + jitter, t) * c for t, c, jitter in terms)
            if following == w:
                return w
            w = following
            steps += 1
            if steps > max_steps:
                return None

    jobs = 1
    if task.period is not None:
        busy = least_fixed_point(fixed, task.period)
        if busy is None:
            return _not_converged(deadline, 0, max_steps)
        jobs = max(1, _ceil(busy + task.jitter, task.period))
    worst = 0
    for q in range(jobs):
        start = least_fixed_point(fixed + q * task.wcet + task.wcet - final)
        if start is None:
            return _not_converged(deadline, worst, max_steps)
        worst = max(worst, start + final - q * (task.period or 0) + task.jitter + task.offset)
    return Response(worst, None if deadline is None else worst <= deadline, False)


def _not_converged(deadline: int | None, worst: int, max_steps: int) -> Response:
    late = deadline is not None and worst > deadline
    return Response(
        None,
        False if late else None,
        False,
        f"the response-time iteration did not converge within {max_steps} steps",
    )


def _unbounded(deadline: int | None, reason: str) -> Response:
    return Response(None, None if deadline is None else False, True, reason)


# ---------------------------------------------------------------- utilisation bounds

# C_j as a test of task i counts it: C_j, plus what j's aborts cost tasks at or above i (rcs).
Wcet = Callable[[TaskInfo, TaskInfo], int]


def utilisation(ts: TaskSet) -> Test:
    """U = sum C_j / T_j; U <= 1 is necessary (not sufficient) for any scheduler."""
    problem = _not_periodic(ts)
    if problem:
        return Test(None, reason=problem)
    u = sum((Fraction(t.wcet, t.period) for t in ts.tasks if t.period), Fraction(0))
    if u > 1:
        return Test(False, u, f"U = {float(u):.6f} > 1: more work than time, whatever the scheduler")
    return Test(True, u)


def _not_periodic(ts: TaskSet) -> str | None:
    for t in ts.tasks:
        if t.period is None:
            return f"task {t.name} has no period"
    return None


def rate_monotonic_problem(ts: TaskSet) -> str | None:
    """Why the rate-monotonic bounds do not apply, or None. They need periodic
    tasks, deadlines not shorter than periods, and rate-monotonic priorities
    (a shorter period is never less urgent; equal priorities, equal periods)."""
    problem = _not_periodic(ts)
    if problem:
        return problem
    for t in ts.tasks:
        if t.jitter:
            return f"task {t.name} has release jitter, which the utilisation bounds do not cover"
        if t.offset:
            return f"task {t.name} has a phase offset, which the utilisation bounds do not cover"
        if t.deadline is not None and t.period is not None and t.deadline < t.period:
            return f"task {t.name} has a deadline shorter than its period"
    for a in ts.tasks:
        for b in ts.tasks:
            if a is b or a.period is None or b.period is None:
                continue
            if a.priority >= b.priority and a.period > b.period:
                relation = "as urgent as" if a.priority == b.priority else "more urgent than"
                return (
                    f"the priorities are not rate-monotonic: {a.name} (period {ts.show(a.period)}) "
                    f"is {relation} {b.name} (period {ts.show(b.period)})"
                )
    return None


def _by_priority(ts: TaskSet) -> list[TaskInfo]:
    return sorted(ts.tasks, key=lambda t: -t.priority)


def liu_layland(ts: TaskSet, blocking: dict[str, int | None], wcet: Wcet) -> Test:
    """[Tokuda-Nakajima 1993], section 2.3 (after [Sha-Rajkumar-Lehoczky
    1990] and [Liu-Layland 1973]): for every task i, in priority order,

        B_i / T_i + sum_{j at or above i} C_j / T_j <= n_i (2^(1/n_i) - 1)

    n_i being the number of tasks at or above i's priority (tasks of equal
    priority count as more urgent: the bound only decreases with n)."""
    problem = rate_monotonic_problem(ts)
    if problem:
        return Test(None, reason=problem)
    for i in _by_priority(ts):
        b = blocking[i.name]
        if b is None:
            return Test(False, reason=f"{i.name}: no bound on its blocking")
        group = [j for j in ts.tasks if j.priority >= i.priority]
        n = len(group)
        lhs = Fraction(b, _period(i)) + sum((Fraction(wcet(j, i), _period(j)) for j in group), Fraction(0))
        if (lhs / n + 1) ** n > 2:
            bound = n * (2 ** (1 / n) - 1)
            return Test(
                False,
                reason=f"{i.name}: B/T + sum C/T = {float(lhs):.6f} > {n}(2^(1/{n}) - 1) = {bound:.6f}",
            )
    return Test(True)


def hyperbolic(ts: TaskSet, blocking: dict[str, int | None], wcet: Wcet) -> Test:
    """The hyperbolic bound [Bini-Buttazzo-Buttazzo 2003] with blocking
    ([Buttazzo 2011], chapter 7): for every task i,

        (C_i / T_i + B_i / T_i + 1) * prod_{j above i} (C_j / T_j + 1) <= 2"""
    problem = rate_monotonic_problem(ts)
    if problem:
        return Test(None, reason=problem)
    for i in _by_priority(ts):
        b = blocking[i.name]
        if b is None:
            return Test(False, reason=f"{i.name}: no bound on its blocking")
        product = Fraction(wcet(i, i) + b, _period(i)) + 1
        for j in ts.interfering(i):
            product *= Fraction(wcet(j, i), _period(j)) + 1
        if product > 2:
            return Test(False, reason=f"{i.name}: the product is {float(product):.6f} > 2")
    return Test(True)


def _period(t: TaskInfo) -> int:
    if t.period is None:  # the callers checked rate_monotonic_problem first
        raise ValueError(f"task {t.name} has no period")
    return t.period

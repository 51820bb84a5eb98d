"""The analysis proper: per protocol, B_i, R_i and the tests (docs/analysis.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from priora.analysis import edf
from priora.analysis.blocking import BLOCKING, PROTOCOLS, Blocking, Term, abort_cost, protocol_problem
from priora.analysis.fixed_priority import (
    Interferer,
    Test,
    hyperbolic,
    liu_layland,
    response_time,
    utilisation,
)
from priora.analysis.taskset import TaskInfo, TaskSet, extract
from priora.record import record
from priora.scenario.model import Scenario

# The tests, in the order of the output.
TESTS: tuple[str, ...] = (
    "utilisation",
    "liu_layland",
    "hyperbolic",
    "response_time",
    "edf_demand",
    "edf_kernelized_monitor",
)


@record(frozen=True)
class TaskResult:
    """One task under one protocol; times in ticks."""

    blocking: int | None  # B_i; None: no finite bound or no analysis (reason)
    blocked_by: tuple[Term, ...]  # the sections that make up B_i
    response: int | None  # R_i; None: unbounded, not found or no analysis (reason)
    meets_deadline: bool | None  # R_i <= D_i; None: no deadline, or no analysis
    unbounded: bool  # no finite bound on B_i or R_i exists in this analysis
    reason: str | None


@record(frozen=True)
class ProtocolResult:
    protocol: str
    reason: str | None  # why there is no analysis for this protocol at all
    tasks: dict[str, TaskResult]  # in file order
    tests: dict[str, Test]  # keys TESTS, in that order


@record(frozen=True)
class Analysis:
    taskset: TaskSet
    protocols: dict[str, ProtocolResult]  # in PROTOCOLS order


def analyze(
    scenario: Scenario, protocols: Iterable[str] = PROTOCOLS, tests: Iterable[str] = TESTS
) -> Analysis:
    """The analysis of `scenario` under each of `protocols` (in PROTOCOLS
    order, once each): every task's bounds and the schedulability `tests`
    (default: all; a campaign asks for the response-time test only). Raises
    AnalysisError for a task set it does not cover."""
    wanted = set(protocols)
    unknown = wanted - set(PROTOCOLS)
    if unknown:
        raise ValueError(f"unknown protocols: {', '.join(sorted(unknown))}")
    asked = set(tests)
    if asked - set(TESTS):
        raise ValueError(f"unknown tests: {', '.join(sorted(asked - set(TESTS)))}")
    ts = extract(scenario)
    return Analysis(ts, {p: _protocol(ts, p, asked) for p in PROTOCOLS if p in wanted})


def _protocol(ts: TaskSet, protocol: str, asked: set[str]) -> ProtocolResult:
    problem = protocol_problem(ts, protocol)
    if problem is not None:
        tasks = {t.name: TaskResult(None, (), None, None, False, problem) for t in ts.tasks}
        tests = {name: Test(None, reason=problem) for name in TESTS if name in asked}
        if "utilisation" in asked:
            tests["utilisation"] = utilisation(ts)
        return ProtocolResult(protocol, problem, tasks, tests)
    rule = BLOCKING[protocol]
    blockings = {t.name: rule(ts, t) for t in ts.tasks}

    def wcet(j: TaskInfo, i: TaskInfo) -> int:
        """j's execution as it delays i: under rcs, with the work its aborts
        make others redo (abort_cost keeps what it computed in ts.memo)."""
        return j.wcet + (abort_cost(ts, j, i.priority) if protocol == "rcs" else 0)

    tasks = {t.name: _task(protocol, t, blockings[t.name], ts.interfering(t), wcet) for t in ts.tasks}
    terms = {name: b.ticks for name, b in blockings.items()}
    every: dict[str, Callable[[], Test]] = {
        "utilisation": lambda: utilisation(ts),
        "liu_layland": lambda: liu_layland(ts, terms, wcet),
        "hyperbolic": lambda: hyperbolic(ts, terms, wcet),
        "response_time": lambda: _rta_test(ts, tasks),
        "edf_demand": lambda: edf.demand(ts, protocol),
        "edf_kernelized_monitor": lambda: edf.kernelized_monitor(ts, protocol),
    }
    return ProtocolResult(
        protocol, None, tasks, {name: test() for name, test in every.items() if name in asked}
    )


def _task(
    protocol: str,
    task: TaskInfo,
    blocking: Blocking,
    interfering: Iterable[TaskInfo],
    wcet: Callable[[TaskInfo, TaskInfo], int],
) -> TaskResult:
    if blocking.ticks is None:
        meets = None if task.deadline is None else False
        return TaskResult(None, (), None, meets, True, blocking.reason)
    if task.timeshare:
        # Its level depends on its own and the other time-sharing tasks' CPU
        # usage and on the real-time load: no bound. Its sections still
        # appear in the real-time tasks' blocking terms (the rules see it at
        # the top of the band, below every real-time task).
        meets = None if task.deadline is None else False
        reason = "a time-sharing task: its level moves with its CPU usage, so no response time is bounded"
        return TaskResult(blocking.ticks, blocking.terms, None, meets, True, reason)
    interferers = [Interferer(j.name, wcet(j, task), j.period, j.jitter) for j in interfering]
    # Under npcs nothing preempts the job's final section once it has begun:
    # the analysis bounds when that section starts (fixed_priority.response_time).
    final = task.final_region if protocol == "npcs" else 0
    r = response_time(task, blocking.ticks, interferers, final=final)
    return TaskResult(blocking.ticks, blocking.terms, r.ticks, r.meets, r.unbounded, r.reason)


def _rta_test(ts: TaskSet, tasks: dict[str, TaskResult]) -> Test:
    """Every task with a deadline has R_i <= D_i."""
    with_deadline = [t for t in ts.tasks if t.deadline is not None]
    if not with_deadline:
        return Test(None, reason="no task has a deadline")
    late = [t.name for t in with_deadline if tasks[t.name].meets_deadline is False]
    if late:
        return Test(False, reason=f"R > D for {', '.join(late)}")
    unknown = [t.name for t in with_deadline if tasks[t.name].meets_deadline is None]
    if unknown:
        return Test(None, reason=f"no response time for {', '.join(unknown)}")
    return Test(True)

"""Breakdown: the largest (or smallest) value of one numeric field of one task
for which a task set still meets every deadline (`priora breakdown`,
docs/experiments.md#priora-breakdown).

Two answers per locking protocol, side by side:

- simulation: the scenario with the field set to a value runs on the kernel
  (priora.run.simulate.simulate, the file's cost model or the one given) over its
  horizon, and "no deadline miss" is judged on every job released within it;
  a value also fails when its demand exceeds the processor (U > 1, or work
  released within the horizon still unfinished when the run ends) or when
  the kernel refused a call of such a job (a skipped section is not a pass),
  and each failure says why (`Verdict`);
- analysis: priora.analysis's response-time analysis says the task set is
  schedulable (every task with a deadline has R_i <= D_i; zero overheads, any
  release times).

Both are found by search over whole ticks, never by a loop over every value:
from the file's value, steps that double until the answer changes, then
bisection between the last value that passes and the first that fails. That
presumes monotonicity (more work never helps); scheduling anomalies break it,
so every value simulated is kept, and any pair that contradicts monotonicity
is reported (docs/experiments.md, "Monotonicity").

The fields (`TASK.FIELD`):

    wcet        the task's execution time C (every compute of its body); the
                computes outside critical sections take the change, in
                proportion to their amounts in the file; sections keep theirs
    section.M   the length of the task's critical section on mutex M (the
                compute inside it, nested sections included); the computes
                directly inside it (not in a nested section) take the change
    body[i]     the amount of the compute action body[i]
    period      the period (smallest value: a shorter period is more work);
                a deadline equal to the period follows it
    deadline    the relative deadline (smallest value)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from priora.errors import PrioraError, ScenarioError
from priora.record import record, replace
from priora.run import native
from priora.scenario.bounds import Limits, estimate
from priora.scenario.model import PROTOCOLS, Action, Scenario, Task, in_unit

Direction = Literal["largest", "smallest"]
FieldKind = Literal["wcet", "section", "body", "period", "deadline"]
# A judge's answer for one value: None when it passes, else why it fails.
Verdict = str | None

FIELDS = ("wcet", "period", "deadline", "section.MUTEX", "body[i]")
# One run may not release more jobs than this (a period varied down to a few
# ticks, or a hyperperiod that explodes): the search stops with an error.
MAX_JOBS_PER_RUN = 2_000_000
LIMITS = Limits(max_jobs=MAX_JOBS_PER_RUN)  # per run, unless breakdown(limits=...)


class BreakdownError(PrioraError):
    """A bad --vary, or a variant that cannot be simulated. One line."""


# ---------------------------------------------------------------- the field


@record(frozen=True)
class Field:
    """What `TASK.FIELD` names, resolved against one scenario."""

    text: str  # as given: "B.wcet"
    task: str
    kind: FieldKind
    mutex: str | None  # section.M
    index: int | None  # body[i], or the lock of section.M
    actions: tuple[int, ...]  # the compute actions that take the change (wcet, section, body)
    fixed: int  # ticks of the varied quantity that the actions do not hold (sections in wcet)

    @property
    def direction(self) -> Direction:
        return "smallest" if self.kind in ("period", "deadline") else "largest"

    def describe(self, scenario: Scenario) -> str:
        """One line for the output: what is varied, in the file's terms."""
        acts = ", ".join(f"body[{i}]" for i in self.actions)
        if self.kind == "wcet":
            extra = f" (sections {show(scenario, self.fixed)} kept)" if self.fixed else ""
            return f"{self.task}'s execution time C: its computes outside critical sections, {acts}{extra}"
        if self.kind == "section":
            return f"{self.task}'s critical section on {self.mutex} (body[{self.index}]): {acts}"
        if self.kind == "body":
            return f"{self.task}'s compute body[{self.index}]"
        if self.kind == "period":
            follows = (
                " (its deadline, equal to the period, follows)"
                if _implicit_deadline(_task(scenario, self.task))
                else ""
            )
            return f"{self.task}'s period{follows}"
        return f"{self.task}'s relative deadline"


_SPEC = re.compile(r"(?P<task>[^.]+)\.(?P<field>.+)")
_BODY = re.compile(r"body\[(?P<index>[0-9]+)\]")  # ASCII digits: \d takes any script's


def parse_field(scenario: Scenario, text: str) -> Field:
    """Resolves `TASK.FIELD` in `scenario`; BreakdownError names what is wrong."""
    at = f"--vary {text}"
    match = _SPEC.fullmatch(text)
    if match is None:
        raise BreakdownError(f"{at}: expected TASK.FIELD, FIELD one of {', '.join(FIELDS)}")
    name, field = match["task"], match["field"]
    tasks = [t.name for t in scenario.tasks]
    if name not in tasks:
        raise BreakdownError(f'{at}: no task "{name}" in {scenario.source} (tasks: {", ".join(tasks)})')
    task = _task(scenario, name)
    if field == "wcet":
        return _wcet_field(scenario, text, task)
    if field in ("period", "deadline"):
        return _time_field(text, task, field)
    if field.startswith("section."):
        return _section_field(text, task, field[len("section.") :])
    body = _BODY.fullmatch(field)
    if body is not None:
        return _body_field(text, task, int(body["index"]))
    raise BreakdownError(f'{at}: unknown field "{field}" (expected {", ".join(FIELDS)})')


def _task(scenario: Scenario, name: str) -> Task:
    return next(t for t in scenario.tasks if t.name == name)


def _held_after(body: Sequence[Action]) -> list[tuple[str, ...]]:
    """The mutexes held while each action runs (a lock's mutex is held from
    its own action on, an unlock's until before it)."""
    held: list[str] = []
    out: list[tuple[str, ...]] = []
    for a in body:
        if a.kind == "lock" and a.resource is not None:
            held.append(a.resource)
        out.append(tuple(held))
        if a.kind == "unlock" and a.resource is not None:
            held.remove(a.resource)
    return out


def _wcet_field(scenario: Scenario, text: str, task: Task) -> Field:
    held = _held_after(task.body)
    computes = [i for i, a in enumerate(task.body) if a.kind == "compute"]
    free = [i for i in computes if not held[i]]
    if not free:
        sections = sorted({a.resource for a in task.body if a.kind == "lock" and a.resource is not None})
        hint = " or ".join([f"{task.name}.section.{m}" for m in sections] + [f"{task.name}.body[i]"])
        raise BreakdownError(
            f"--vary {text}: every compute of {task.name} is inside a critical section, "
            f"so its execution time cannot change alone: vary {hint}"
        )
    fixed = sum(task.body[i].ticks for i in computes if held[i])
    return Field(text, task.name, "wcet", None, None, tuple(free), fixed)


def _time_field(text: str, task: Task, field: str) -> Field:
    if field == "period" and task.period is None:
        raise BreakdownError(f"--vary {text}: {task.name} has no period (one job)")
    if field == "deadline" and task.deadline is None:
        raise BreakdownError(f"--vary {text}: {task.name} has no deadline")
    kind: FieldKind = "period" if field == "period" else "deadline"
    return Field(text, task.name, kind, None, None, (), 0)


def _section_field(text: str, task: Task, mutex: str) -> Field:
    locks = [i for i, a in enumerate(task.body) if a.kind == "lock" and a.resource == mutex]
    if not locks:
        taken = sorted({a.resource for a in task.body if a.kind == "lock" and a.resource is not None})
        what = f"it locks {', '.join(taken)}" if taken else "it locks no mutex"
        raise BreakdownError(f'--vary {text}: {task.name} never locks "{mutex}" ({what})')
    if len(locks) > 1:
        places = ", ".join(f"body[{i}]" for i in locks)
        raise BreakdownError(
            f"--vary {text}: {task.name} locks {mutex} {len(locks)} times ({places}): "
            f"vary one compute with {task.name}.body[i]"
        )
    lock = locks[0]
    held = _held_after(task.body)
    inside: list[int] = []
    fixed = 0
    for i in range(lock + 1, len(task.body)):
        a = task.body[i]
        if a.kind == "unlock" and a.resource == mutex:
            break
        if a.kind != "compute":
            continue
        # Directly inside: nothing taken after the lock is held around it.
        depth = held[i].index(mutex)
        if len(held[i]) == depth + 1:
            inside.append(i)
        else:
            fixed += a.ticks
    if not inside:
        raise BreakdownError(
            f"--vary {text}: the section on {mutex} (body[{lock}]) has no compute of its own "
            f"(only in nested sections): vary {task.name}.body[i]"
        )
    return Field(text, task.name, "section", mutex, lock, tuple(inside), fixed)


def _body_field(text: str, task: Task, index: int) -> Field:
    if index >= len(task.body):
        raise BreakdownError(
            f"--vary {text}: {task.name}'s body has {len(task.body)} actions "
            f"(body[0]..body[{len(task.body) - 1}])"
        )
    a = task.body[index]
    if a.kind != "compute":
        shown = a.kind if a.resource is None else f"{a.kind} {a.resource}"
        raise BreakdownError(f'--vary {text}: body[{index}] is "{shown}", not a compute')
    return Field(text, task.name, "body", None, index, (index,), 0)


def _implicit_deadline(task: Task) -> bool:
    return task.period is not None and task.deadline == task.period


def current_value(scenario: Scenario, field: Field) -> int:
    """The field's value in the file, in ticks."""
    task = _task(scenario, field.task)
    if field.kind == "period":
        assert task.period is not None
        return task.period
    if field.kind == "deadline":
        assert task.deadline is not None
        return task.deadline
    return field.fixed + sum(task.body[i].ticks for i in field.actions)


def bounds(scenario: Scenario, field: Field) -> tuple[int, int]:
    """The values searched, in ticks: (least, greatest).

    Largest-direction fields go from `fixed` (the actions at 0: a compute of
    0 takes no time) to the task's deadline less the rest of its work (a job
    whose own work exceeds its deadline misses it whatever happens); for a
    task without a deadline, to the judged window (`span`). Periods and
    deadlines go from 1 to the larger of the file's value and that window."""
    task = _task(scenario, field.task)
    value = current_value(scenario, field)
    if field.kind in ("period", "deadline"):
        return 1, max(value, span(scenario))
    if task.deadline is None:
        return field.fixed, max(value, field.fixed + span(scenario))
    rest = sum(a.ticks for a in task.body if a.kind == "compute") - value
    return field.fixed, max(field.fixed, task.deadline - rest)


def span(scenario: Scenario) -> int:
    """The length of what a run judges: its horizon, or without a periodic
    task the latest absolute deadline."""
    horizon = scenario.horizon_ticks()
    if horizon is not None:
        return horizon
    return max((t.phase + t.deadline for t in scenario.tasks if t.deadline is not None), default=1)


def _split(total: int, weights: Sequence[int]) -> list[int]:
    """`total` ticks over len(weights) computes, in proportion to `weights`
    (equal parts when all are 0): whole ticks by the largest remainder, ties
    to the earlier action."""
    n = len(weights)
    if sum(weights) == 0:
        weights = [1] * n
    s = sum(weights)
    parts = [total * w // s for w in weights]
    left = total - sum(parts)
    order = sorted(range(n), key=lambda i: (-(total * weights[i] % s), i))
    for i in order[:left]:
        parts[i] += 1
    return parts


def with_value(scenario: Scenario, field: Field, ticks: int) -> Scenario:
    """The scenario with the field at `ticks` (within `bounds`)."""
    task = _task(scenario, field.task)
    if field.kind == "period":
        deadline = ticks if _implicit_deadline(task) else task.deadline
        new = replace(task, period=ticks, deadline=deadline)
    elif field.kind == "deadline":
        new = replace(task, deadline=ticks)
    else:
        parts = _split(ticks - field.fixed, [task.body[i].ticks for i in field.actions])
        body = list(task.body)
        for i, part in zip(field.actions, parts, strict=True):
            body[i] = replace(body[i], ticks=part)
        new = replace(task, body=tuple(body))
    tasks = tuple(new if t.name == field.task else t for t in scenario.tasks)
    return replace(scenario, tasks=tasks)


# ---------------------------------------------------------------- search


@record(frozen=True)
class Search:
    """The outcome of one search, values in ticks.

    value      the breakdown: the largest (smallest) value that passes, its
               successor (predecessor) failing; None when no value passes
    at_limit   the value is the end of the range and passes: the answer may lie
               beyond (no limit to the field, e.g. a task without a deadline)
    evaluated  every value tried, with its verdict, in the order tried
    anomalies  pairs (passes, fails) against monotonicity: a value that
               passes beyond one that fails
    """

    value: int | None
    at_limit: bool
    evaluated: tuple[tuple[int, bool], ...]
    anomalies: tuple[tuple[int, int], ...]


def search(ok: Callable[[int], bool], start: int, least: int, greatest: int, direction: Direction) -> Search:
    """The boundary of `ok` from `start`, presuming it monotone: for
    "largest", ok on [least, v] and not above; for "smallest", ok on
    [v, greatest] and not below. Doubling steps then bisection: about
    2 log2(|v - start|) + 2 evaluations, each value at most once."""
    tried: dict[int, bool] = {}

    def check(v: int) -> bool:
        if v not in tried:
            tried[v] = ok(v)
        return tried[v]

    # Work on "largest" only: for "smallest", x = -v.
    sign = 1 if direction == "largest" else -1
    lo_bound, hi_bound = (least, greatest) if sign == 1 else (-greatest, -least)

    def f(x: int) -> bool:
        return check(sign * x)

    def bisect(good: int, bad: int) -> int:
        """The last x with f(x), f(good) being true and f(bad) false."""
        while bad - good > 1:
            mid = (good + bad) // 2
            if f(mid):
                good = mid
            else:
                bad = mid
        return good

    x0 = sign * start
    value: int | None
    at_limit = False
    if f(x0):
        good, step = x0, 1
        while True:
            cand = min(good + step, hi_bound)
            if cand == good:
                at_limit = True
                bad = None
                break
            if f(cand):
                good, step = cand, step * 2
            else:
                bad = cand
                break
        if bad is not None:
            good = bisect(good, bad)
        value = sign * good
    else:
        bad, step = x0, 1
        found = None
        while True:
            cand = max(bad - step, lo_bound)
            if cand == bad:
                break
            if f(cand):
                found = cand
                break
            bad, step = cand, step * 2
        if found is None:
            value = None
        else:
            value = sign * bisect(found, bad)
    if value is not None:
        _probe(f, sign * value, lo_bound, hi_bound)
    evaluated = tuple(tried.items())
    return Search(value, at_limit, evaluated, _anomalies(evaluated, sign))


def _probe(f: Callable[[int], bool], good: int, lo_bound: int, hi_bound: int) -> None:
    """The guard against anomalies: values at doubling distances on both
    sides of the boundary (good + 2, + 4, ... and good - 1, - 2, ...), which
    a monotone judge answers no above and yes below; _anomalies reports any
    other answer."""
    step = 2
    while good < hi_bound:
        v = min(good + step, hi_bound)
        f(v)
        if v == hi_bound:
            break
        step *= 2
    step = 1
    while good > lo_bound:
        v = max(good - step, lo_bound)
        f(v)
        if v == lo_bound:
            break
        step *= 2


def _anomalies(evaluated: Sequence[tuple[int, bool]], sign: int) -> tuple[tuple[int, int], ...]:
    """(passes, fails) pairs where the passing value is beyond the failing one."""
    passing = [v for v, ok in evaluated if ok]
    failing = [v for v, ok in evaluated if not ok]
    pairs = [(p, f) for p in passing for f in failing if sign * p > sign * f]
    return tuple(sorted(pairs, key=lambda pf: (sign * pf[0], -sign * pf[1]))[:10])


# ---------------------------------------------------------------- judges


@record(frozen=True)
class Window:
    """What one simulation judges: the jobs released before `judged` ticks,
    in a run of `run` ticks (long enough for each of them to reach its
    deadline); None: no periodic task, run until everything is over."""

    judged: int | None
    run: int | None


def window(scenario: Scenario) -> Window:
    horizon = scenario.horizon_ticks()
    if horizon is None:
        return Window(None, None)
    longest = max((t.deadline or 0 for t in scenario.tasks), default=0)
    return Window(horizon, horizon + longest + 1)


def _check_size(
    scenario: Scenario, field: Field, value: int, run: int | None, limits: Limits = LIMITS
) -> None:
    """Refuses a run beyond `limits` (priora.scenario.bounds): too many jobs (a period
    varied down, a hyperperiod that explodes) or too many ticks to compute."""
    if run is not None:
        jobs = sum((run - t.phase) // t.period + 1 for t in scenario.tasks if t.period is not None)
        if jobs > limits.max_jobs:
            raise BreakdownError(
                f"--vary {field.text}: at {show(scenario, value)} one run lasts {run} ticks and releases "
                f"{jobs} jobs, more than {limits.max_jobs} (the hyperperiod grows with the period): "
                f"give [system] horizon in the file, or --max-jobs {jobs}"
            )
    work = estimate(scenario.with_horizon(run) if run is not None else scenario)
    if work.actions > limits.max_actions:
        raise BreakdownError(
            f"--vary {field.text}: at {show(scenario, value)} one run runs up to {work.actions} actions, "
            f"more than {limits.max_actions}: give [system] horizon in the file, "
            f"or --max-actions {work.actions}"
        )
    ticks = work.busy_ticks
    if ticks > limits.max_ticks:
        raise BreakdownError(
            f"--vary {field.text}: at {show(scenario, value)} one run computes for up to {ticks} ticks, "
            f"more than {limits.max_ticks}: give [system] horizon in the file, or --max-ticks {ticks}"
        )


Costs = Any  # priora.run.simulate.HostCosts or priora.costs.model.CostModel: what simulate() takes


def simulation_verdict(
    scenario: Scenario,
    field: Field,
    protocol: str,
    costs: Costs = None,
    ignore: Sequence[str] = (),
    limits: Limits = LIMITS,
) -> Callable[[int], Verdict]:
    """verdict(value): the scenario with the field at value, every mutex under
    `protocol`, run on the kernel (`run_verdict`). A value whose utilisation
    exceeds 1 fails without a run: a window of one horizon may not show the
    overload (its last jobs finish after it, within their deadlines)."""
    from priora.run.simulate import simulate

    if protocol not in PROTOCOLS:
        raise BreakdownError(f"the lab cannot simulate protocol {protocol}")
    base = scenario.with_protocol(protocol)  # narrowed to a Protocol by the test above
    skipped = [i for i, t in enumerate(scenario.tasks) if t.name in ignore]

    def verdict(value: int) -> Verdict:
        variant = with_value(base, field, value)
        u = utilisation(variant)
        if u > 1:
            return f"the demand exceeds the processor: U = {float(u):.6f} > 1"
        w = window(variant)
        _check_size(variant, field, value, w.run, limits)
        return run_verdict(simulate(variant, w.run, costs), w, skipped)

    return verdict


def run_verdict(result: Any, w: Window, ignored: Sequence[int] = ()) -> Verdict:
    """Why the run `result` (a priora.run.simulate.SimResult over the window `w`)
    fails, or None. Of its jobs released within the judged window, in this
    order: a call the kernel refused (the job skipped what it refused, so it
    did not do its work), a deadline missed (not for the tasks of `ignored`),
    a job of any task unfinished at the end of the run (more work than time,
    or a job that can never end)."""
    from priora.run import refusals

    scenario = result.scenario
    jobs = result.jobs
    judged = np.ones(len(jobs), dtype=bool)
    if w.judged is not None:
        judged = jobs["release"] < np.uint64(scenario.ticks_to_ns(w.judged))
    names = [t.name for t in scenario.tasks]
    if refusals.refused_mask(result.trace).any():
        released = {
            (int(t), int(j)): bool(ok) for t, j, ok in zip(jobs["task"], jobs["job"], judged, strict=True)
        }
        for f in refusals.find(result):
            if released.get((f.task, f.job), False):
                what = f'body[{f.action}] "{f.action_text}"' if f.action is not None else f'"{f.action_text}"'
                return (
                    f"{f.task_name} job {f.job} at {_show_ns(scenario, f.time)}: {what} refused with "
                    f"{f.error}: {f.cause}"
                )
    missed = judged & (jobs["missed"] == 1)
    if ignored:
        missed &= ~np.isin(jobs["task"], ignored)
    if missed.any():
        late = jobs[missed]
        first = late[int(np.argmin(late["deadline"]))]
        return (
            f"{names[int(first['task'])]} job {int(first['job'])} misses its deadline at "
            f"{_show_ns(scenario, int(first['deadline']))}"
        )
    open_jobs = judged & (jobs["finish"] == np.uint64(native.NEVER))
    if open_jobs.any():
        first = jobs[open_jobs][0]
        return (
            f"{names[int(first['task'])]} job {int(first['job'])}, released at "
            f"{_show_ns(scenario, int(first['release']))}, has not finished when the run ends at "
            f"{_show_ns(scenario, result.end_ns)}: the work does not fit"
        )
    return None


def _show_ns(scenario: Scenario, ns: int) -> str:
    """A kernel time (ns) in the file's unit, as the report writes it."""
    value = round(scenario.to_unit(ns), 6)
    return f"{int(value) if value.is_integer() else value} {scenario.system.time_unit}"


def simulation_judge(
    scenario: Scenario, field: Field, protocol: str, costs: Costs = None, ignore: Sequence[str] = ()
) -> Callable[[int], bool]:
    """ok(value): `simulation_verdict` passes."""
    verdict = simulation_verdict(scenario, field, protocol, costs, ignore)
    return lambda value: verdict(value) is None


def analysis_verdict(
    scenario: Scenario, field: Field, protocol: str, ignore: Sequence[str] = ()
) -> Callable[[int], Verdict]:
    """verdict(value): response-time analysis says schedulable under
    `protocol`: R_i <= D_i for every task with a deadline (but those in
    `ignore`), and a bounded R_i for every other task (the simulation's
    "unfinished work": an unbounded one gets more work than time); else its
    reason."""
    from priora.analysis import analyze

    def verdict(value: int) -> Verdict:
        result = analyze(with_value(scenario, field, value), [protocol]).protocols[protocol]
        test = result.tests["response_time"]
        if not ignore and test.passes is not True:
            return test.reason or "not schedulable"
        judged = [t.name for t in scenario.tasks if t.deadline is not None and t.name not in ignore]
        late = [name for name in judged if result.tasks[name].meets_deadline is not True]
        if late:
            return f"R > D for {', '.join(late)}"
        starved = [name for name, r in result.tasks.items() if r.unbounded]
        if starved:
            return f"{starved[0]}: R unbounded: {result.tasks[starved[0]].reason}"
        return None

    return verdict


def analysis_judge(
    scenario: Scenario, field: Field, protocol: str, ignore: Sequence[str] = ()
) -> Callable[[int], bool]:
    """ok(value): `analysis_verdict` passes."""
    verdict = analysis_verdict(scenario, field, protocol, ignore)
    return lambda value: verdict(value) is None


# ---------------------------------------------------------------- the breakdown


@record(frozen=True)
class Answer:
    """One column of one protocol: a search, or why there is none."""

    search: Search | None
    utilisation: Fraction | None  # total utilisation at the value
    reason: str | None  # no search (the protocol cannot run, the analysis refuses), or no value
    # Why the first value beyond the answer fails (the least or greatest of
    # the range when none passes); None when the search reached its limit.
    why: str | None = None


@record(frozen=True)
class ProtocolBreakdown:
    protocol: str
    simulation: Answer
    analysis: Answer


@record(frozen=True)
class Breakdown:
    scenario: Scenario  # as loaded (release times as simulated: see synchronous)
    field: Field
    value: int  # in the file, ticks
    least: int
    greatest: int
    synchronous: bool
    cost_model: str
    window: Window  # at the file's value
    protocols: dict[str, ProtocolBreakdown]
    ignored: tuple[str, ...] = ()  # tasks whose deadlines are not judged


def utilisation(scenario: Scenario) -> Fraction:
    """Total utilisation of the periodic tasks: sum of C / T."""
    return sum(
        (Fraction(sum(a.ticks for a in t.body if a.kind == "compute"), t.period)
         for t in scenario.tasks if t.period is not None),
        Fraction(0),
    )  # fmt: skip


def synchronous(scenario: Scenario) -> Scenario:
    """Every task released at 0 (the critical instant of independent tasks)."""
    return replace(scenario, tasks=tuple(replace(t, phase=0) for t in scenario.tasks))


def breakdown(
    scenario: Scenario,
    vary: str,
    protocols: Sequence[str] | None = None,
    *,
    synchronous_release: bool = False,
    costs: Costs = None,
    analysis: bool = True,
    ignore: Sequence[str] = (),
    limits: Limits = LIMITS,
) -> Breakdown:
    """The breakdown of `vary` (TASK.FIELD) under each of `protocols`
    (default: every protocol the lab simulates), by simulation with `costs`
    (None: the scenario's own cost model) and by analysis; the deadlines of
    the tasks in `ignore` are not judged. A run beyond `limits` is refused
    (BreakdownError)."""
    from priora.analysis import PROTOCOLS as ANALYSIS_PROTOCOLS
    from priora.analysis import AnalysisError

    field = parse_field(scenario, vary)
    if synchronous_release:
        scenario = synchronous(scenario)
    wanted = list(PROTOCOLS) if protocols is None else [p for p in ANALYSIS_PROTOCOLS if p in protocols]
    names = [t.name for t in scenario.tasks]
    for name in ignore:
        if name not in names:
            raise BreakdownError(
                f'--ignore {name}: no task "{name}" in {scenario.source} (tasks: {", ".join(names)})'
            )
    if not any(t.deadline is not None and t.name not in ignore for t in scenario.tasks):
        raise BreakdownError(f"{scenario.source}: no task has a deadline: no deadline can be missed")
    value = current_value(scenario, field)
    least, greatest = bounds(scenario, field)
    model = costs if costs is not None else scenario.system.cost_model
    cost_model = "zero" if model is None else getattr(model, "name", "host costs")
    out: dict[str, ProtocolBreakdown] = {}
    for protocol in wanted:
        sim = _simulation(scenario, field, protocol, value, least, greatest, costs, ignore, limits)
        ana = Answer(None, None, "not asked")
        if analysis:
            try:
                ana = _answer(
                    scenario,
                    field,
                    analysis_verdict(scenario, field, protocol, ignore),
                    value,
                    least,
                    greatest,
                )
                if ana.reason is not None:
                    ana = replace(
                        ana, reason=f"{ana.reason}: {_analysis_why(scenario, field, protocol, least)}"
                    )
            except AnalysisError as exc:
                ana = Answer(None, None, exc.reason if exc.where == "" else f"{exc.where}: {exc.reason}")
        out[protocol] = ProtocolBreakdown(protocol, sim, ana)
    return Breakdown(
        scenario,
        field,
        value,
        least,
        greatest,
        synchronous_release,
        cost_model,
        window(scenario),
        out,
        tuple(n for n in names if n in ignore),
    )


def _analysis_why(scenario: Scenario, field: Field, protocol: str, value: int) -> str:
    """Why the analysis refuses the task set at `value`: its test's reason and
    the first task's own reason."""
    from priora.analysis import analyze

    result = analyze(with_value(scenario, field, value), [protocol]).protocols[protocol]
    why = [result.tests["response_time"].reason or "not schedulable"]
    late = next((n for n, t in result.tasks.items() if t.meets_deadline is False and t.reason), None)
    if late is not None:
        why.append(f"{late}: {result.tasks[late].reason}")
    return "; ".join(why)


def _simulation(
    scenario: Scenario,
    field: Field,
    protocol: str,
    value: int,
    least: int,
    greatest: int,
    costs: Costs,
    ignore: Sequence[str],
    limits: Limits,
) -> Answer:
    if protocol not in PROTOCOLS:
        return Answer(None, None, f"the lab cannot simulate protocol {protocol} yet")
    try:
        judge = simulation_verdict(scenario, field, protocol, costs, ignore, limits)
    except ScenarioError as exc:  # e.g. pip on a FIFO mutex
        return Answer(None, None, f"{exc.where}: {exc.reason}")
    return _answer(scenario, field, judge, value, least, greatest)


def _answer(
    scenario: Scenario, field: Field, judge: Callable[[int], Verdict], value: int, least: int, greatest: int
) -> Answer:
    reasons: dict[int, str] = {}

    def ok(v: int) -> bool:
        why = judge(v)
        if why is not None:
            reasons[v] = why
        return why is None

    start = min(max(value, least), greatest)
    found = search(ok, start, least, greatest, field.direction)
    step = 1 if field.direction == "largest" else -1
    if found.value is None:
        end = least if field.direction == "largest" else greatest
        why = reasons.get(end)
        if field.direction == "largest":
            return Answer(found, None, f"no value passes, down to {show(scenario, least)}", why)
        return Answer(found, None, f"no value passes, up to {show(scenario, greatest)}", why)
    why = reasons.get(found.value + step)
    return Answer(found, utilisation(with_value(scenario, field, found.value)), None, why)


def show(scenario: Scenario, ticks: int) -> str:
    return f"{in_unit(scenario, ticks)} {scenario.system.time_unit}"

"""One set of a campaign, under each of its protocols: generate it, analyse
it, run it on the kernel, and return one row per protocol.

A pure function of the specification and the set's place (point, set): a
worker process, a Ray task or a rerun of one row computes the same rows.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from priora.campaign.spec import Campaign
from priora.generate import GenerateError, derive_seed, generate
from priora.record import replace
from priora.scenario.model import Scenario

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from priora.scenario.model import Protocol

Row = dict[str, Any]

# One run may not release more jobs than this: a set whose hyperperiod
# explodes gets an error row instead of running for hours.
MAX_JOBS_PER_RUN = 2_000_000


def evaluate(
    campaign: Campaign, point: int, set_index: int, protocols: Sequence[int] | None = None
) -> list[Row]:
    """The rows of set `set_index` at `point`, for the protocols at these
    indices of campaign.protocols (default: all)."""
    wanted = range(len(campaign.protocols)) if protocols is None else protocols
    params = campaign.params[point]
    seed = derive_seed(campaign.seed, point, set_index)
    base: Row = {
        "point": point,
        "axis_value": campaign.points[point],
        "set_index": set_index,
        "seed": seed,
    }
    try:
        ts = generate(params, seed)
    except GenerateError as exc:
        return [_row(campaign, base, k, error=str(exc)) for k in wanted]
    scenario = set_scenario(campaign, point, set_index, ts.toml())
    base |= {
        "tasks": len(ts.tasks),
        "target_utilisation": ts.target,
        "utilisation": float(ts.utilisation),
        "hyperperiod": _unit(scenario, ts.hyperperiod),
    }
    horizon = run_horizon(campaign, scenario)
    rows = []
    analysed: dict[Protocol, Row] | None = None
    for k in wanted:
        protocol = campaign.protocols[k]
        row = _row(campaign, base, k, horizon=_unit(scenario, horizon))
        variant = scenario.with_protocol(protocol)
        if "analysis" in campaign.runs:
            if analysed is None:  # every protocol at once: the task set is extracted once
                analysed = _analysis(scenario, [campaign.protocols[i] for i in wanted])
            row |= analysed[protocol]
        if "simulation" in campaign.runs:
            row |= _simulation(variant, horizon)
        if "bound_response" in row and "response" in row:
            row["exceeded"] = _exceeded(json.loads(row["bound_response"]), json.loads(row["response"]))
        row["finding"] = int(row.get("analysis") == 1 and (row.get("misses") or 0) > 0)
        rows.append(row)
    return rows


def set_scenario(campaign: Campaign, point: int, set_index: int, text: str) -> Scenario:
    """The generated file read back by the scenario loader, as `priora
    simulate` reads it, under the campaign's cost model."""
    from priora.costs import model as costs
    from priora.scenario.loader import parse

    scenario = parse(text, f"point {point} set {set_index}", check_default_horizon=False)
    if campaign.cost_model == "zero":
        return scenario
    model = costs.named(campaign.cost_model, campaign.cpu_hz, tick_hz=scenario.system.tick_hz)
    return replace(scenario, system=replace(scenario.system, cost_model=model))


def _row(campaign: Campaign, base: Row, k: int, **values: Any) -> Row:
    return {
        "row": campaign.row(base["point"], base["set_index"], k),
        **base,
        "protocol": campaign.protocols[k],
        "finding": 0,
        **values,
    }


def _unit(scenario: Scenario, ticks: int) -> float:
    from priora.scenario.model import in_unit

    return float(in_unit(scenario, ticks))


def run_horizon(campaign: Campaign, scenario: Scenario) -> int:
    """Ticks within which jobs are released and judged: the hyperperiod plus
    the largest phase, the busy period plus the largest phase, or the time
    the specification gives."""
    if isinstance(campaign.horizon, int):
        return campaign.horizon
    hyper = scenario.default_horizon()
    assert hyper is not None  # every generated task is periodic
    if campaign.horizon == "hyperperiod":
        return hyper
    phase = max(t.phase for t in scenario.tasks)
    return min(hyper, busy_period(scenario, hyper - phase) + phase)


def busy_period(scenario: Scenario, limit: int) -> int:
    """The longest busy period from a synchronous release, the longest
    critical section of any task counted as blocking: the least L with
    L = B + sum ceil(L / T_i) C_i; `limit` (the hyperperiod) when the set
    uses the whole processor or L would pass it."""
    from priora.analysis.taskset import extract

    ts = extract(scenario)
    work = [(t.wcet, t.period) for t in ts.tasks if t.period is not None]
    if sum((Fraction(c, p) for c, p in work), Fraction(0)) >= 1:
        return limit
    blocking = max((m.longest for m in ts.mutexes.values()), default=0)
    length = blocking + sum(c for c, _ in work)
    while length < limit:
        following = blocking + sum(math.ceil(length / p) * c for c, p in work)
        if following == length:
            return length
        length = following
    return limit


def _analysis(scenario: Scenario, protocols: Sequence[Protocol]) -> dict[Protocol, Row]:
    """The response-time analysis of the set under each protocol. The
    analysis' view of a set does not depend on its mutexes' protocol
    (priora.analysis.taskset), so one call analyses the set under all of
    them, as each protocol's variant would be analysed alone."""
    from priora.analysis import analyze

    results = analyze(scenario, protocols, tests=["response_time"]).protocols
    rows: dict[Protocol, Row] = {}
    for protocol in protocols:
        result = results[protocol]
        test = result.tests["response_time"]
        passes = None if test.passes is None else int(test.passes)
        rows[protocol] = {
            "analysis": passes,
            "analysis_reason": result.reason or test.reason,
            "bound_response": _json({n: _ticks(scenario, t.response) for n, t in result.tasks.items()}),
            "bound_blocking": _json({n: _ticks(scenario, t.blocking) for n, t in result.tasks.items()}),
        }
    return rows


def _ticks(scenario: Scenario, ticks: int | None) -> float | None:
    return None if ticks is None else _unit(scenario, ticks)


def _simulation(scenario: Scenario, horizon: int) -> Row:
    """Runs the set until every job released before `horizon` has reached its
    deadline, and judges those jobs: misses, and per task the worst response
    and blocking (a job still running at the end counts with its time so far).
    Only the verdict is computed (priora.run.simulate.verdict), not a row per job."""
    from priora.breakdown.search import window
    from priora.run.simulate import verdict
    from priora.scenario.bounds import DEFAULT_MAX_TICKS, estimate

    w = window(scenario.with_horizon(horizon))
    assert w.run is not None and w.judged is not None
    jobs_needed = sum((w.run - t.phase) // t.period + 1 for t in scenario.tasks if t.period is not None)
    if jobs_needed > MAX_JOBS_PER_RUN:
        return {"error": f"the run would release {jobs_needed} jobs, more than {MAX_JOBS_PER_RUN}"}
    ticks = estimate(scenario.with_horizon(w.run)).busy_ticks
    if ticks > DEFAULT_MAX_TICKS:
        return {"error": f"the run would compute for up to {ticks} ticks, more than {DEFAULT_MAX_TICKS}"}
    judged = verdict(scenario, w.run, w.judged)
    worst: dict[str, float | None] = {}
    blocked: dict[str, float | None] = {}
    for task, v in zip(scenario.tasks, judged.tasks, strict=True):
        worst[task.name] = _ns(scenario, v.worst_response_ns) if v.jobs else None
        blocked[task.name] = _ns(scenario, v.worst_blocked_ns) if v.jobs else None
    misses = sum(v.misses for v in judged.tasks)
    return {
        "simulated": int(misses == 0),
        "misses": misses,
        "jobs": sum(v.jobs for v in judged.tasks),
        "response": _json(worst),
        "blocking": _json(blocked),
    }


def _exceeded(bounds: dict[str, float | None], observed: dict[str, float | None]) -> int:
    """How many tasks the kernel took longer with than their bound R_i."""
    return sum(
        1 for name, bound in bounds.items() if bound is not None and (observed.get(name) or 0) > bound + 1e-9
    )


def _ns(scenario: Scenario, ns: Any) -> float:
    return round(scenario.to_unit(int(ns)), 6)


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))

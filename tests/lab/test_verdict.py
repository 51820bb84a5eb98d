"""The verdict of a run (lab/native/verdict.c, priora.run.simulate.verdict), the
campaigns' path: per task the same worst response, worst blocking, judged
jobs and misses as the full path's job rows and report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from priora.breakdown.search import window
from priora.generate import generate, parse_params
from priora.report.build import build_report
from priora.run import native
from priora.run.simulate import TaskVerdict, simulate, verdict
from priora.scenario.loader import load, parse
from priora.scenario.model import PROTOCOLS, Action, Resource, Scenario, System, Task

ROOT = Path(__file__).resolve().parents[2]

# Sets that block, nest, miss (over 100% of the CPU), have constrained
# deadlines and random phases, at the campaigns' 10 kHz tick.
GENERATORS: dict[str, dict[str, object]] = {
    "reference": {
        "tasks": 10, "utilisation": 0.7, "task_utilisation_max": 0.5, "periods": [10, 20, 25, 50, 100],
        "mutexes": 3, "sections_per_job": [1, 2], "section_length": [0.05, 0.2], "nesting_depth": 2,
    },
    "overloaded": {
        "tasks": 6, "utilisation": 1.05, "mutexes": 2, "sections_per_job": [1, 3],
        "section_length": [0.1, 0.4], "nesting_depth": 2, "deadlines": "constrained", "priorities": "dm",
        "phases": "random",
    },
    "tight": {
        "tasks": 5, "utilisation": 0.9, "mutexes": 3, "sections_per_job": [1, 3],
        "section_length": [0.05, 0.3], "nesting_depth": 3, "deadlines": "arbitrary", "sharing": "chain",
    },
}  # fmt: skip


def generated(name: str, draw: int) -> Scenario:
    """Task set number `draw` of generator `name`."""
    ts = generate(parse_params("g.toml", GENERATORS[name]), draw)
    return parse(ts.toml(), f"{name} {draw}", check_default_horizon=False)


def from_rows(scenario: Scenario, run: int, judged: int) -> tuple[TaskVerdict, ...]:
    """The full path: every job's row (pr_lab_account), reduced per task as
    the campaigns did before the verdict."""
    result = simulate(scenario, run)
    jobs = result.jobs[result.jobs["release"] < np.uint64(scenario.ticks_to_ns(judged))]
    finish = np.where(jobs["finish"] == native.NEVER, np.uint64(result.end_ns), jobs["finish"])
    response = finish - jobs["release"]
    out = []
    for i in range(len(scenario.tasks)):
        mine = jobs["task"] == i
        out.append(
            TaskVerdict(
                int(mine.sum()),
                int((jobs["missed"][mine] == 1).sum()),
                int(response[mine].max(initial=0)),
                int(jobs["blocked"][mine].max(initial=0)),
            )
        )
    return tuple(out)


@pytest.mark.parametrize("name", GENERATORS)
def test_the_verdict_equals_the_job_rows_under_every_protocol(name: str) -> None:
    seen: dict[str, int] = {"misses": 0, "blocked": 0, "unjudged": 0}
    for draw in (1, 2, 3):
        base = generated(name, draw)
        for protocol in PROTOCOLS:
            scenario = base.with_protocol(protocol)
            w = window(scenario.with_horizon(min(scenario.default_horizon() or 10_000, 10_000)))
            assert w.run is not None and w.judged is not None
            expected = from_rows(scenario, w.run, w.judged)
            got = verdict(scenario, w.run, w.judged)
            assert got.tasks == expected, (name, draw, protocol)
            assert got.judged_ns == scenario.ticks_to_ns(w.judged)
            seen["misses"] += sum(t.misses for t in got.tasks)
            seen["blocked"] += sum(t.worst_blocked_ns > 0 for t in got.tasks)
            seen["unjudged"] += len(simulate(scenario, w.run).jobs) - sum(t.jobs for t in got.tasks)
    # The comparison covered jobs that block, and (but for the reference
    # sets, which are schedulable) misses and jobs released after the judged time.
    assert seen["blocked"] > 0
    if name != "reference":
        assert seen["misses"] > 0 and seen["unjudged"] > 0


def test_the_verdict_of_a_whole_run_equals_the_report() -> None:
    for protocol in PROTOCOLS:
        scenario = generated("overloaded", 4).with_protocol(protocol).with_horizon(2000)
        report = build_report(simulate(scenario))
        got = verdict(scenario, None, 2000)
        for task, v in zip(scenario.tasks, got.tasks, strict=True):
            row: Any = report.tasks[task.name]
            assert (v.jobs, v.misses) == (row.jobs, row.misses), (protocol, task.name)
            assert scenario.to_unit(v.worst_blocked_ns) == row.max_blocked, (protocol, task.name)
            if row.max_response is not None and row.jobs == len(
                [j for j in report.jobs if j.task == task.name and j.finish is not None]
            ):
                assert scenario.to_unit(v.worst_response_ns) == row.max_response, (protocol, task.name)


def compute(ticks: int) -> Action:
    return Action("compute", ticks=ticks)


def test_a_job_unfinished_at_the_end_counts_up_to_the_end() -> None:
    # W (p2, at 0): compute 1, down C (never upped), compute 1.
    # X (p1, period 20, deadline 3): compute 2, released at 0, 20, 40, ...
    # W runs [0,1) and blocks on C at 1 until the end (10 ms): response 10
    # ms, blocked 9 ms, no deadline, not missed. X's only job runs [1,3).
    res = (Resource("C", "counting", "none", 0, None, "priority"),)
    tasks = (
        Task("W", 2, None, 0, None, (compute(1), Action("down", "C"), compute(1))),
        Task("X", 1, 20, 0, 3, (compute(2),)),
    )
    scenario = Scenario("r", System(1000, "ms", 10, "none"), res, tasks)
    got = verdict(scenario, None, 10)
    assert got.end_ns == 10_000_000
    assert got.tasks == (TaskVerdict(1, 0, 10_000_000, 9_000_000), TaskVerdict(1, 0, 3_000_000, 0))
    # Judged before tick 0: no job counts.
    assert verdict(scenario, None, 0).tasks == (TaskVerdict(0, 0, 0, 0), TaskVerdict(0, 0, 0, 0))


def test_a_deadline_passed_at_the_end_is_a_miss_and_one_after_it_is_not() -> None:
    # A (p1, period 10, deadline 4): compute 6 per job; the run ends at 14 ms.
    # Job 1 finishes at 6, after its deadline 4: missed. Job 2 (released at
    # 10, deadline 14) is unfinished at the end, its deadline at the end:
    # missed. With the run ending at 13, job 2's deadline is after the end.
    tasks = (Task("A", 1, 10, 0, 4, (compute(6),)),)
    scenario = Scenario("m", System(1000, "ms", 14, "none"), (), tasks)
    assert verdict(scenario, 14, 14).tasks == (TaskVerdict(2, 2, 6_000_000, 0),)
    assert verdict(scenario, 13, 13).tasks == (TaskVerdict(2, 1, 6_000_000, 0),)


def test_the_timer_service_is_no_task_of_the_verdict() -> None:
    scenario = load(ROOT / "examples" / "timer_release.toml")
    horizon = scenario.horizon_ticks()
    assert horizon is not None and scenario.timers
    got = verdict(scenario, horizon, horizon)
    assert len(got.tasks) == len(scenario.tasks)
    assert got.tasks == from_rows(scenario, horizon, horizon)


CAMPAIGN = """
[campaign]
sets = 3
protocols = ["none", "pip", "pcp", "ipcp", "npcs", "rcs"]
run = ["analysis", "simulation"]
horizon = 3000

[campaign.axis]
parameter = "utilisation"
points = [0.95]

[generator]
tasks = 6
mutexes = 3
sections_per_job = [1, 3]
section_length = [0.1, 0.4]
nesting_depth = 2
deadlines = "constrained"
priorities = "dm"
"""


def test_the_campaign_rows_are_the_full_paths(tmp_path: Path) -> None:
    """A campaign's row: the analysis of all protocols at once equals each
    protocol's variant analysed alone, and the verdict equals the job rows."""
    import json

    from priora.analysis import analyze
    from priora.campaign import load as load_campaign
    from priora.campaign.evaluate import evaluate, run_horizon, set_scenario
    from priora.generate import derive_seed
    from priora.scenario.model import in_unit

    spec = tmp_path / "c.toml"
    spec.write_text(CAMPAIGN)
    campaign = load_campaign(spec)
    misses = 0
    for index in range(campaign.sets):
        rows = evaluate(campaign, 0, index)
        ts = generate(campaign.params[0], derive_seed(campaign.seed, 0, index))
        scenario = set_scenario(campaign, 0, index, ts.toml())
        w = window(scenario.with_horizon(run_horizon(campaign, scenario)))
        assert w.run is not None and w.judged is not None
        for row in rows:
            variant = scenario.with_protocol(row["protocol"])
            alone = analyze(variant, [row["protocol"]], tests=["response_time"]).protocols[row["protocol"]]
            bounds = {
                n: None if t.response is None else float(in_unit(variant, t.response))
                for n, t in alone.tasks.items()
            }
            assert json.loads(row["bound_response"]) == bounds
            test = alone.tests["response_time"]
            assert row["analysis"] == (None if test.passes is None else int(test.passes))
            assert row["analysis_reason"] == (alone.reason or test.reason)
            expected = from_rows(variant, w.run, w.judged)
            assert row["jobs"] == sum(t.jobs for t in expected)
            assert row["misses"] == sum(t.misses for t in expected)
            worst = {
                task.name: round(variant.to_unit(t.worst_response_ns), 6) if t.jobs else None
                for task, t in zip(variant.tasks, expected, strict=True)
            }
            assert json.loads(row["response"]) == worst
            misses += row["misses"]
    assert misses > 0


def test_the_variants_of_a_set_share_their_compiled_tasks_and_nothing_else_does() -> None:
    from priora.record import replace
    from priora.run.compiled import compile_scenario, kernel_task

    s = generated("reference", 5)
    first = compile_scenario(s.with_protocol("pip")).tasks
    assert compile_scenario(s.with_protocol("pcp")).tasks is first
    # The same tasks with their mutexes in another order: other semaphore ids.
    swapped = replace(s, resources=tuple(reversed(s.resources)))
    again = compile_scenario(swapped).tasks
    assert again == tuple(kernel_task(swapped, t) for t in swapped.tasks) and again != first
    faster = replace(s, system=replace(s.system, tick_hz=20_000))
    assert compile_scenario(faster).tasks == tuple(kernel_task(faster, t) for t in faster.tasks) != first


def test_jittered_and_sporadic_jobs_count_their_deadlines_from_their_arrival() -> None:
    # examples/sporadic_jitter.toml: jobs released after their arrival (jitter)
    # and sporadic arrivals; the verdict's misses are the job rows', whose
    # deadlines count from each job's arrival (its ARRIVAL record).
    scenario = load(ROOT / "examples" / "sporadic_jitter.toml")
    horizon = scenario.horizon_ticks()
    assert horizon is not None
    for protocol in PROTOCOLS:
        s = scenario.with_protocol(protocol)
        expected = from_rows(s, horizon, horizon)
        assert verdict(s, horizon, horizon).tasks == expected, protocol
    arrivals = simulate(scenario).trace["event"] == native.EVENT["ARRIVAL"]
    assert arrivals.sum() > 0  # the run has jobs with an arrival before their release
    # A job released j ticks after its arrival computes 3: it misses a
    # deadline of 6 from its arrival when j >= 4, never one from its release.
    jittered = parse(
        "[system]\nhorizon = 200\n[tasks.J]\npriority = 5\nperiod = 10\ndeadline = 6\njitter = 5\nseed = 7\n"
        'body = ["compute 3"]\n',
        "j.toml",
    )
    got = verdict(jittered, 200, 200).tasks
    assert got == from_rows(jittered, 200, 200)
    assert 0 < got[0].misses < got[0].jobs

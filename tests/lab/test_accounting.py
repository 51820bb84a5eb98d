"""The C job accounting (lab/native/metrics.c) at the edges of a run."""

from __future__ import annotations

from priora import native
from priora.model import Action, Resource, Scenario, System, Task
from priora.simulate import simulate


def compute(ticks: int) -> Action:
    return Action("compute", ticks=ticks)


def test_a_job_still_blocked_at_the_end_counts_its_wait_up_to_the_end() -> None:
    # W (p2, at 0): compute 1, down C (never upped), compute 1.
    # X (p1, period 20): compute 2.
    # W runs [0,1) and blocks on C at 1; X runs [1,3); the run stops at 10 ms.
    # W's only job: blocked from 1 to the end (9 ms); inverted while X ran (2 ms);
    # never finished, no deadline: not missed.
    res = (Resource("C", "counting", "none", 0, None, "priority"),)
    tasks = (
        Task("W", 2, None, 0, None, (compute(1), Action("down", "C"), compute(1))),
        Task("X", 1, 20, 0, None, (compute(2),)),
    )
    r = simulate(Scenario("r", System(1000, "ms", 10, "none"), res, tasks))
    w = r.jobs[r.jobs["task"] == 0][0]
    assert int(w["blocked"]) == 9_000_000
    assert int(w["inverted"]) == 2_000_000
    assert int(w["finish"]) == native.NEVER
    assert int(w["missed"]) == 0
    assert r.end_ns == 10_000_000

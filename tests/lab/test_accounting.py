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


def test_no_wait_failures_count_as_timeouts_and_other_failures_as_errors() -> None:
    # L (p1, at 0): lock S, compute 5, unlock S.  (holds S over [0,5))
    # H (p3, at 1): lock S timeout 0 (fails at once: S held), down C timeout 0 (C is 0: fails
    # at once), down C timeout 1 (waits from 1, times out at 2), up B twice (B is binary,
    # initial 0: the second up is beyond its max: PR_EOVERFLOW, an error), compute 1.
    # H's job: 3 timeouts, 1 error, blocked 1 (1 to 2), finishes at 3.
    res = (
        Resource("S", "mutex", "none", 1, None, "priority"),
        Resource("C", "counting", "none", 0, None, "priority"),
        Resource("B", "binary", "none", 0, 1, "priority"),
    )
    tasks = (
        Task("L", 1, None, 0, None, (Action("lock", "S"), compute(5), Action("unlock", "S"))),
        Task(
            "H",
            3,
            None,
            1,
            None,
            (
                Action("lock", "S", timeout=0),
                Action("unlock", "S"),
                Action("down", "C", timeout=0),
                Action("down", "C", timeout=1),
                Action("up", "B"),
                Action("up", "B"),
                compute(1),
            ),
        ),
    )
    r = simulate(Scenario("r", System(1000, "ms", None, "none"), res, tasks))
    h = r.jobs[r.jobs["task"] == 1][0]
    assert (int(h["timeouts"]), int(h["errors"])) == (3, 1)
    assert int(h["blocked"]) == 1_000_000
    assert int(h["finish"]) == 3_000_000


def test_a_hold_still_open_at_the_end_counts_up_to_the_end() -> None:
    # L (p1, at 0) locks S and computes 20; the run stops at 5 ms: S held for 5 ms.
    res = (Resource("S", "mutex", "pip", 1, None, "priority"),)
    tasks = (Task("L", 1, None, 0, None, (Action("lock", "S"), compute(20), Action("unlock", "S"))),)
    r = simulate(Scenario("r", System(1000, "ms", 5, "pip"), res, tasks))
    assert r.semaphores[0].longest_hold_ns == 5_000_000


def test_inverted_time_of_a_backlog_of_pending_jobs() -> None:
    # H (p2, period 1) blocks forever on C in its first job, so its jobs pile up;
    # L (p1) computes all the time. Over 5 ms every pending job of H accrues the time L
    # ran after its release: job k (released at k-1) is inverted 5 - (k - 1) ms, except
    # job 1, which ran [0,0] then blocked: inverted from 0 as well.
    res = (Resource("C", "counting", "none", 0, None, "priority"),)
    tasks = (
        Task("H", 2, 1, 0, 1, (Action("down", "C"),)),
        Task("L", 1, None, 0, None, (compute(100),)),
    )
    r = simulate(Scenario("r", System(1000, "ms", 5, "none"), res, tasks))
    h = r.jobs[r.jobs["task"] == 0]
    assert [int(j["inverted"]) // 1_000_000 for j in h] == [5, 4, 3, 2, 1]

"""The C job accounting (lab/native/metrics.c) at the edges of a run."""

from __future__ import annotations

from priora.run import native
from priora.run.simulate import simulate
from priora.scenario.model import Action, Resource, Scenario, System, Task


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


# ---------------------------------------------------------------- the protocols' events


def lock(name: str, timeout: int | None = None) -> Action:
    return Action("lock", name, timeout=timeout)


def unlock(name: str) -> Action:
    return Action("unlock", name)


def mutex(name: str, protocol: str, ceiling: int | None = None) -> Resource:
    return Resource(name, "mutex", protocol, 1, None, "priority", ceiling)  # type: ignore[arg-type]


def test_a_wait_on_the_system_ceiling_is_blocked_time_and_inverted_time_stays_exact() -> None:
    # pcp, ceilings 3. L (p1, at 0): lock S, compute 4, unlock S. H (p3, at 1):
    # lock T (free), compute 1, unlock T. M (p2, at 1): compute 1.
    # 1: H asks for the free T: blocked by S's ceiling (BLOCK, CEILING), L
    # inherits 3 and runs 1-4 (M waits: 2 < 3); 4: L unlocks S, H is woken to
    # try again (WAKE PR_EAGAIN), takes T, 4-5. M 5-6.
    # H: blocked 1-4 (3), inverted 3 (L, below H, ran 1-4); T held 4-5.
    # M: inverted 3 too (L ran 1-4 while M was released), never blocked.
    res = (mutex("S", "pcp", 3), mutex("T", "pcp", 3))
    tasks = (
        Task("L", 1, None, 0, None, (lock("S"), compute(4), unlock("S"))),
        Task("H", 3, None, 1, None, (lock("T"), compute(1), unlock("T"))),
        Task("M", 2, None, 1, None, (compute(1),)),
    )
    r = simulate(Scenario("r", System(1000, "ms", None, "pcp"), res, tasks))
    events = [native.EVENT_NAME[int(e)] for e in r.trace["event"]]
    assert "CEILING" in events
    wake = r.trace[r.trace["event"] == native.EVENT["WAKE"]]
    assert [int(w["result"]) for w in wake] == [native.PR_EAGAIN]
    ms = 1_000_000
    h, m = r.jobs[1], r.jobs[2]
    assert (int(h["blocked"]), int(h["inverted"]), int(h["finish"])) == (3 * ms, 3 * ms, 5 * ms)
    assert (int(m["blocked"]), int(m["inverted"]), int(m["finish"])) == (0, 3 * ms, 6 * ms)
    assert (int(h["timeouts"]), int(h["errors"])) == (0, 0)
    # The holds: S by L 0-4; T by H 4-5 (taken when it ran, not handed over).
    assert [c.longest_hold_ns for c in r.semaphores] == [4 * ms, 1 * ms]


def test_a_timeout_on_the_system_ceiling_counts_once() -> None:
    # pcp, ceilings 3. L (p1, at 0): lock S, compute 5, unlock S.
    # H (p3, at 1): lock T timeout 2 (until tick 3), compute 1, unlock T.
    # H waits on the ceiling from 1; its timeout fires at 3 (TIMEOUT, WAKE
    # PR_ETIMEDOUT, then its DOWN PR_ETIMEDOUT): one timeout, blocked 1-3.
    res = (mutex("S", "pcp", 3), mutex("T", "pcp", 3))
    tasks = (
        Task("L", 1, None, 0, None, (lock("S"), compute(5), unlock("S"))),
        Task("H", 3, None, 1, None, (lock("T", timeout=2), compute(1), unlock("T"))),
    )
    r = simulate(Scenario("r", System(1000, "ms", None, "pcp"), res, tasks))
    h = r.jobs[1]
    assert (int(h["timeouts"]), int(h["errors"]), int(h["blocked"])) == (1, 0, 2_000_000)
    assert r.scripts[1].timeouts == 1


def test_a_retry_after_the_timeout_tick_counts_as_a_timeout() -> None:
    # pcp, ceilings 5. U (p5, at 0): lock T, delay 2, unlock T, compute 2,
    # lock T, delay 1, unlock T. H (p3, at 1): lock S timeout 2 (until tick
    # 3), compute 1, unlock S.
    # 1: H asks for the free S: T (ceiling 5, held by U, delayed) blocks it.
    # 2: U's delay ends; U unlocks T: H is woken to try again (its timer is
    # cancelled), but U computes 2-4, locks T again and delays. 4: H tries
    # again, past its timeout tick, and T blocks it again: it gives up with
    # PR_ETIMEDOUT, with no TIMEOUT record, and skips its section.
    # One timeout; blocked 1-2.
    res = (mutex("S", "pcp", 5), mutex("T", "pcp", 5))
    delay = Action("delay", ticks=2)
    tasks = (
        Task(
            "U", 5, None, 0, None, (lock("T"), delay, unlock("T"), compute(2), lock("T"), delay, unlock("T"))
        ),
        Task("H", 3, None, 1, None, (lock("S", timeout=2), compute(1), unlock("S"))),
    )
    r = simulate(Scenario("r", System(1000, "ms", None, "pcp"), res, tasks))
    events = [native.EVENT_NAME[int(e)] for e in r.trace["event"]]
    assert "TIMEOUT" not in events
    down = r.trace[(r.trace["event"] == native.EVENT["DOWN"]) & (r.trace["task"] == 1)]
    assert [(int(d["time"]), int(d["result"])) for d in down] == [(4_000_000, native.PR_ETIMEDOUT)]
    h = r.jobs[1]
    assert (int(h["timeouts"]), int(h["errors"]), int(h["blocked"])) == (1, 0, 1_000_000)
    assert int(h["finish"]) == 4_000_000
    assert r.scripts[1].timeouts == 1


def test_rcs_nested_restarts_lose_work_once_as_the_interpreter_counts_it() -> None:
    # rcs. L (p1, at 0): lock A, compute 1, lock B, compute 2, unlock B,
    # compute 1, unlock A, compute 1.
    # X (p2, at 2): lock B, compute 1, unlock B.  (takes B from L at 2)
    # Y (p3, at 4): lock A, compute 1, unlock A.  (takes A from L at 4)
    # 0: L takes A, 0-1; takes B, 1-2. 2: X aborts L's B section, 2-3. L at 3:
    # compute stops, unlock B -> PR_EABORTED: restart at "lock B" (lost: 1-2,
    # 1 ms), takes B, 3-4. 4: Y aborts L's A section, 4-5. L at 5: compute
    # stops, unlock B ok, compute 1 stops, unlock A -> PR_EABORTED: restart
    # at "lock A" (lost: everything since its lock at 0: 0-1, 1-2 already
    # counted, 3-4: 3 ms in all, counted once), then the whole section 5-9
    # and 9-10. L: 2 aborts, 3 ms lost; no error.
    res = (mutex("A", "rcs"), mutex("B", "rcs"))
    tasks = (
        Task("L", 1, None, 0, None, (lock("A"), compute(1), lock("B"), compute(2), unlock("B"), compute(1),
                                      unlock("A"), compute(1))),
        Task("X", 2, None, 2, None, (lock("B"), compute(1), unlock("B"))),
        Task("Y", 3, None, 4, None, (lock("A"), compute(1), unlock("A"))),
    )  # fmt: skip
    r = simulate(Scenario("r", System(1000, "ms", None, "rcs"), res, tasks))
    ms = 1_000_000
    l_job = r.jobs[0]
    assert (int(l_job["aborts"]), int(l_job["lost"]), int(l_job["errors"])) == (2, 3 * ms, 0)
    assert (r.scripts[0].aborts, r.scripts[0].lost_ns, r.scripts[0].errors) == (2, 3 * ms, 0)
    assert int(l_job["finish"]) == 10 * ms
    assert [c.aborts for c in r.semaphores] == [1, 1]
    # The holds end at a take-over or an unlock: A by L 0-4; B by L 1-2, by X
    # 2-3, by L again 3-5 (preempted by Y 4-5, unlocked at 5).
    assert [c.longest_hold_ns for c in r.semaphores] == [4 * ms, 2 * ms]


def test_the_accounting_agrees_with_the_interpreter_on_random_sets() -> None:
    # Under every protocol, the job rows' timeouts, errors, aborts and lost
    # work (read from the trace) add up per task to what the scenario
    # interpreter counted itself (pr_script_t).
    import random

    from test_analysis import random_task_set

    from priora.scenario.loader import parse
    from priora.scenario.model import NEEDS_PRIORITY_ORDER, PROTOCOLS

    rng = random.Random(5)
    checked = {p: 0 for p in PROTOCOLS}
    lost = 0
    for _ in range(150):
        s = parse(random_task_set(rng), "random.toml")
        for protocol in PROTOCOLS:
            if protocol in NEEDS_PRIORITY_ORDER and any(r.order == "fifo" for r in s.resources):
                continue
            r = simulate(s.with_protocol(protocol))
            for index, script in enumerate(r.scripts):
                jobs = r.jobs[r.jobs["task"] == index]
                sums = tuple(int(jobs[c].sum()) for c in ("timeouts", "errors", "aborts", "lost"))
                assert sums == (script.timeouts, script.errors, script.aborts, script.lost_ns), protocol
                lost += script.lost_ns
            checked[protocol] += 1
    assert min(checked.values()) > 100 and lost > 0

"""The shipped example scenarios (examples/*.toml): each loads, and each runs
on the kernel's host port to exactly the job table worked out by hand in the
comments, in the file's time unit (every example is at 1000 Hz in ms, so one
tick is one ms).

Rules used in the hand schedules (docs/semantics.md):
- the most urgent ready task runs; an equal one never preempts;
- a call made at the very instant of a tick runs before that tick: a job that
  computes up to t and then blocks or ends does so before the releases of t;
- an up that finds a waiter hands the unit (or the mutex) over inside the up;
- under pip a holder runs at the priority of its most urgent waiter, along the
  chain, and drops back at once when it unlocks;
- a job ends at the end of its body: a task preempted at its last unlock
  finishes only when it runs again.
Columns (lab/native/metrics.h): blocked = time blocked on a semaphore;
inverted = time during which a task of lower *base* priority ran while the job
was released and unfinished (a boosted holder counts); missed only for a miss
that happened; finish None = unfinished when the run ended.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from priora.errors import ScenarioError
from priora.record import replace
from priora.report.build import build_report
from priora.run import native
from priora.run.simulate import SimResult, simulate
from priora.scenario.loader import load, parse
from priora.scenario.model import NS_PER_SECOND, UNITS_PER_SECOND, Action, Resource, Scenario, System

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from priora.scenario.model import Protocol

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SHIPPED = (
    "chain", "client_server", "deadlock", "interrupt_event", "inversion", "minix_prodcons", "producer_consumer",
    "protocols", "queue_prodcons", "round_robin", "rtmach_benchmark1", "sporadic_jitter",
    "timer_release", "timeshare",
)  # fmt: skip

Time = int | Fraction


class Job(NamedTuple):
    task: str
    job: int
    release: Time
    start: Time | None
    finish: Time | None
    response: Time | None
    blocked: Time
    inverted: Time
    timeouts: int
    missed: bool
    aborts: int = 0  # rcs: sections of the job aborted and restarted
    lost: Time = 0  # rcs: CPU time of the job lost in them


# ---------------------------------------------------------------- helpers


def example(name: str) -> Scenario:
    return load(EXAMPLES / f"{name}.toml")


def in_unit(scenario: Scenario, ns: int) -> Time:
    """Kernel ns in the file's time unit, exactly (an int when whole)."""
    unit = scenario.system.time_unit
    per_second = scenario.system.tick_hz if unit == "tick" else UNITS_PER_SECOND[unit]
    value = Fraction(ns * per_second, NS_PER_SECOND)
    return int(value) if value.denominator == 1 else value


def job_row(scenario: Scenario, row: Any) -> Job:
    def maybe(ns: int) -> Time | None:
        return None if ns == native.NEVER else in_unit(scenario, ns)

    release, finish = int(row["release"]), int(row["finish"])
    return Job(
        task=scenario.tasks[int(row["task"])].name,
        job=int(row["job"]),
        release=in_unit(scenario, release),
        start=maybe(int(row["start"])),
        finish=maybe(finish),
        response=None if finish == native.NEVER else in_unit(scenario, finish - release),
        blocked=in_unit(scenario, int(row["blocked"])),
        inverted=in_unit(scenario, int(row["inverted"])),
        timeouts=int(row["timeouts"]),
        missed=int(row["missed"]) == 1,
        aborts=int(row["aborts"]),
        lost=in_unit(scenario, int(row["lost"])),
    )


def job_table(result: SimResult) -> list[Job]:
    """Every job of the run, in release order."""
    return [job_row(result.scenario, row) for row in result.jobs]


def jobs_of(table: list[Job], task: str) -> list[Job]:
    return [j for j in table if j.task == task]


# ---------------------------------------------------------------- every file


def test_the_examples_are_shipped() -> None:
    assert sorted(p.stem for p in EXAMPLES.glob("*.toml")) == sorted(SHIPPED)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.name)
def test_example_loads_and_says_how_to_run_it(path: Path) -> None:
    scenario = load(path)
    assert scenario.source == str(path)
    assert scenario.tasks
    text = path.read_text()
    assert text.startswith("# "), "a comment header comes first"
    assert f"priora simulate examples/{path.name}" in text


# ---------------------------------------------------------------- inversion


def test_inversion_keeps_the_demo_values() -> None:
    s = example("inversion")
    assert s.system == System(tick_hz=1000, time_unit="ms", horizon=None, protocol="pip")
    assert s.horizon_ticks() is None  # no period: until every job has finished
    assert [(t.name, t.priority, t.period, t.phase) for t in s.tasks] == [
        ("L", 1, None, 0),
        ("H", 3, None, 1),
        ("M", 2, None, 2),
    ]
    assert [r.protocol for r in s.resources] == ["pip"]


def test_inversion_with_inheritance() -> None:
    # pip (the file's protocol):
    #  0  L locks S, computes (4 to do).
    #  1  H released (3), preempts L (1 done, 3 left); H computes 1-2.
    #  2  H locks S: blocks; L inherits 3 and runs. Tick 2 releases M (2 < 3):
    #     no preemption. L computes 2-5, unlocks S: hand-off to H, L drops to 1.
    #  5  H computes 5-6, unlocks, computes 6-7: done at 7 (response 6, blocked
    #     2-5 = 3, inverted 3: L, base 1, ran 2-5 while H waited).
    #  7  M computes 7-12 (inverted 3 too: boosted L ran 2-5 while M was
    #     released). 12: L computes its last 1: done at 13.
    result = simulate(example("inversion"))
    assert result.quiescent
    assert in_unit(result.scenario, result.end_ns) == 13
    assert job_table(result) == [
        Job("L", 1, 0, 0, 13, 13, 0, 0, 0, False),
        Job("H", 1, 1, 1, 7, 6, 3, 3, 0, False),
        Job("M", 1, 2, 7, 12, 10, 0, 3, 0, False),
    ]


def test_inversion_without_inheritance() -> None:
    # none:
    #  0  L locks S, computes. 1: H preempts, computes 1-2.
    #  2  H locks S: blocks; L (1) is not boosted. Tick 2 releases M (2 > 1):
    #     M preempts L and computes 2-7: done at 7 (response 5).
    #  7  L computes its 3 left, 7-10, unlocks S: hand-off to H, which preempts.
    # 10  H computes 10-11, unlocks, 11-12: done at 12 (response 11, blocked
    #     2-10 = 8, inverted 8: M 2-7 and L 7-10, both below H).
    # 12  L computes 1: done at 13.
    result = simulate(example("inversion").with_protocol("none"))
    assert job_table(result) == [
        Job("L", 1, 0, 0, 13, 13, 0, 0, 0, False),
        Job("H", 1, 1, 1, 12, 11, 8, 8, 0, False),
        Job("M", 1, 2, 2, 7, 5, 0, 0, 0, False),
    ]


@pytest.mark.parametrize(("protocol", "h_response"), [("none", 11), ("pip", 6)])
def test_inversion_report_max_response(protocol: Protocol, h_response: int) -> None:
    # The per-task figures of the report agree with the tables above.
    report = build_report(simulate(example("inversion").with_protocol(protocol)))
    assert report.tasks["H"].max_response == h_response
    assert report.tasks["L"].max_response == 13


# ---------------------------------------------------------------- chain


def test_chain_with_inheritance_boosts_to_the_end_and_unwinds() -> None:
    # pip (the file's protocol). A (1) M1; B (2) M2 then M1; C (3) M3 then M2;
    # D (5) M3; X (4) no mutex.
    #  0  A locks M1, computes 0-1.
    #  1  B preempts, locks M2, computes 1-2.
    #  2  B locks M1: blocks; A -> 2. Tick 2: C (3) preempts A; C locks M3,
    #     computes 2-3.
    #  3  C locks M2: blocks; B -> 3, and through B's wait A -> 3. Tick 3: D (5)
    #     preempts A, locks M3: blocks; C -> 5, B -> 5, A -> 5 (depth 3).
    #  4  X (4) released: below A's 5, no preemption. A computes its 3 left, 3-6.
    #  6  A unlocks M1 -> B, A drops to 1. B (5 through M2, C waits) computes
    #     6-7, unlocks M1, unlocks M2 -> C, B drops to 2.
    #  7  C (5 through M3, D waits) computes 7-8, unlocks M2, unlocks M3 -> D,
    #     C drops to 3.
    #  8  D computes 8-9, unlocks, 9-10: done at 10 (response 7, blocked 3-8,
    #     inverted 5: A 3-6, B 6-7, C 7-8).
    # 10  X 10-12; then the tails of C 12-13, B 13-14, A 14-15.
    # B blocked 2-6 = 4, inverted 3 (A 3-6); C blocked 3-7 = 4, inverted 4
    # (A 3-6, B 6-7); X inverted 4 (A 4-6, B 6-7, C 7-8, all below X's 4).
    result = simulate(example("chain"))
    assert job_table(result) == [
        Job("A", 1, 0, 0, 15, 15, 0, 0, 0, False),
        Job("B", 1, 1, 1, 14, 13, 4, 3, 0, False),
        Job("C", 1, 2, 2, 13, 11, 4, 4, 0, False),
        Job("D", 1, 3, 3, 10, 7, 5, 5, 0, False),
        Job("X", 1, 4, 10, 12, 8, 0, 4, 0, False),
    ]
    # The boost as the kernel recorded it: (time, task, old, new).
    s = result.scenario
    prio = result.trace[result.trace["event"] == native.EVENT["PRIO"]]
    changes = [
        (in_unit(s, int(e["time"])), s.tasks[int(e["task"])].name, int(e["arg0"]), int(e["arg1"]))
        for e in prio
    ]
    assert changes == [
        (2, "A", 1, 2),
        (3, "B", 2, 3),
        (3, "A", 2, 3),
        (3, "C", 3, 5),
        (3, "B", 3, 5),
        (3, "A", 3, 5),
        (6, "A", 5, 1),
        (7, "B", 5, 2),
        (8, "C", 5, 3),
    ]


def test_chain_without_inheritance() -> None:
    # none: the same until 3, but nobody is boosted.
    #  3  C blocks on M2, D blocks on M3: A (1) runs 3-4.
    #  4  X (4) preempts A, computes 4-6: done at 6 (response 2).
    #  6  A computes its 2 left, 6-8, unlocks M1 -> B (2) preempts: 8-9,
    #     unlocks M1, M2 -> C: 9-10, unlocks M2, M3 -> D: 10-11, unlocks, 11-12.
    # D: done at 12 (response 9, blocked 3-10 = 7, inverted 7: A 3-4, X 4-6,
    # A 6-8, B 8-9, C 9-10). Tails: C 12-13, B 13-14, A 14-15.
    # B blocked 2-8 = 6, inverted 3 (A 3-4, 6-8; X is above B);
    # C blocked 3-9 = 6, inverted 4 (A 3-4, 6-8, B 8-9).
    result = simulate(example("chain").with_protocol("none"))
    assert job_table(result) == [
        Job("A", 1, 0, 0, 15, 15, 0, 0, 0, False),
        Job("B", 1, 1, 1, 14, 13, 6, 3, 0, False),
        Job("C", 1, 2, 2, 13, 11, 6, 4, 0, False),
        Job("D", 1, 3, 3, 12, 9, 7, 7, 0, False),
        Job("X", 1, 4, 4, 6, 2, 0, 0, 0, False),
    ]


# ---------------------------------------------------------------- producer/consumer


def test_producer_consumer_first_18_ms() -> None:
    # slots 3 free, items 0. P (2) every 2 from 0: down slots, compute 1,
    # up items. C (1) every 6 from 5: down items x3, compute 2, up slots x3.
    #  0, 2, 4  P takes a slot and writes 0-1, 2-3, 4-5: slots 0, items 3.
    #  5  C takes the three items (items 0), computes from 5.
    #  6  P4 preempts C, downs slots: none, it blocks. C computes 6-7 and
    #     ups slots -> P4, which preempts and writes 7-8 (blocked 6-7 = 1,
    #     inverted 1: C, below P, ran 6-7). At 8 C ups slots twice (slots 2)
    #     and ends: C1 5-8.
    #  8, 10  P writes 8-9, 10-11: slots 0, items 3, as at 5; and so on every
    #     6 ms: C2 11-14, P7 (12) blocked 12-13, written 13-14.
    # 16  P9 writes 16-17. 17: C3 takes three items and computes: still running
    #     when the run stops at 18 (deadline 23, not yet missed).
    result = simulate(example("producer_consumer").with_horizon(18))
    assert job_table(result) == [
        Job("P", 1, 0, 0, 1, 1, 0, 0, 0, False),
        Job("P", 2, 2, 2, 3, 1, 0, 0, 0, False),
        Job("P", 3, 4, 4, 5, 1, 0, 0, 0, False),
        Job("C", 1, 5, 5, 8, 3, 0, 0, 0, False),
        Job("P", 4, 6, 6, 8, 2, 1, 1, 0, False),
        Job("P", 5, 8, 8, 9, 1, 0, 0, 0, False),
        Job("P", 6, 10, 10, 11, 1, 0, 0, 0, False),
        Job("C", 2, 11, 11, 14, 3, 0, 0, 0, False),
        Job("P", 7, 12, 12, 14, 2, 1, 1, 0, False),
        Job("P", 8, 14, 14, 15, 1, 0, 0, 0, False),
        Job("P", 9, 16, 16, 17, 1, 0, 0, 0, False),
        Job("C", 3, 17, 17, None, None, 0, 0, 0, False),
    ]
    units = {
        r.name: (c.downs, c.ups, c.max_waiters)
        for r, c in zip(result.scenario.resources, result.semaphores, strict=True)
    }
    # slots: 9 downs by P, 6 ups by C (C3 has not given its back); items:
    # 9 ups by P, 9 downs by C. Only P ever waited, alone.
    assert units == {"slots": (9, 6, 1), "items": (9, 9, 0)}


def test_producer_consumer_over_its_horizon() -> None:
    # The file runs 30 ms; the pattern above repeats every 6 ms: P's jobs
    # released at 6, 12, 18 and 24 wait 1 ms for a slot, no other job waits,
    # nothing misses, and only C5 (29) is unfinished at 30.
    s = example("producer_consumer")
    assert s.horizon_ticks() == 30
    table = job_table(simulate(s))
    assert [(j.task, j.release) for j in table if j.blocked] == [("P", 6), ("P", 12), ("P", 18), ("P", 24)]
    assert all(j.blocked == j.inverted for j in table)
    assert [j.response for j in jobs_of(table, "C")] == [3, 3, 3, 3, None]
    assert len(jobs_of(table, "P")) == 15
    assert not any(j.missed for j in table)


def test_producer_consumer_with_six_slots_never_blocks() -> None:
    # The header's claim: with room for two batches, P never waits. C still
    # ends at 8, 14, ...: P, more urgent, writes 6-7 in the middle of C's batch.
    s = example("producer_consumer")
    resources = tuple(replace(r, initial=6 if r.name == "slots" else 0, max=6) for r in s.resources)
    table = job_table(simulate(replace(s, resources=resources)))
    assert not any(j.blocked or j.inverted for j in table)
    assert [j.response for j in jobs_of(table, "C")] == [3, 3, 3, 3, None]


# ---------------------------------------------------------------- MINIX4RT


def test_minix_prodcons_two_rounds() -> None:
    # empty = 1, full = 0 (binary). P (1) and C (2) every 10 ms from 0, two
    # items per round: P downs empty and ups full twice, C the other way.
    #  0  C (more urgent) downs full: blocks. P downs empty (1 -> 0), writes 0-1.
    #  1  P ups full -> C, which preempts: reads 1-2, ups empty (0 -> 1),
    #     downs full: blocks. P goes on: downs empty, writes 2-3.
    #  3  P ups full, its last action: P's job ends at 3, as the up completes
    #     (the interpreter runs a job's last call under the scheduler lock, so
    #     the job is not charged for C's work: semantics.md, "Job completion").
    #     Then C reads 3-4, ups empty and ends at 4.
    # C: blocked 0-1 and 2-3 = 2, inverted 2 (P, below C, ran 0-1 and 2-3).
    # P never waits. The round repeats at 10, the buffer empty again.
    s = example("minix_prodcons")
    assert s.horizon_ticks() == 10  # one round: the hyperperiod
    result = simulate(s.with_horizon(20))
    assert job_table(result) == [
        Job("P", 1, 0, 0, 3, 3, 0, 0, 0, False),
        Job("C", 1, 0, 0, 4, 4, 2, 2, 0, False),
        Job("P", 2, 10, 10, 13, 3, 0, 0, 0, False),
        Job("C", 2, 10, 10, 14, 4, 2, 2, 0, False),
    ]
    counters = {
        r.name: (c.downs, c.ups, c.max_waiters) for r, c in zip(s.resources, result.semaphores, strict=True)
    }
    # Two downs and two ups per task per round: 4 on each semaphore in 2 rounds.
    assert counters == {"empty": (4, 4, 0), "full": (4, 4, 1)}


def with_timeouts(scenario: Scenario, ticks: int) -> Scenario:
    """Every down of the scenario with a timeout (Table 1's TEST2/TEST4)."""
    tasks = tuple(
        replace(t, body=tuple(replace(a, timeout=ticks) if a.kind == "down" else a for a in t.body))
        for t in scenario.tasks
    )
    return replace(scenario, tasks=tasks)


def test_minix_prodcons_with_timeouts_is_the_same() -> None:
    # The header's commented variant, "down ... timeout 5": every wait ends
    # within 1 ms, before its timeout tick, so nothing times out and the
    # table is the one above.
    s = example("minix_prodcons").with_horizon(20)
    assert job_table(simulate(with_timeouts(s, 5))) == job_table(simulate(s))


def test_minix_prodcons_timeout_of_one_tick_is_a_whole_tick() -> None:
    # C's second "down full timeout 1" is made at 2 ms, the instant of tick 2,
    # before that tick's interrupt: the wait still counts from tick 2 and ends
    # at tick 3, a whole tick. P's up at 3 comes in time (the up at an
    # instant runs before that tick's timeouts), so nothing times out and the
    # first round is the one without timeouts: P ends at its last up, 3, and
    # C at 4 (blocked 0-1 and 2-3, inverted the same).
    s = example("minix_prodcons")
    tasks = (s.tasks[0], with_timeouts(s, 1).tasks[1])  # C's downs only
    table = job_table(simulate(replace(s, tasks=tasks)))
    assert table[:2] == [
        Job("P", 1, 0, 0, 3, 3, 0, 0, 0, False),
        Job("C", 1, 0, 0, 4, 4, 2, 2, 0, False),
    ]
    assert table[:2] == job_table(simulate(s))[:2]


def test_minix_prodcons_inheritance_does_not_apply() -> None:
    # Table 1's BPIP column does not apply: no resource is a mutex, so the
    # protocol (pip by default) reaches none of them, and a protocol on one
    # of these semaphores is refused, as the header says.
    s = example("minix_prodcons")
    assert [(r.kind, r.protocol) for r in s.resources] == [("binary", "none"), ("binary", "none")]
    assert job_table(simulate(s.with_protocol("pip"))) == job_table(simulate(s.with_protocol("none")))
    text = (EXAMPLES / "minix_prodcons.toml").read_text()
    with_protocol = text.replace(
        'kind = "binary"\ninitial = 0', 'kind = "binary"\ninitial = 0\nprotocol = "pip"'
    )
    assert with_protocol != text
    with pytest.raises(
        ScenarioError, match=r"\[resources\.full\] protocol: not allowed on a binary semaphore"
    ):
        parse(with_protocol, "minix_prodcons.toml")


# ---------------------------------------------------------------- Real-Time Mach


def test_rtmach_benchmark1_model() -> None:
    # Rate-monotonic order (no priority in the file): A > B > C > D.
    s = example("rtmach_benchmark1")
    assert [(t.name, t.priority, t.period, t.phase) for t in s.tasks] == [
        ("A", 31, 100, 20),
        ("B", 30, 300, 10),
        ("C", 29, 400, 10),
        ("D", 28, 1000, 0),
    ]
    lock, unlock = Action("lock", "O"), Action("unlock", "O")
    assert s.tasks[0].body == (lock, Action("compute", ticks=10), unlock)
    assert s.tasks[1].body == (Action("compute", ticks=100),)  # EXE
    assert s.tasks[3].body == (lock, Action("compute", ticks=30), unlock)
    assert s.resources == (Resource("O", "mutex", "pip", 1, None, "priority"),)
    assert s.horizon_ticks() == 6000 + 20  # lcm(100, 300, 400, 1000) + the largest phase


def test_rtmach_benchmark1_with_inheritance() -> None:
    # pip, first jobs:
    #   0  D takes O, computes (30 to do).
    #  10  B (30) and C (29) released: B preempts D (10 done, 20 left).
    #  20  A (31) preempts B (10 done), locks O: blocks; D inherits 31 and runs
    #      20-40, unlocks O -> A, D drops to 28. That unlock is D's last
    #      action: D1 ends at 40, as the unlock completes (semantics.md, "Job
    #      completion"), before A runs; it no longer waits for B and C.
    #  40  A computes 40-50: A1 done (response 30, blocked 20-40, inverted 20).
    #  50  B 50-120 (80 done). 120: A2 120-130 (O free). B 130-150: done
    #      (response 140; inverted 20: D, below B, ran 20-40 at A's priority).
    # 150  C 150-210: done (response 200, inverted 20 likewise).
    # 220  A3 220-230.
    table = job_table(simulate(example("rtmach_benchmark1")))
    first = {(j.task, j.job): j for j in table}
    assert [first[("A", n)] for n in (1, 2, 3)] == [
        Job("A", 1, 20, 20, 50, 30, 20, 20, 0, False),
        Job("A", 2, 120, 120, 130, 10, 0, 0, 0, False),
        Job("A", 3, 220, 220, 230, 10, 0, 0, 0, False),
    ]
    assert first[("B", 1)] == Job("B", 1, 10, 10, 150, 140, 0, 20, 0, False)
    assert first[("C", 1)] == Job("C", 1, 10, 150, 210, 200, 0, 20, 0, False)
    assert first[("D", 1)] == Job("D", 1, 0, 0, 40, 40, 0, 0, 0, False)
    # Over 6020 ms: A at 20 + 100k < 6020 (60 jobs), B at 10 + 300k (21),
    # C at 10 + 400k (16), D at 1000k (7); nothing misses at EXE = 100.
    assert {t: len(jobs_of(table, t)) for t in "ABCD"} == {"A": 60, "B": 21, "C": 16, "D": 7}
    assert not any(j.missed for j in table)


def test_rtmach_benchmark1_without_inheritance() -> None:
    # none (BP): D is not boosted.
    #  20  A blocks on O; B (30) runs 20-110 (done: response 100); C 110-170;
    #      only then D 170-190, unlocks O -> A, 190-200: A1 done at 200, 80 ms
    #      after its deadline 120 (blocked 20-190 = 170, inverted 170).
    # 200  A2 (released 120, pending behind A1) starts at once: 200-210,
    #      response 90 (inverted 70: C 120-170, D 170-190).
    # 3020 A31 misses the same way: D4 takes O at 3000 (C8 ended at 2890, C9
    #      comes at 3210), B11 (3010) preempts it, A blocks at 3020 behind
    #      B's 90 left and D's 20: done 3140 (blocked and inverted 110).
    table = job_table(simulate(example("rtmach_benchmark1").with_protocol("none")))
    first = {(j.task, j.job): j for j in table}
    assert first[("A", 1)] == Job("A", 1, 20, 20, 200, 180, 170, 170, 0, True)
    assert first[("A", 2)] == Job("A", 2, 120, 200, 210, 90, 0, 70, 0, False)
    assert first[("A", 31)] == Job("A", 31, 3020, 3020, 3140, 120, 110, 110, 0, True)
    assert [(j.task, j.job) for j in table if j.missed] == [("A", 1), ("A", 31)]


def test_rtmach_benchmark1_worst_blocking_of_a() -> None:
    # pip. A's worst case is D's whole section, 30 ms. Around 1000 ms: B4
    # (released 910) runs 910-920 and, after A10, 930-1020. At 1020 B4 ends;
    # D2 (released 1000, waiting below B) gets the CPU and takes O at that
    # instant, before tick 1020 releases A11. A11 preempts D, blocks on O, and
    # D runs its whole section at A's priority, 1020-1050; its unlock at 1050,
    # its last action, ends D2 (response 50) before A11 runs 1050-1060
    # (response 40, blocked 30, inverted 30).
    # A is the most urgent task: nothing else ever delays it, so every A job
    # responds in its 10 ms plus the time it was blocked.
    table = job_table(simulate(example("rtmach_benchmark1")))
    first = {(j.task, j.job): j for j in table}
    assert first[("B", 4)] == Job("B", 4, 910, 910, 1020, 110, 0, 0, 0, False)
    assert first[("D", 2)] == Job("D", 2, 1000, 1020, 1050, 50, 0, 0, 0, False)
    assert first[("A", 11)] == Job("A", 11, 1020, 1020, 1060, 40, 30, 30, 0, False)
    a = jobs_of(table, "A")
    assert max(j.blocked for j in a) == 30
    assert all(j.response == 10 + j.blocked for j in a)
    assert all(j.timeouts == 0 for j in table)


# ---------------------------------------------------------------- the six protocols

# examples/protocols.toml: L (1) at 0: lock S, compute 4, unlock S, compute 1;
# M (2) at 1: lock T, compute 2, unlock T; N (3) at 2: compute 2; H (4) at 3:
# lock S, compute 1, unlock S, lock T, compute 1, unlock T; U (5) at 3:
# compute 1. Ceilings (pcp, ipcp): 4 and 4. Besides the rules at the top:
# - pcp: a task may lock only if its priority is above the ceilings of the
#   mutexes other tasks hold, else it waits on the system ceiling (blocked
#   on a free mutex too) and the holder inherits its priority; the unlock
#   that lowers the ceiling wakes it to try again (it is handed nothing);
# - ipcp: the holder runs at the ceiling from its lock on; npcs: at 31;
# - rcs: a more urgent task takes a held mutex over at once; the holder's
#   compute stops, its unlock reports the abort, and its section restarts
#   from the lock; the work it had done inside is lost.
PROTOCOL_TABLES: dict[str, list[Job]] = {
    # 0 L locks S. 1 M preempts, takes T, 1-2. 2 N 2-3. 3 U 3-4 (U before H).
    # 4 H locks S: blocks, and L stays at 1: N 4-5 (done 5), M 5-6 (unlocks
    # T, done 6), then L 6-9, unlocks S -> H 9-11 (takes the free T); L 11-12.
    # H: blocked 4-9, inverted 5 (N 4-5, M 5-6, L 6-9).
    "none": [
        Job("L", 1, 0, 0, 12, 12, 0, 0, 0, False),
        Job("M", 1, 1, 1, 6, 5, 0, 0, 0, False),
        Job("N", 1, 2, 2, 5, 3, 0, 0, 0, False),
        Job("H", 1, 3, 4, 11, 8, 5, 5, 0, False),
        Job("U", 1, 3, 3, 4, 1, 0, 0, 0, False),
    ],
    # As none until 4: H blocks on S, L inherits 4 and runs 4-7, unlocks ->
    # H 7-8, unlocks S, locks T held by M: blocks again, M inherits 4 and runs
    # its last ms 8-9 and unlocks T at 9, its last action: M's job ends there,
    # at 9, as the unlock completes (semantics.md, "Job completion"), and H
    # runs 9-10 (done). N 10-11; L 11-12. H blocked 4-7 and 8-9 (twice);
    # M inverted 3 (L 4-7); N inverted 4 (L 4-7, M 8-9).
    "pip": [
        Job("L", 1, 0, 0, 12, 12, 0, 0, 0, False),
        Job("M", 1, 1, 1, 9, 8, 0, 3, 0, False),
        Job("N", 1, 2, 2, 11, 9, 0, 4, 0, False),
        Job("H", 1, 3, 4, 10, 7, 4, 4, 0, False),
        Job("U", 1, 3, 3, 4, 1, 0, 0, 0, False),
    ],
    # 0 L locks S (ceiling 4). 1 M asks for the free T: blocked by the
    # ceiling, L inherits 2 and runs 1-2. 2 N (3) preempts L, 2-3. 3 U 3-4.
    # 4 H asks for S: blocked by the ceiling, L inherits 4, runs 4-6, unlocks:
    # H is woken to try again, takes S 6-7, unlocks (M is woken to try again:
    # nothing blocks it now), takes T before M can run, 7-8 (done). N 8-9.
    # M tries again at 9, takes T, 9-11. L 11-12. H blocked 4-6 (once);
    # M blocked 1-7; inverted: M 3 (L 1-2, 4-6), N 2 (L 4-6), H 2 (L 4-6).
    "pcp": [
        Job("L", 1, 0, 0, 12, 12, 0, 0, 0, False),
        Job("M", 1, 1, 1, 11, 10, 6, 3, 0, False),
        Job("N", 1, 2, 2, 9, 7, 0, 2, 0, False),
        Job("H", 1, 3, 4, 8, 5, 2, 2, 0, False),
        Job("U", 1, 3, 3, 4, 1, 0, 0, 0, False),
    ],
    # L runs at 4 from its lock at 0: M, N and H (not above 4) wait; U 3-4.
    # L 4-5 ends its section and drops to 1: H 5-7, N 7-9, M 9-11 (at 4 from
    # its lock), L 11-12. Nobody blocks; inverted: L ran 1-3 and 4-5.
    "ipcp": [
        Job("L", 1, 0, 0, 12, 12, 0, 0, 0, False),
        Job("M", 1, 1, 9, 11, 10, 0, 3, 0, False),
        Job("N", 1, 2, 7, 9, 7, 0, 2, 0, False),
        Job("H", 1, 3, 5, 7, 4, 0, 1, 0, False),
        Job("U", 1, 3, 3, 4, 1, 0, 0, 0, False),
    ],
    # L runs its section at 31, 0-4: U waits until 4 (inverted 1). Then U
    # 4-5, H 5-7, N 7-9, M 9-11, L 11-12.
    "npcs": [
        Job("L", 1, 0, 0, 12, 12, 0, 0, 0, False),
        Job("M", 1, 1, 9, 11, 10, 0, 3, 0, False),
        Job("N", 1, 2, 7, 9, 7, 0, 2, 0, False),
        Job("H", 1, 3, 5, 7, 4, 0, 1, 0, False),
        Job("U", 1, 3, 4, 5, 2, 0, 1, 0, False),
    ],
    # As none until 4: H asks for S, held by L (1 < 4): L's section is
    # aborted, H takes S, 4-5; then T from M the same way, 5-6 (done). N 6-7.
    # M runs at 7: its compute stops at once, its unlock reports the abort,
    # and it locks T again: 7-9 (lost: 1-2). L at 9 the same: its section
    # again, 9-13, then 13-14 (lost: 0-1). Nobody blocks or waits for a
    # less urgent task.
    "rcs": [
        Job("L", 1, 0, 0, 14, 14, 0, 0, 0, False, aborts=1, lost=1),
        Job("M", 1, 1, 1, 9, 8, 0, 0, 0, False, aborts=1, lost=1),
        Job("N", 1, 2, 2, 7, 5, 0, 0, 0, False),
        Job("H", 1, 3, 4, 6, 3, 0, 0, 0, False),
        Job("U", 1, 3, 3, 4, 1, 0, 0, 0, False),
    ],
}

# The synchronization records of each run, as the kernel wrote them: (ms,
# event, task, what). PRIO: "old->new cause mutex"; BLOCK, WAKE: "mutex
# result"; CEILING: "mutex ceiling holder"; ABORT: "mutex by".
PROTOCOL_EVENTS: dict[str, list[tuple[int, str, str, str]]] = {
    "none": [(4, "BLOCK", "H", "S ok"), (9, "WAKE", "H", "S ok")],
    "pip": [
        (4, "BLOCK", "H", "S ok"),
        (4, "PRIO", "L", "1->4 inherit S"),
        (7, "PRIO", "L", "4->1 release S"),
        (7, "WAKE", "H", "S ok"),
        (8, "BLOCK", "H", "T ok"),
        (8, "PRIO", "M", "2->4 inherit T"),
        (9, "PRIO", "M", "4->2 release T"),
        (9, "WAKE", "H", "T ok"),
    ],
    "pcp": [
        (1, "BLOCK", "M", "T ok"),
        (1, "CEILING", "M", "T 4 L"),
        (1, "PRIO", "L", "1->2 inherit S"),
        (4, "BLOCK", "H", "S ok"),
        (4, "CEILING", "H", "S 4 L"),
        (4, "PRIO", "L", "2->4 inherit S"),
        (6, "PRIO", "L", "4->1 release S"),
        (6, "WAKE", "H", "S PR_EAGAIN"),
        (7, "WAKE", "M", "T PR_EAGAIN"),
    ],
    "ipcp": [
        (0, "PRIO", "L", "1->4 ceiling S"),
        (5, "PRIO", "L", "4->1 release S"),
        (9, "PRIO", "M", "2->4 ceiling T"),
        (11, "PRIO", "M", "4->2 release T"),
    ],
    "npcs": [  # the top level of the lab's kernel, 256 levels (31 on the QEMU images)
        (0, "PRIO", "L", "1->255 ceiling S"),
        (4, "PRIO", "L", "255->1 release S"),
        (5, "PRIO", "H", "4->255 ceiling S"),
        (6, "PRIO", "H", "255->4 release S"),
        (6, "PRIO", "H", "4->255 ceiling T"),
        (7, "PRIO", "H", "255->4 release T"),
        (9, "PRIO", "M", "2->255 ceiling T"),
        (11, "PRIO", "M", "255->2 release T"),
    ],
    "rcs": [(4, "ABORT", "L", "S H"), (5, "ABORT", "M", "T H")],
}


def sync_events(result: SimResult) -> list[tuple[Time, str, str, str]]:
    s = result.scenario
    tasks = [t.name for t in s.tasks]
    sems = [r.name for r in s.resources]
    out: list[tuple[Time, str, str, str]] = []
    for r in result.trace:
        name = native.EVENT_NAME[int(r["event"])]
        if name not in ("PRIO", "BLOCK", "WAKE", "CEILING", "ABORT", "TIMEOUT"):
            continue
        sem = sems[int(r["object"])]
        if name == "PRIO":
            what = f"{int(r['arg0'])}->{int(r['arg1'])} {native.CAUSE_NAME[int(r['value'])]} {sem}"
        elif name == "CEILING":
            what = f"{sem} {int(r['arg0'])} {tasks[int(r['arg1'])]}"
        elif name == "ABORT":
            what = f"{sem} {tasks[int(r['arg0'])]}"
        else:
            what = f"{sem} {'ok' if int(r['result']) == 0 else native.errname(int(r['result']))}"
        out.append((in_unit(s, int(r["time"])), name, tasks[int(r["task"])], what))
    return out


def schedule(result: SimResult) -> list[str]:
    """Who runs during each ms (from the timeline's executions), "." idle."""
    from priora.trace.timeline import extract

    s = result.scenario
    ms = int(in_unit(s, result.end_ns))
    chart = ["."] * (ms + 1)
    for task in extract(result).tasks:
        for e in task.executions:
            for k in range(int(in_unit(s, e.start)), int(in_unit(s, e.end))):
                chart[k] = task.name
    return chart


def commented_schedules() -> dict[str, list[str]]:
    """The charts in the file's header comment: "#   pcp    L L N U ..."."""
    charts = {}
    for line in (EXAMPLES / "protocols.toml").read_text().splitlines():
        words = line.lstrip("# ").split()
        if words and words[0] in PROTOCOL_TABLES and len(words) > 10:
            charts[words[0]] = words[1:]
    return charts


def test_protocols_model() -> None:
    s = example("protocols")
    assert s.system.protocol == "pcp"
    assert [(r.name, r.protocol, r.ceiling) for r in s.resources] == [("S", "pcp", 4), ("T", "pcp", None)]
    assert (s.ceiling("S"), s.ceiling("T")) == (4, 4)  # T's: H, the most urgent of M and H
    assert [(t.name, t.priority, t.phase) for t in s.tasks] == [
        ("L", 1, 0), ("M", 2, 1), ("N", 3, 2), ("H", 4, 3), ("U", 5, 3),
    ]  # fmt: skip


@pytest.mark.parametrize("protocol", list(PROTOCOL_TABLES))
def test_protocols_job_table(protocol: Protocol) -> None:
    result = simulate(example("protocols").with_protocol(protocol))
    assert result.quiescent
    assert job_table(result) == PROTOCOL_TABLES[protocol]
    # The kernel's own records of who blocked, on what, who was raised to
    # what and who was aborted, and who ran when, as the file's comment says.
    assert sync_events(result) == PROTOCOL_EVENTS[protocol]
    chart = schedule(result)
    assert chart == commented_schedules()[protocol]
    # No error anywhere; the interpreter's counters are the trace's.
    assert all(int(j["errors"]) == 0 and int(j["timeouts"]) == 0 for j in result.jobs)
    for index, script in enumerate(result.scripts):
        mine = result.jobs[result.jobs["task"] == index]
        assert (script.aborts, script.lost_ns) == (int(mine["aborts"].sum()), int(mine["lost"].sum()))
        assert (script.timeouts, script.errors) == (0, 0)


def test_protocols_all_differ() -> None:
    charts = {p: tuple(schedule(simulate(example("protocols").with_protocol(p)))) for p in PROTOCOL_TABLES}
    assert len(set(charts.values())) == 6
    # H's response: none 8, pip 7, pcp 5, ipcp 4, npcs 4, rcs 3.
    assert [next(j.response for j in PROTOCOL_TABLES[p] if j.task == "H") for p in PROTOCOL_TABLES] == [
        8, 7, 5, 4, 4, 3,
    ]  # fmt: skip


def test_protocols_report() -> None:
    # rcs: the lost work per task (the interpreter's), per job (the trace's)
    # and per mutex (the kernel's count of aborted holders).
    report = build_report(simulate(example("protocols").with_protocol("rcs")))
    assert [(name, t.aborts, t.lost) for name, t in report.tasks.items()] == [
        ("L", 1, 1), ("M", 1, 1), ("N", 0, 0), ("H", 0, 0), ("U", 0, 0),
    ]  # fmt: skip
    assert [(name, r.protocol, r.ceiling, r.aborts) for name, r in report.resources.items()] == [
        ("S", "rcs", None, 1), ("T", "rcs", None, 1),
    ]  # fmt: skip
    assert (report.system.aborts, report.system.lost) == (2, 2)
    # The ceilings the kernel used: 4 under pcp and ipcp, under npcs its top
    # level (255: the lab's kernel has 256 levels).
    for protocol, ceiling in (("pcp", 4), ("ipcp", 4), ("npcs", 255), ("pip", None)):
        report = build_report(simulate(example("protocols").with_protocol(protocol)))
        assert [r.ceiling for r in report.resources.values()] == [ceiling, ceiling]
    # pcp: the longest holds. S: L 0-6; T: M 9-11 (H held it 7-8).
    report = build_report(simulate(example("protocols")))
    assert [r.longest_hold for r in report.resources.values()] == [6, 2]

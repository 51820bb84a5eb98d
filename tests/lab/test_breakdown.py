"""priora breakdown: the field grammar, the variants, the search and its
monotonicity guard, and hand-worked breakdowns on the kernel and by analysis."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from priora.breakdown.output import breakdown_dict, breakdown_text
from priora.breakdown.search import (
    BreakdownError,
    Search,
    _split,
    bounds,
    breakdown,
    current_value,
    parse_field,
    search,
    with_value,
)
from priora.cli.main import main
from priora.scenario.loader import load, parse
from priora.scenario.model import PROTOCOLS, Scenario

ROOT = Path(__file__).resolve().parents[2]
BENCHMARK1 = ROOT / "examples" / "rtmach" / "benchmark1.toml"

# H (T 5, C 2) above L (T 10): L may compute 10 - 2 * 2 = 6 per period.
TWO = """\
[system]
time_unit = "tick"

[tasks.H]
period = 5
body = ["compute 2"]

[tasks.L]
period = 10
body = ["compute 1", "compute 3"]
"""

# One body with every shape: computes outside, a section with a nested one.
SHAPES = """\
[system]
time_unit = "tick"

[resources.M]
kind = "mutex"

[resources.N]
kind = "mutex"

[tasks.T]
period = 100
deadline = 80
body = ["compute 2", "lock M", "compute 3", "lock N", "compute 4", "unlock N", "compute 1", "unlock M", "compute 6"]

[tasks.U]
period = 50
body = ["lock N", "compute 1", "unlock N", "lock N", "compute 1", "unlock N"]
"""


def scenario(text: str = SHAPES) -> Scenario:
    return parse(text, "x.toml")


# ---------------------------------------------------------------- fields


@pytest.mark.parametrize(
    ("vary", "message"),
    [
        ("T", "--vary T: expected TASK.FIELD, FIELD one of wcet, period, deadline, section.MUTEX, body[i]"),
        ("X.wcet", '--vary X.wcet: no task "X" in x.toml (tasks: T, U)'),
        (
            "T.wcte",
            '--vary T.wcte: unknown field "wcte" (expected wcet, period, deadline, section.MUTEX, body[i])',
        ),
        (
            "U.wcet",
            "--vary U.wcet: every compute of U is inside a critical section, so its execution time cannot change alone: vary U.section.N or U.body[i]",
        ),
        ("T.section.Q", '--vary T.section.Q: T never locks "Q" (it locks M, N)'),
        (
            "U.section.N",
            "--vary U.section.N: U locks N 2 times (body[0], body[3]): vary one compute with U.body[i]",
        ),
        ("T.body[1]", '--vary T.body[1]: body[1] is "lock M", not a compute'),
        ("T.body[9]", "--vary T.body[9]: T's body has 9 actions (body[0]..body[8])"),
        (
            "T.body[x]",
            '--vary T.body[x]: unknown field "body[x]" (expected wcet, period, deadline, section.MUTEX, body[i])',
        ),
    ],
)
def test_bad_fields_are_one_line_errors(vary: str, message: str) -> None:
    with pytest.raises(BreakdownError) as err:
        parse_field(scenario(), vary)
    assert str(err.value) == message


def test_a_task_without_a_period_or_deadline() -> None:
    one = parse('[tasks.J]\npriority = 1\nbody = ["compute 3"]\n', "j.toml")
    with pytest.raises(BreakdownError, match=r"^--vary J.period: J has no period \(one job\)$"):
        parse_field(one, "J.period")
    with pytest.raises(BreakdownError, match=r"^--vary J.deadline: J has no deadline$"):
        parse_field(one, "J.deadline")


def test_wcet_moves_the_computes_outside_sections_in_proportion() -> None:
    s = scenario()
    f = parse_field(s, "T.wcet")
    assert (f.actions, f.fixed) == ((0, 8), 8)  # 3 + 4 + 1 inside M
    assert current_value(s, f) == 16
    assert bounds(s, f) == (8, 80)  # D 80; the sections stay
    body = with_value(s, f, 24).tasks[0].body
    assert [a.ticks for a in body if a.kind == "compute"] == [4, 3, 4, 1, 12]  # 16 over 2:6
    body = with_value(s, f, 8).tasks[0].body
    assert [a.ticks for a in body if a.kind == "compute"] == [0, 3, 4, 1, 0]


def test_section_moves_its_own_computes_not_the_nested_ones() -> None:
    s = scenario()
    f = parse_field(s, "T.section.M")
    assert (f.index, f.actions, f.fixed) == (1, (2, 6), 4)
    assert current_value(s, f) == 8
    assert bounds(s, f) == (4, 80 - 8)  # T's other work is 8
    body = with_value(s, f, 12).tasks[0].body
    assert [a.ticks for a in body if a.kind == "compute"] == [2, 6, 4, 2, 6]
    nested = parse_field(s, "T.section.N")
    assert (nested.actions, nested.fixed, current_value(s, nested)) == ((4,), 0, 4)


def test_body_period_and_deadline() -> None:
    s = scenario()
    f = parse_field(s, "T.body[8]")
    assert (current_value(s, f), bounds(s, f)) == (6, (0, 70))
    period = parse_field(s, "U.period")
    assert period.direction == "smallest"
    shorter = with_value(s, period, 20).tasks[1]
    assert (shorter.period, shorter.deadline) == (20, 20)  # an implicit deadline follows
    explicit = with_value(s, parse_field(s, "T.period"), 90).tasks[0]
    assert (explicit.period, explicit.deadline) == (90, 80)  # a given one stays
    assert with_value(s, parse_field(s, "T.deadline"), 33).tasks[0].deadline == 33


def test_split_is_exact_and_deterministic() -> None:
    assert _split(10, [1, 1, 1]) == [4, 3, 3]
    assert _split(7, [0, 0]) == [4, 3]
    assert _split(5, [2, 6]) == [1, 4]  # 1.25, 3.75: the larger remainder gets the tick
    assert sum(_split(1001, [3, 7, 11])) == 1001


# ---------------------------------------------------------------- search


def counting(threshold: int, tried: list[int]) -> Callable[[int], bool]:
    def ok(v: int) -> bool:
        tried.append(v)
        return v <= threshold

    return ok


def test_search_up_doubles_then_bisects_each_value_once() -> None:
    tried: list[int] = []
    found = search(counting(181, tried), 100, 0, 300, "largest")
    assert (found.value, found.at_limit, found.anomalies) == (181, False, ())
    # Doubling, bisection, then the probes: 181 + 2, 4, 8 ... and 181 - 1, 2, 4 ...
    assert tried == [
        100, 101, 103, 107, 115, 131, 163, 227, 195, 179, 187, 183, 181, 182,
        185, 189, 197, 213, 245, 300, 180, 177, 173, 165, 149, 117, 53, 0,
    ]  # fmt: skip
    assert len(set(tried)) == len(tried)
    assert dict(found.evaluated)[181] is True and dict(found.evaluated)[182] is False


def test_search_down_when_the_file_value_fails() -> None:
    tried: list[int] = []
    found = search(counting(14, tried), 100, 0, 300, "largest")
    assert found.value == 14
    assert tried[:13] == [100, 99, 97, 93, 85, 69, 37, 0, 18, 9, 13, 15, 14]


def test_search_ends_of_the_range() -> None:
    assert search(lambda v: True, 5, 0, 12, "largest") == Search(
        12,
        True,
        ((5, True), (6, True), (8, True), (12, True), (11, True), (10, True), (4, True), (0, True)),
        (),
    )
    nothing = search(lambda v: False, 5, 3, 12, "largest")
    assert (nothing.value, [v for v, _ in nothing.evaluated]) == (None, [5, 4, 3])


def test_search_smallest() -> None:
    found = search(lambda v: v >= 37, 100, 1, 1000, "smallest")
    assert found.value == 37
    assert dict(found.evaluated)[36] is False


def test_anomalies_are_reported() -> None:
    # Passes up to 20, fails 21..30, passes 31..40: the search stops at 20,
    # the probe at 20 + 16 passes.
    found = search(lambda v: v <= 20 or 31 <= v <= 40, 10, 0, 100, "largest")
    assert found.value == 20
    assert found.anomalies == ((36, 28), (36, 25), (36, 24), (36, 22), (36, 21))
    # A hole below: 12 fails, everything else up to 20 passes.
    below = search(lambda v: v <= 20 and v != 12, 10, 0, 100, "largest")
    assert below.value == 20
    assert below.anomalies == ((13, 12), (16, 12), (17, 12), (18, 12), (19, 12), (20, 12))


# ---------------------------------------------------------------- on the kernel


def test_two_tasks_by_hand() -> None:
    # L may compute 6 per 10: H takes 2 of every 5. The analysis agrees.
    b = breakdown(scenario(TWO), "L.wcet", ["none", "pip"])
    for p in ("none", "pip"):
        sim, ana = b.protocols[p].simulation, b.protocols[p].analysis
        assert sim.search is not None and ana.search is not None
        assert (sim.search.value, ana.search.value) == (6, 6)
        assert sim.utilisation == ana.utilisation == 1
    # The search (4 up to 7, 6), then the probes (8, 10; 5, 4, 2, 0).
    assert b.protocols["pip"].simulation.search.evaluated == (  # type: ignore[union-attr]
        (4, True), (5, True), (7, False), (6, True), (8, False), (10, False), (2, True), (0, True),
    )  # fmt: skip
    # The proportions 1:3 are kept: 6 is 2 + 4 (1.5, 4.5: the tie goes to the first).
    f = parse_field(b.scenario, "L.wcet")
    assert [a.ticks for a in with_value(b.scenario, f, 6).tasks[1].body] == [2, 4]


def test_benchmark1_zero_costs() -> None:
    b = breakdown(load(BENCHMARK1), "B.wcet", ["none", "pip"])
    none, pip = b.protocols["none"], b.protocols["pip"]
    # none: D holds O from 0; B and C run before it can release it, A (20,
    # deadline 120) waits until 90 + EXE and ends at 100 + EXE.
    assert none.simulation.search is not None and none.simulation.search.value == 20
    assert none.analysis.search is not None and none.analysis.search.value is None
    assert none.analysis.reason is not None and "unbounded priority inversion" in none.analysis.reason
    assert pip.simulation.search is not None and pip.simulation.search.value == 190
    # Analysis: R_B = 30 + EXE + ceil(R_B / 100) * 10 <= 300 up to EXE = 180.
    assert pip.analysis.search is not None and pip.analysis.search.value == 180
    assert str(pip.analysis.utilisation) == "22/25"  # 0.88
    doc = breakdown_dict(b)
    assert doc["protocols"]["pip"]["simulation"]["value"] == 190
    assert doc["protocols"]["pip"]["simulation"]["utilisation"] == 0.913333


def test_synchronous_release() -> None:
    b = breakdown(load(BENCHMARK1), "B.wcet", ["none"], synchronous_release=True)
    # All at 0: A runs first, D never holds O when A comes, none is pip.
    assert b.protocols["none"].simulation.search.value == 180  # type: ignore[union-attr]
    assert "every task released at 0" in breakdown_text(b)


def test_a_file_without_deadlines_is_refused() -> None:
    s = parse('[tasks.J]\npriority = 1\nbody = ["compute 3"]\n', "j.toml")
    with pytest.raises(BreakdownError, match=r"^j.toml: no task has a deadline: no deadline can be missed$"):
        breakdown(s, "J.body[0]")


# ---------------------------------------------------------------- command


def test_command_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["breakdown", str(BENCHMARK1), "--vary", "B.wcet", "--protocol", "none", "pip"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"Breakdown of B.wcet in {BENCHMARK1}: times in ms (tick_hz 1000)"
    table = lines[lines.index("protocol  simulation (ms)  U (%)  runs  analysis (ms)  U (%)") :]
    assert table[2:4] == [
        "none                   20   34.7    25              -      -",
        "pip                   190   91.3    29            180   88.0",
    ]
    assert main(["breakdown", str(BENCHMARK1), "--vary", "B.wcet", "--protocol", "pip", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc["protocols"]) == ["pip"]
    assert doc["protocols"]["pip"]["analysis"]["value"] == 180
    assert (doc["direction"], doc["file_value"], doc["range"], doc["judged"]) == (
        "largest",
        100,
        [0, 300],
        6020,
    )


def test_command_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["breakdown", str(BENCHMARK1), "--vary", "A.wcet"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "priora: --vary A.wcet: every compute of A is inside a critical section, so its execution "
        "time cannot change alone: vary A.section.O or A.body[i]\n"
    )
    assert main(["breakdown", str(BENCHMARK1)]) == 2  # --vary is required
    assert "--vary" in capsys.readouterr().err


def test_ignored_deadlines() -> None:
    # rcs: A aborts D's section at each of its jobs; above 180 ms of B, D never
    # gets its 30 ms in one piece before 1000 ms. Without judging D's deadline,
    # its work must still be done: above 180 ms D falls further behind at each
    # job, and its job of 6000 ms is unfinished when the run ends (7021 ms).
    b = breakdown(load(BENCHMARK1), "B.wcet", ["rcs"], ignore=["D"])
    assert b.ignored == ("D",)
    rcs = b.protocols["rcs"]
    assert rcs.simulation.search.value == 180  # type: ignore[union-attr]
    assert rcs.simulation.why == (
        "D job 7, released at 6000 ms, has not finished when the run ends at 7021 ms: the work does not fit"
    )
    # The analysis: R_D is unbounded above 126 ms (A's aborts cost D 30 ms a job).
    assert rcs.analysis.search.value == 126  # type: ignore[union-attr]
    assert rcs.analysis.why is not None and rcs.analysis.why.startswith("D: R unbounded: ")
    judged = breakdown(load(BENCHMARK1), "B.wcet", ["rcs"]).protocols["rcs"].simulation
    assert judged.search.value == 180  # type: ignore[union-attr]
    assert judged.why == "D job 1 misses its deadline at 1000 ms"
    assert breakdown_dict(b)["ignored"] == ["D"]
    with pytest.raises(
        BreakdownError, match=r'^--ignore X: no task "X" in .*benchmark1.toml \(tasks: A, B, C, D\)$'
    ):
        breakdown(load(BENCHMARK1), "B.wcet", ["rcs"], ignore=["X"])


# ---------------------------------------------------------------- what fails a value

# L and H lock A and B in opposite orders (examples/deadlock.toml, periodic):
# H preempts L at 1, takes B and waits for A at 3; when L's compute inside A
# (body[1]) lasts 2 ticks or more, L locks B at 4 or later, while H waits for
# A: the kernel refuses it (PR_EDEADLK) and L skips its section, meeting its
# deadline without its work. With 1 tick, L takes B at 1, before H comes.
DEADLOCK = """\
[system]
time_unit = "tick"

[resources.A]
kind = "mutex"

[resources.B]
kind = "mutex"

[tasks.L]
priority = 1
period = 20
body = ["lock A", "compute 2", "lock B", "compute 1", "unlock B", "unlock A", "compute 1"]

[tasks.H]
priority = 2
period = 20
phase = 1
body = ["lock B", "compute 2", "lock A", "compute 1", "unlock A", "unlock B", "compute 1"]
"""


def test_a_refused_call_fails_the_value() -> None:
    b = breakdown(parse(DEADLOCK, "deadlock.toml"), "L.body[1]", ["pip", "pcp"])
    pip = b.protocols["pip"].simulation
    assert pip.search is not None and pip.search.value == 1
    refused = (
        'L job 1 at 4 tick: body[2] "lock B" refused with PR_EDEADLK: '
        "L wants B, held by H, which waits for A, held by L"
    )
    assert pip.why == refused
    assert f"  pip: simulation: 2 fails: {refused}" in breakdown_text(b).splitlines()
    assert breakdown_dict(b)["protocols"]["pip"]["simulation"]["why"] == refused
    # pcp: the ceilings keep H out of B while L holds A; up to 14 ticks, where
    # U reaches 1 (L: 14 + 2 in 20, H: 4 in 20).
    pcp = b.protocols["pcp"].simulation
    assert pcp.search is not None and (pcp.search.value, pcp.utilisation) == (14, 1)
    assert pcp.why == "the demand exceeds the processor: U = 1.050000 > 1"


# H takes 2 of every 4 ticks; L (period 8, deadline 16) fits 4 ticks a period.
# With more, the first jobs still meet their deadlines within one horizon (8):
# L's job of 0 needs 8 ticks at most, done by 16, and the overload only shows
# later. Without the utilisation rule the breakdown would be 8 ticks (U 150%).
OVERLOAD = """\
[system]
time_unit = "tick"

[tasks.H]
priority = 2
period = 4
body = ["compute 2"]

[tasks.L]
priority = 1
period = 8
deadline = 16
body = ["compute 3"]
"""


def test_more_work_than_time_fails_the_value() -> None:
    b = breakdown(parse(OVERLOAD, "overload.toml"), "L.wcet", ["pip"])
    sim = b.protocols["pip"].simulation
    assert sim.search is not None and (sim.search.value, sim.utilisation) == (4, 1)
    assert sim.why == "the demand exceeds the processor: U = 1.125000 > 1"
    assert "  pip: simulation: 5 fails: the demand exceeds the processor: U = 1.125000 > 1" in breakdown_text(
        b
    )
    doc = breakdown_dict(b)["protocols"]["pip"]
    assert doc["simulation"]["why"] == sim.why and doc["analysis"]["value"] == 4


def test_unfinished_work_fails_the_value() -> None:
    # Z has no period and no deadline: its work must still be done within the
    # run (the horizon 8, H's deadline 4 and one tick: 13), in H's gaps: 2-4,
    # 6-8, 10-12. So 6 ticks, and with 7 Z is unfinished at 13.
    text = OVERLOAD.replace('period = 8\ndeadline = 16\nbody = ["compute 3"]', 'body = ["compute 3"]')
    text = text.replace("[tasks.L]", "[tasks.Z]").replace(
        'time_unit = "tick"', 'time_unit = "tick"\nhorizon = 8'
    )
    b = breakdown(parse(text, "background.toml"), "Z.wcet", ["pip"])
    sim = b.protocols["pip"].simulation
    assert sim.search is not None and sim.search.value == 6
    assert (
        sim.why
        == "Z job 1, released at 0 tick, has not finished when the run ends at 13 tick: the work does not fit"
    )


# A scheduling anomaly on the kernel, found by a random search: under none,
# T2 with C = 3 locks M at 50 just as T1 is released; T1 preempts it, T0
# (51) waits for M while T1 runs, and misses at 55. With C = 4, T1 preempts
# T2 before it takes M, and T0 finds M free. So 4 passes and 3 fails.
ANOMALY = """\
[system]
time_unit = "tick"

[resources.M]
kind = "mutex"

[tasks.T0]
priority = 3
period = 4
phase = 3
body = ["lock M", "compute 2", "unlock M"]

[tasks.T1]
priority = 2
period = 12
phase = 2
body = ["compute 2"]

[tasks.T2]
priority = 1
period = 15
phase = 3
body = ["compute 3", "lock M", "compute 2", "unlock M"]
"""


def test_a_real_anomaly_is_caught_by_the_probes() -> None:
    b = breakdown(parse(ANOMALY, "anomaly.toml"), "T2.wcet", ["none", "pip"])
    none = b.protocols["none"].simulation.search
    assert none is not None
    assert (none.value, none.anomalies) == (4, ((4, 3),))
    # The search (5 fails, 4 passes), then the probes: 6, 8, 12, 15 above, 3 and 2 below.
    assert none.evaluated == (
        (5, False), (4, True), (6, False), (8, False), (12, False), (15, False), (3, False), (2, True),
    )  # fmt: skip
    assert "  none: simulation: NOT MONOTONE: 4 passes, 3 fails" in breakdown_text(b)
    # pip: 5 passes, with U = 2/4 + 2/12 + 5/15 = 1 (6 fails without a run, U > 1).
    # At 5, T2's first job (released 3, deadline 18) computes 6-7 and 9-11, takes
    # M at 11, T0 blocks on it and T2 runs its section at T0's priority, 11-13.
    # Its unlock at 13 is its last action: the job ends there (response 10), as
    # the unlock completes (semantics.md, "Job completion"). Counted when it
    # next ran, after T0 (13-15, 15-17) and T1 (released 14, 17-19), it would
    # end at 19 and miss at 18: the breakdown was 4 under that convention.
    pip = b.protocols["pip"].simulation.search
    assert pip is not None and (pip.value, pip.anomalies) == (5, ())
    assert pip.evaluated == (
        (5, True), (6, False), (7, False), (9, False), (13, False), (15, False), (4, True), (3, True), (2, True),
    )  # fmt: skip


def random_set(rng: random.Random) -> str:
    """2 to 4 periodic tasks (periods dividing 120), one or two mutexes, bodies of
    plain computes and sections, random phases and priorities."""
    n = rng.randint(2, 4)
    lines = [
        '[system]\ntime_unit = "tick"\n',
        '[resources.M]\nkind = "mutex"\n',
        '[resources.N]\nkind = "mutex"\n',
    ]
    for i in range(n):
        body: list[str] = [f"compute {rng.randint(1, 3)}"]
        for _ in range(rng.randint(0, 2)):
            m = rng.choice("MN")
            body += [f"lock {m}", f"compute {rng.randint(1, 2)}", f"unlock {m}"]
        period = rng.choice([6, 8, 10, 12, 15, 20, 24, 30])
        lines.append(
            f"[tasks.T{i}]\npriority = {rng.randint(1, 5)}\nperiod = {period}\nphase = {rng.randint(0, 3)}\n"
            f"body = {json.dumps(body)}\n"
        )
    return "\n".join(lines)


def test_the_simulated_breakdown_is_never_below_the_analysis() -> None:
    # The analysis holds for every release pattern: every value up to its
    # breakdown passes on the kernel, so the search's boundary is at least it.
    rng = random.Random(6)
    compared = 0
    for k in range(60):
        s = parse(random_set(rng), f"r{k}.toml")
        task = rng.choice(s.tasks).name
        b = breakdown(s, f"{task}.wcet", list(PROTOCOLS))
        for p, r in b.protocols.items():
            sim, ana = r.simulation.search, r.analysis.search
            if sim is None or ana is None or ana.value is None:
                continue
            assert sim.value is not None and sim.value >= ana.value, (k, p, sim.value, ana.value)
            compared += 1
    assert compared >= 150


def test_a_run_too_long_is_refused() -> None:
    # Periods 997 and 1000: a hyperperiod of 997,000 ticks; at a period of 1 for
    # T, a run of 2,000,000 ticks releases 2,000,001 jobs of T and 2,001 of U.
    from priora.breakdown.search import MAX_JOBS_PER_RUN, _check_size

    text = '[system]\ntime_unit = "tick"\n\n[tasks.T]\nperiod = 997\nbody = ["compute 1"]\n\n[tasks.U]\nperiod = 1000\nbody = ["compute 1"]\n'
    s = parse(text, "long.toml")
    f = parse_field(s, "T.period")
    _check_size(s, f, 997, 998_000)
    with pytest.raises(BreakdownError) as err:
        _check_size(with_value(s, f, 1), f, 1, 2_000_000)
    assert str(err.value) == (
        f"--vary T.period: at 1 tick one run lasts 2000000 ticks and releases 2002002 jobs, more than "
        f"{MAX_JOBS_PER_RUN} (the hyperperiod grows with the period): give [system] horizon in the file, "
        "or --max-jobs 2002002"
    )

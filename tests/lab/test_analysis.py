"""`priora analyze` (priora.analysis, docs/analysis.md): exact blocking terms,
response times and verdicts for task sets worked out by hand (the arithmetic
is in the comments), every rejection message, the command line, and a
property test: on many random task sets, whatever response-time analysis
proves, the kernel does (no miss, no response above R_i).

Notation: C = every compute of a body, T = period, D = deadline (T when not
given), p = priority (larger is more urgent), B = blocking term, R = response
time bound. Times are in the file's unit; every file here is in ticks or in
ms at 1000 Hz (one tick is one ms) unless it says otherwise.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest

from priora.analysis import (
    Analysis,
    AnalysisError,
    analysis_dict,
    analysis_json,
    analysis_text,
    analyze,
    edf,
    schema,
)
from priora.analysis.fixed_priority import Interferer, response_time
from priora.analysis.taskset import TaskInfo, extract
from priora.cli.main import main
from priora.record import replace
from priora.run import native
from priora.run.simulate import SimResult, simulate
from priora.scenario.loader import load, parse
from priora.scenario.model import NEEDS_PRIORITY_ORDER, PROTOCOLS, Scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CHAINED = EXAMPLES / "analysis" / "chained_blocking.toml"


def scenario(text: str, source: str = "t.toml") -> Scenario:
    return parse(text, source)


def tasks_toml(*tasks: str, mutexes: tuple[str, ...] = ("M",), unit: str = "tick", hz: int = 1000) -> str:
    head = f'[system]\ntick_hz = {hz}\ntime_unit = "{unit}"\n\n'
    resources = "".join(f'[resources.{m}]\nkind = "mutex"\n\n' for m in mutexes)
    return head + resources + "\n".join(tasks)


def task(name: str, body: str, priority: int | None = None, period: int | None = None, **extra: int) -> str:
    lines = [f"[tasks.{name}]"]
    if priority is not None:
        lines.append(f"priority = {priority}")
    if period is not None:
        lines.append(f"period = {period}")
    lines += [f"{k} = {v}" for k, v in extra.items()]
    actions = ", ".join(f'"{a.strip()}"' for a in body.split(","))
    lines.append(f"body = [{actions}]")
    return "\n".join(lines) + "\n"


def table(analysis: Analysis, field: str) -> dict[str, dict[str, object]]:
    """protocol -> task -> blocking / response / meets_deadline."""
    return {
        p: {name: getattr(r, field) for name, r in result.tasks.items()}
        for p, result in analysis.protocols.items()
    }


def verdicts(analysis: Analysis, test: str) -> dict[str, bool | None]:
    return {p: result.tests[test].passes for p, result in analysis.protocols.items()}


# ---------------------------------------------------------------- hand-worked task sets


def test_rtmach_benchmark1() -> None:
    # examples/rtmach_benchmark1.toml, rate-monotonic: A (T 100, C 10, p 31) and
    # D (T 1000, C 30, p 28) lock O for their whole body; B (T 300, C 100, p 30)
    # and C (T 400, C 60, p 29) lock nothing. ceiling(O) = 31.
    a = analyze(load(EXAMPLES / "rtmach_benchmark1.toml"))
    assert table(a, "blocking") == {
        # none: D's section on O counts for every task at or below A's level, as A
        # locks O. A: B and C (between D's 28 and A's 31) can preempt D while A waits:
        # no bound. B (30): C (29) lies between D and B: no bound either (A, waiting
        # for D, is deferred while C runs, then runs inside B's window). C (29):
        # nothing between 28 and 29: D's section, 30. D: nobody below.
        "none": {"A": None, "B": None, "C": 30, "D": 0},
        # pip: O's holder can inherit 31 >= every p: D's section, 30, for A, B and C.
        "pip": {"A": 30, "B": 30, "C": 30, "D": 0},
        "pcp": {"A": 30, "B": 30, "C": 30, "D": 0},
        "ipcp": {"A": 30, "B": 30, "C": 30, "D": 0},
        "npcs": {"A": 30, "B": 30, "C": 30, "D": 0},
        "rcs": {"A": 0, "B": 0, "C": 0, "D": 0},
    }
    assert table(a, "response") == {
        # none: C: 60 + 30 + ceil(w/100) 10 + ceil(w/300) 100: 200 -> 210 -> 220 -> 220.
        # D: 30 + 10 + 100 + 60 = 200 -> 30 + 20 + 100 + 60 = 210 -> 220 -> 220.
        "none": {"A": None, "B": None, "C": 220, "D": 220},
        # pip: A: 10 + 30 = 40. B: 100 + 30 + ceil(w/100) 10: 140 -> 150 -> 150.
        # C: 220 as above (same B = 30). D: 220 (B = 0).
        "pip": {"A": 40, "B": 150, "C": 220, "D": 220},
        "pcp": {"A": 40, "B": 150, "C": 220, "D": 220},
        "ipcp": {"A": 40, "B": 150, "C": 220, "D": 220},
        # npcs: A and D are one section each, which nothing preempts once begun: their
        # final non-preemptive region F is their whole C. A: S = B = 30, R = 30 + 10.
        # D (B = 0): S = 0 + (30 - 30) + ceil(S/100) 10 + ceil(S/300) 100 + ceil(S/400) 60
        # from 10 + 100 + 60 = 170 -> 180 -> 180, R = 180 + 30 = 210: the A job released
        # at 200 comes after D's section has begun.
        "npcs": {"A": 40, "B": 150, "C": 220, "D": 210},
        # rcs: A 10. B: 100 + 2 * 10 = 120 (A's aborts cost only D, below B).
        # C: 60 + ceil(w/100) 10 + ceil(w/300) 100: 170 -> 180 -> 180.
        # D: each A job may abort D's section on O (30, redone): A counts 10 + 30 per
        # 100: 30 + 40 + 100 + 60 = 230 -> 30 + 120 + 100 + 60 = 310 -> 30 + 160 + 200 + 60
        # = 450 -> 30 + 200 + 200 + 120 = 550 -> 30 + 240 + 200 + 120 = 590 -> 590.
        "rcs": {"A": 10, "B": 120, "C": 180, "D": 590},
    }
    none = a.protocols["none"].tasks
    assert none["A"].reason == (
        "B (priority 30) can preempt D (priority 28) while D holds O and A waits for it: "
        "unbounded priority inversion"
    )
    assert none["B"].reason == (
        "C (priority 29) can preempt D (priority 28) while D holds O and A waits for it: "
        "unbounded priority inversion"
    )
    assert (none["A"].unbounded, none["A"].meets_deadline) == (True, False)
    # Liu-Layland, pip, in priority order (bounds 1, 0.828427, 0.779763, 0.756828):
    #   A: 30/100 + 10/100 = 0.4; B: 30/300 + 0.1 + 100/300 = 0.533333;
    #   C: 30/400 + 0.1 + 0.333333 + 60/400 = 0.658333; D: 0 + 0.613333. All pass.
    assert verdicts(a, "liu_layland") == {
        "none": False, "pip": True, "pcp": True, "ipcp": True, "npcs": True, "rcs": False,
    }  # fmt: skip
    # rcs: for D, A counts C + its abort of D's 30: 40/100 + 1/3 + 0.15 + 0.03 = 0.913333.
    assert a.protocols["rcs"].tests["liu_layland"].reason == (
        "D: B/T + sum C/T = 0.913333 > 4(2^(1/4) - 1) = 0.756828"
    )
    assert a.protocols["none"].tests["liu_layland"].reason == "A: no bound on its blocking"
    u = a.protocols["pip"].tests["utilisation"]
    assert (u.passes, u.value) == (
        True,
        Fraction(10, 100) + Fraction(100, 300) + Fraction(60, 400) + Fraction(30, 1000),
    )
    # The kernelized-monitor bound of [Tokuda-Nakajima 1993], CS = 30:
    # 40/100 + 130/300 + 90/400 + 60/1000 = 1.118333.
    km = a.protocols["npcs"].tests["edf_kernelized_monitor"]
    assert (km.passes, km.value) == (False, Fraction(671, 600))
    assert km.reason == "sum (C + CS)/T = 1.118333 > 1 with CS = 30 ms"


def test_none_counts_the_mutexes_of_more_urgent_tasks() -> None:
    # A counterexample the property test found in the first version, which
    # counted for `none` only the mutexes of the analysed task itself:
    #   T0 (p 2, T 8, C 5, no mutex); T1 (p 4, T 10, D 5) and T2 (p 3, T 5) lock M0
    #   for 1; T3 (p 1, T 30) locks M0 for 3.
    # T3 holds M0 when T2 wants it: T2 waits, T0 runs meanwhile, and T2's job comes
    # back later, inside T0's window. T0 responded 11 on the kernel > the old R = 8.
    # Now M0 counts for T0 (T1 and T2, above T0, lock it); no task lies between T3
    # (p 1) and T0 (p 2), so B = T3's section 3, and
    #   R = 5 + 3 + ceil(w/10) 1 + ceil(w/5) 1: 10 -> 11 -> 13 -> 13.
    text = tasks_toml(
        task("T0", "compute 2, compute 3", priority=2, period=8),
        task("T1", "lock M0, compute 1, unlock M0", priority=4, period=10, deadline=5),
        task("T2", "lock M0, compute 1, unlock M0", priority=3, period=5),
        task("T3", "compute 1, lock M0, compute 3, unlock M0", priority=1, period=30),
        mutexes=("M0",),
    )
    s = scenario(text)
    t0 = analyze(s, ["none"]).protocols["none"].tasks["T0"]
    assert (t0.blocking, t0.response, t0.meets_deadline) == (3, 13, False)
    assert max_response(s.with_protocol("none"), "T0") == 11


def test_pip_is_per_task_because_the_kernel_hands_mutexes_over() -> None:
    # The other counterexample of the first version (then: B = min(sum over tasks,
    # sum over mutexes) = min(3, 1) = 1, R = 5): T2 (p 4, C 4, D 5) locks M0 twice.
    # T0 (p 1) holds M0 when T2 comes; T1 and T4 (p 2) queue on M0 behind T2. T2's
    # first unlock hands M0 to T4 at once, T4 is the holder when T2 locks M0 again:
    # two blockings on one mutex, and T2 responded 6 on the kernel.
    # Now B = one section per less urgent task: T0 1 + T1 1 + T4 1 = 3, R = 7 > 5.
    text = tasks_toml(
        task("T0", "lock M0, compute 1, unlock M0, lock M0, compute 1, unlock M0", priority=1, period=30),
        task("T1", "lock M0, compute 1, unlock M0", priority=2, period=6, deadline=8),
        task(
            "T2",
            "lock M0, compute 2, unlock M0, compute 1, lock M0, compute 1, unlock M0",
            priority=4,
            period=10,
            deadline=5,
        ),
        task("T3", "compute 1", priority=1, period=24),
        task(
            "T4",
            "compute 3, lock M0, compute 1, unlock M0, lock M0, compute 1, unlock M0",
            priority=2,
            period=24,
        ),
        mutexes=("M0",),
    )
    s = scenario(text)
    t2 = analyze(s, ["pip"]).protocols["pip"].tasks["T2"]
    assert (t2.blocking, t2.response, t2.meets_deadline) == (3, 7, False)
    assert [(t.task, t.mutex, t.ticks) for t in t2.blocked_by] == [
        ("T0", "M0", 1),
        ("T1", "M0", 1),
        ("T4", "M0", 1),
    ]
    assert max_response(s.with_protocol("pip"), "T2") == 6


def test_chained_blocking_example() -> None:
    # examples/analysis/chained_blocking.toml (its comments give the same figures).
    a = analyze(load(CHAINED))
    h = {p: (r.tasks["H"].blocking, r.tasks["H"].response) for p, r in a.protocols.items()}
    # H: C 4. pip: L1's S1 5 + L2's S2 6 = 11; pcp, ipcp: max(5, 6) = 6; npcs: X's S3 9.
    assert h == {
        "none": (None, None),
        "pip": (11, 15),
        "pcp": (6, 10),
        "ipcp": (6, 10),
        "npcs": (9, 13),
        "rcs": (0, 4),
    }
    # M (T 40, C 10): pip 10 + 11 + ceil(w/20) 4: 25 -> 29 -> 29; pcp 10 + 6 + 4 = 20;
    # npcs 10 + 9 + ceil(w/20) 4: 23 -> 27 -> 27.
    assert {p: r.tasks["M"].response for p, r in a.protocols.items()} == {
        "none": None, "pip": 29, "pcp": 20, "ipcp": 20, "npcs": 27, "rcs": 14,
    }  # fmt: skip
    assert verdicts(a, "response_time") == {
        "none": False, "pip": False, "pcp": True, "ipcp": True, "npcs": False, "rcs": False,
    }  # fmt: skip
    # The kernel under pip: H's worst job waits for L1, then for L2 (phases 1 and 0).
    assert max_response(load(CHAINED), "H") == 13


def test_chained_blocking_text() -> None:
    text = analysis_text(analyze(load(CHAINED)))
    assert (
        "Blocking B (ms)\n"
        "task  none  pip  pcp  ipcp  npcs  rcs\n"
        "----  ----  ---  ---  ----  ----  ---\n"
        "H      inf   11    6     6     9    0\n"
        "M      inf   11    6     6     9    0\n"
        "L1       6    6    6     6     9    0\n"
        "L2       0    0    0     0     9    0\n"
        "X        0    0    0     0     0    0\n"
    ) in text
    assert (
        "Response time R (ms): ok when R <= D\n"
        "task  deadline (ms)   none     pip    pcp   ipcp    npcs    rcs\n"
        "----  -------------  -----  ------  -----  -----  ------  -----\n"
        "H                12    inf  15 > D  10 ok  10 ok  13 > D   4 ok\n"
        "M                40    inf   29 ok  20 ok  20 ok   27 ok  14 ok\n"
        "L1               80  32 ok   32 ok  32 ok  32 ok   35 ok  36 ok\n"
        "L2              100  34 ok   34 ok  34 ok  34 ok   57 ok    inf\n"
        "X               200  57 ok   57 ok  57 ok  57 ok   43 ok    inf\n"
    ) in text
    # npcs, X: its body is one section on S3, which nothing preempts once it has
    # begun (F = C = 9), and nobody is below it (B = 0). Its section starts at the
    # latest at S = ceil(S/20) 4 + ceil(S/40) 10 + ceil(S/80) 8 + ceil(S/100) 8 from
    # 30 -> 34 -> 34, so R = 34 + 9 = 43: the jobs of H and M released at 40, while
    # it runs, no longer count, as they did in the fully preemptive 57.
    assert (
        "  none: H: B unbounded: M (priority 30) can preempt L2 (priority 28) while L2 holds S2 and H "
        "waits for it: unbounded priority inversion\n"
    ) in text
    assert (
        "  npcs: EDF processor demand with blocking: at L = 12 ms the demand with blocking is 13 ms > L\n"
        in text
    )


def test_the_documented_output_is_the_output() -> None:
    # docs/analysis.md shows the whole text output of the chained-blocking example.
    docs = (EXAMPLES.parent / "docs" / "analysis.md").read_text()
    command = "$ priora analyze examples/analysis/chained_blocking.toml\n"
    shown = docs[docs.index(command) + len(command) :].split("\n```")[0]
    source = "examples/analysis/chained_blocking.toml"
    assert shown == analysis_text(analyze(parse(CHAINED.read_text(), source)))


def test_one_shot_tasks() -> None:
    # examples/inversion.toml: L (p 1; S for 4, then 1), H (p 3; 1, S for 1, 1), M (p 2; 5).
    # No period: each task has one job; the utilisation bounds do not apply.
    a = analyze(load(EXAMPLES / "inversion.toml"))
    assert table(a, "blocking")["pip"] == {"L": 0, "H": 4, "M": 4}  # M: push-through (S's level 3 >= 2)
    # pip: H 3 + 4 = 7; M 5 + 4 + H's 3 = 12; L 5 + 3 + 5 = 13. The kernel: H 6, M 10, L 13.
    assert table(a, "response")["pip"] == {"L": 13, "H": 7, "M": 12}
    # rcs: H aborts L's section (4, redone): L 5 + (3 + 4) + 5 = 17; H 3; M 5 + 3 = 8.
    assert table(a, "response")["rcs"] == {"L": 17, "H": 3, "M": 8}
    assert table(a, "meets_deadline")["pip"] == {"L": None, "H": None, "M": None}
    pip = a.protocols["pip"].tests
    assert (pip["utilisation"].passes, pip["utilisation"].reason) == (None, "task L has no period")
    assert (pip["response_time"].passes, pip["response_time"].reason) == (None, "no task has a deadline")


def test_nested_sections_under_pip_and_pcp() -> None:
    # examples/chain.toml: A (p 1) M1 4; B (p 2) M2 2 with M1 1 nested; C (p 3) M3 2
    # with M2 1 nested; D (p 5) M3 1; X (p 4) no mutex. Ceilings M1 2, M2 3, M3 5;
    # pip levels: M3 5, M2 5 (C locks M2 holding M3), M1 5 (B locks M1 holding M2).
    a = analyze(load(EXAMPLES / "chain.toml"))
    assert [a.taskset.mutexes[m].inheritance for m in ("M1", "M2", "M3")] == [5, 5, 5]
    # pip, D: A's M1 4 + B's M2 section 2 + C's M3 section 2 = 8 (the chain); R = 2 + 8.
    # pcp, D: one section with ceiling >= 5: C's M3 2; R = 4. X (p 4): 2 + 2 + D's 2 = 6.
    assert table(a, "blocking")["pip"] == {"A": 0, "B": 4, "C": 6, "D": 8, "X": 8}
    assert table(a, "blocking")["pcp"] == {"A": 0, "B": 4, "C": 2, "D": 2, "X": 2}
    assert table(a, "response")["pip"]["D"] == 10
    assert table(a, "response")["pcp"]["X"] == 6
    # none, C: B may wait for M1 (A's) while holding M2, which C wants.
    assert a.protocols["none"].tasks["C"].reason == (
        "B may wait for M1 (locked by A) while it holds M2 (transitive blocking without inheritance: not bounded)"
    )


def test_crossing_sections_make_one_stretch() -> None:
    # L: lock A, compute 2, lock B, compute 3, unlock A, compute 4, unlock B: under
    # npcs L cannot be preempted from "lock A" to "unlock B": 2 + 3 + 4 = 9. For H,
    # who locks only B: pip/pcp count the stretch holding B (3 + 4 = 7).
    text = tasks_toml(
        task("H", "lock B, compute 1, unlock B", priority=2, period=50),
        task(
            "L", "lock A, compute 2, lock B, compute 3, unlock A, compute 4, unlock B", priority=1, period=50
        ),
        mutexes=("A", "B"),
    )
    a = analyze(scenario(text))
    assert {p: r.tasks["H"].blocking for p, r in a.protocols.items()} == {
        "none": 7, "pip": 7, "pcp": 7, "ipcp": 7, "npcs": 9, "rcs": 0,
    }  # fmt: skip
    assert [(s.mutex, s.ticks) for s in a.taskset.task("L").sections] == [("A", 5), ("B", 7)]


def test_equal_priorities_interfere() -> None:
    # A and B share priority 2 (FIFO between them: each counts as interference for
    # the other); L (p 1) locks M for 2, as A does.
    # A: 3 + B_A 2 + B's 3 = 8; B: 3 + 2 (M's level 2 >= 2: push-through) + A's 3 = 8;
    # L: 3 + A's 3 + B's 3 = 9.
    text = tasks_toml(
        task("A", "lock M, compute 3, unlock M", priority=2, period=20),
        task("B", "compute 3", priority=2, period=20),
        task("L", "compute 1, lock M, compute 2, unlock M", priority=1, period=40, phase=0),
    )
    a = analyze(scenario(text), ["pip"])
    assert table(a, "blocking")["pip"] == {"A": 2, "B": 2, "L": 0}
    assert table(a, "response")["pip"] == {"A": 8, "B": 8, "L": 9}


def test_deadline_beyond_the_period_checks_the_busy_period() -> None:
    # Lehoczky (RTSS 1990): t1 (C 26, T 70), t2 (C 62, T 100, D 200). The worst job
    # of t2 is not the first: w_q = (q+1) 62 + ceil(w_q/70) 26:
    #   q 0: 114 (R 114); q 1: 202 (102); q 2: 316 (116); q 3: 404 (104);
    #   q 4: 518 (118); q 5: 606 (106); q 6: 694 (94) <= 700: the busy period ends.
    text = tasks_toml(
        task("t1", "compute 26", priority=2, period=70),
        task("t2", "compute 62", priority=1, period=100, deadline=200),
        mutexes=(),
    )
    s = scenario(text)
    t2 = analyze(s, ["pip"]).protocols["pip"].tasks["t2"]
    assert (t2.response, t2.meets_deadline) == (118, True)
    assert max_response(s, "t2") == 118  # the kernel's 5th job, released at 400


def responses(a: Analysis, protocol: str) -> list[int | None]:
    return [r.response for r in a.protocols[protocol].tasks.values()]


def published(s: Scenario) -> list[int | None]:
    """npcs' R_i with B_i one tick less, as discrete-time analyses write it:
    the figures they publish. (They also count a more urgent job released at
    the instant a final region starts; that changes nothing in these sets.)"""
    a = analyze(s, ["npcs"])
    ts = a.taskset
    found: list[int | None] = []
    for t in ts.tasks:
        b = a.protocols["npcs"].tasks[t.name].blocking
        assert b is not None
        others = [Interferer(j.name, j.wcet, j.period) for j in ts.interfering(t)]
        found.append(response_time(t, max(b - 1, 0), others, final=t.final_region).ticks)
    return found


def with_phases(s: Scenario, *phases: int) -> Scenario:
    return replace(s, tasks=tuple(replace(t, phase=p) for t, p in zip(s.tasks, phases, strict=True)))


def test_fully_nonpreemptive_published_example() -> None:
    # examples/analysis/nonpreemptive.toml: (C, T) = (20, 70), (20, 80), (35, 200),
    # each body one npcs section; the fully non-preemptive test of the library of
    # [Bozhko-Brandenburg 2020] gives R = 54, 74, 75. Here B = 35 for T1 and T2 (a
    # less urgent task that locks at a release's very instant locks first), and
    # R = S + C (F = C: nothing preempts a begun job):
    #   T1: S = 35, R = 55. T2: S = 35 + ceil(S/70) 20 = 55, R = 75.
    #   T3: S = ceil(S/70) 20 + ceil(S/80) 20 = 40, R = 75.
    # T2's level busy period, 35 + ceil(L/70) 20 + ceil(L/80) 20 = 115 > 80, has two
    # of its jobs; the second: S = 35 + 20 + ceil(S/70) 20 = 95, R = 115 - 80 = 35.
    s = load(EXAMPLES / "analysis" / "nonpreemptive.toml")
    a = analyze(s, ["npcs"])
    assert [t.final_region for t in a.taskset.tasks] == [20, 20, 35]
    assert [r.blocking for r in a.protocols["npcs"].tasks.values()] == [35, 35, 0]
    assert responses(a, "npcs") == [55, 75, 75]
    # With B one tick less, the same analysis gives the published figures: the two
    # differ by exactly that tick.
    assert published(s) == [54, 74, 75]
    # The kernel, synchronous release: T3's first job responds 75; at 420 T3 locks
    # S as T2 ends, before the tick of 420 releases T1, which responds 35 + 20 = 55.
    assert [max_response(s, t.name) for t in s.tasks] == [55, 40, 75]
    # T2's worst on the kernel is 74 (T3 alone at 0, T2 at 1, T1 at 34): 75 would
    # need T3 to lock at T2's very release, so a job ending at that instant, and T1
    # released within T3's section; no phasing gives it (every one of T1's and T2's
    # phases against T3's 0 below). The published 74 is the kernel's worst for T2.
    assert max_response(with_phases(s, 34, 1, 0), "T2") == 74
    assert max(max_response(with_phases(s, p1, p2, 0), "T2") for p1 in range(70) for p2 in range(80)) == 74


def test_limited_preemptive_published_example() -> None:
    # examples/analysis/limited_preemptive.toml: (C, T) = (4, 12), (6, 20), (8, 40),
    # regions of 2 2, 3 3 and 1 4 3 ticks (npcs sections with preemption points
    # between them): longest 2, 3, 4 and last F = 2, 3, 3, the limited-preemptive
    # test of the library of [Bozhko-Brandenburg 2020], which gives R = 7, 13, 22.
    #   T1: B = max(3, 4) = 4; S = 4 + (4 - 2) = 6; R = 8.
    #   T2: B = 4; S = 4 + (6 - 3) + ceil(S/12) 4 = 11; R = 14.
    #   T3: B = 0; S = (8 - 3) + ceil(S/12) 4 + ceil(S/20) 6: 15 -> 19; R = 22.
    s = load(EXAMPLES / "analysis" / "limited_preemptive.toml")
    a = analyze(s, ["npcs"])
    assert [t.final_region for t in a.taskset.tasks] == [2, 3, 3]
    assert [r.blocking for r in a.protocols["npcs"].tasks.values()] == [4, 4, 0]
    assert responses(a, "npcs") == [8, 14, 22]
    assert published(s) == [7, 13, 22]
    # The kernel reaches every bound with the file's phases: T3's job of 59 locks its
    # 4-tick region at 60 before the tick of 60 releases T1 and T2 (the file's
    # comment has the schedule).
    assert [max_response(s, t.name) for t in s.tasks] == [8, 14, 22]


def test_a_job_ends_with_its_last_action_in_a_chain() -> None:
    # examples/analysis/chain_job_end.toml, pip: L locks A at 0; M locks B at 1 and
    # waits for A at 2; H waits for B at 3, and L runs at H's priority through M. L
    # unlocks A at 8, its last action, and ends there; M then runs 8-9 and unlocks A
    # and B at 9, its last action, and ends there; H runs 9-10. (Had each ended only
    # when it next ran, after the task it woke, L and M would both end at 10.)
    s = load(EXAMPLES / "analysis" / "chain_job_end.toml")
    result = simulate(s)
    finish = {s.tasks[int(j["task"])].name: int(j["finish"]) // 10**6 for j in result.jobs}
    assert finish == {"L": 8, "M": 9, "H": 10}
    # pip's bounds hold: H is blocked by M's stretch 2 and L's 7: B = 9, R = 10.
    a = analyze(s, ["pip"])
    assert [(r.blocking, r.response) for r in a.protocols["pip"].tasks.values()] == [
        (0, 10),
        (7, 10),
        (9, 10),
    ]


def test_liu_layland_and_hyperbolic_are_exact() -> None:
    # Two tasks, n = 2: the bound is 2(sqrt(2) - 1) = 0.828427124...
    # A: C 1, T 2 (0.5); B: T 10^6 with C 328427 (sum 0.828427, passes) or 328428 (fails).
    def sets(c: int) -> Analysis:
        text = tasks_toml(
            task("A", "compute 1", priority=2, period=2),
            task("B", f"compute {c}", priority=1, period=1_000_000),
            mutexes=(),
        )
        return analyze(scenario(text), ["pip"])

    assert sets(328427).protocols["pip"].tests["liu_layland"].passes is True
    fail = sets(328428).protocols["pip"].tests["liu_layland"]
    assert (fail.passes, fail.reason) == (False, "B: B/T + sum C/T = 0.828428 > 2(2^(1/2) - 1) = 0.828427")
    # Hyperbolic at its boundary: (3/5 + 1)(2/8 + 1) = 1.6 * 1.25 = 2 <= 2, while
    # Liu-Layland fails (0.85 > 0.828427) and RTA gives R_B = 2 + ceil(w/5) 3 = 5 <= 8.
    text = tasks_toml(
        task("A", "compute 3", priority=2, period=5),
        task("B", "compute 2", priority=1, period=8),
        mutexes=(),
    )
    tests = analyze(scenario(text), ["pip"]).protocols["pip"].tests
    assert (tests["liu_layland"].passes, tests["hyperbolic"].passes, tests["response_time"].passes) == (
        False,
        True,
        True,
    )


def test_rate_monotonic_bounds_need_rate_monotonic_priorities() -> None:
    text = tasks_toml(
        task("A", "compute 1", priority=1, period=5),
        task("B", "compute 1", priority=2, period=10),
        mutexes=(),
    )
    test = analyze(scenario(text), ["pip"]).protocols["pip"].tests["hyperbolic"]
    assert (test.passes, test.reason) == (
        None,
        "the priorities are not rate-monotonic: B (period 10 tick) is more urgent than A (period 5 tick)",
    )


def test_edf_demand_with_blocking() -> None:
    # A: C 2, T = D 5, locks M for 1. B: C 5, T = D 10: N for 4 (only B), M for 1.
    # U = 0.4 + 0.5 = 0.9. Check points up to L* = (0 + b(5)) / (1 - 0.9).
    # npcs: b(5) = B's longest section 4: dbf(5) + 4 = 2 + 4 = 6 > 5.
    # pcp: b(5) = B's section on M (A, with D 5 <= 5, locks it): 1: 3 <= 5; L* = 10;
    #      L = 10: dbf = 4 + 5 = 9 <= 10. Passes.
    text = tasks_toml(
        task("A", "lock M, compute 1, unlock M, compute 1", priority=2, period=5),
        task("B", "lock N, compute 4, unlock N, lock M, compute 1, unlock M", priority=1, period=10),
        mutexes=("M", "N"),
    )
    a = analyze(scenario(text))
    demand = {p: (r.tests["edf_demand"].passes, r.tests["edf_demand"].reason) for p, r in a.protocols.items()}
    assert demand == {
        "none": (None, "without inheritance the blocking under EDF is unbounded as under fixed priority"),
        "pip": (None, "no EDF demand test with a pip blocking term here"),
        "pcp": (True, None),
        "ipcp": (True, None),
        "npcs": (False, "at L = 5 tick the demand with blocking is 6 tick > L"),
        "rcs": (None, "no EDF demand test with rcs abort costs here"),
    }
    # The kernelized-monitor bound, CS = 4: (2 + 4)/5 + (5 + 4)/10 = 2.1 > 1.
    km = a.protocols["npcs"].tests["edf_kernelized_monitor"]
    assert (km.passes, km.value, km.reason) == (
        False,
        Fraction(21, 10),
        "sum (C + CS)/T = 2.100000 > 1 with CS = 4 tick",
    )
    ok = tasks_toml(
        task("A", "lock M, compute 1, unlock M", priority=2, period=10),
        task("B", "compute 1", priority=1, period=10),
    )
    km = analyze(scenario(ok), ["npcs"]).protocols["npcs"].tests["edf_kernelized_monitor"]
    assert (km.passes, km.value) == (True, Fraction(2, 10) + Fraction(2, 10))  # (1 + 1)/10 twice


def test_edf_demand_gives_up_beyond_its_limit() -> None:
    # U = 1/2 + 1/3 + 1/6 = 1: the check goes to H + D_max = 6 + 6 = 12, at the
    # deadlines 2, 4, ..., 12 (6), 3, 6, 9, 12 (4) and 6, 12 (2): 12 points.
    text = tasks_toml(
        task("A", "compute 1", priority=3, period=2),
        task("B", "compute 1", priority=2, period=3),
        task("C", "compute 1", priority=1, period=6),
        mutexes=(),
    )
    ts = extract(scenario(text))
    assert edf.demand(ts, "npcs", max_points=12).passes is True
    test = edf.demand(ts, "npcs", max_points=11)
    assert (test.passes, test.reason) == (None, "12 absolute deadlines to check, more than the limit of 11")


def test_times_in_the_files_unit() -> None:
    # tick_hz 10000 in ms: a tick is 0.1 ms. L's section 0.5 ms blocks H.
    text = tasks_toml(
        task("H", "lock M, compute 0.2, unlock M", priority=2, period=10),
        task("L", "lock M, compute 0.5, unlock M", priority=1, period=20),
        unit="ms",
        hz=10000,
    )
    a = analyze(scenario(text), ["pip"])
    h = a.protocols["pip"].tasks["H"]
    assert (h.blocking, h.response) == (5, 7)  # ticks
    document = json.loads(analysis_json(a))
    assert document["protocols"]["pip"]["tasks"]["H"]["blocking"] == 0.5
    assert document["protocols"]["pip"]["tasks"]["H"]["response"] == 0.7
    assert document["tasks"]["L"]["utilisation"] == 0.025


def test_response_time_limits() -> None:
    t = TaskInfo("T", 1, 10, 10, 5, (), ())
    # The level uses 5/10 + 6/10 > 1: no end to the busy period.
    r = response_time(t, 0, [Interferer("H", 6, 10)])
    assert (r.ticks, r.meets, r.unbounded) == (None, False, True)
    assert r.reason == "the tasks at or above its priority use 1.100000 of the processor"
    # Exactly 1 with a blocking term: the busy period never ends either.
    r = response_time(t, 1, [Interferer("H", 5, 10)])
    assert (r.unbounded, r.reason) == (
        True,
        "the tasks at or above its priority use 1.000000 of the processor",
    )
    # Exactly 1 without blocking: it ends at the hyperperiod; R = 5 + 5 = 10.
    assert response_time(t, 0, [Interferer("H", 5, 10)]).ticks == 10
    # The step limit: C 5 under (9, 10) takes 14 -> 23 -> 32 -> 41 -> 50 -> 50.
    slow = TaskInfo("T", 1, 1000, 1000, 5, (), ())
    assert response_time(slow, 0, [Interferer("H", 9, 10)]).ticks == 50
    r = response_time(slow, 0, [Interferer("H", 9, 10)], max_steps=2)
    assert (r.ticks, r.meets, r.reason) == (
        None,
        None,
        "the response-time iteration did not converge within 2 steps",
    )


# ---------------------------------------------------------------- protocols without an analysis


def test_deadlock_has_no_analysis_under_none_and_pip() -> None:
    text = tasks_toml(
        task("T1", "lock A, compute 1, lock B, compute 1, unlock B, unlock A", priority=2, period=10),
        task("T2", "lock B, compute 1, lock A, compute 1, unlock A, unlock B", priority=1, period=10),
        mutexes=("A", "B"),
    )
    a = analyze(scenario(text))
    reason = "deadlock possible (T1 locks B while holding A, T2 locks A while holding B)"
    assert {p: r.reason for p, r in a.protocols.items()} == {
        "none": reason, "pip": reason, "pcp": None, "ipcp": None, "npcs": None, "rcs": None,
    }  # fmt: skip
    assert a.protocols["pip"].tasks["T1"].reason == reason
    assert a.protocols["pip"].tests["response_time"].reason == reason
    # pcp: T1 blocked at most once by T2's outermost section on B (ceiling 2): 2.
    assert a.protocols["pcp"].tasks["T1"].blocking == 2


def test_fifo_mutexes() -> None:
    text = tasks_toml(
        task("H", "lock M, compute 1, unlock M", priority=2, period=10),
        task("L", "lock M, compute 1, unlock M", priority=1, period=10),
    ).replace('kind = "mutex"\n', 'kind = "mutex"\norder = "fifo"\nprotocol = "none"\n')
    a = analyze(scenario(text))
    assert (
        a.protocols["pip"].reason
        == "mutex M is FIFO-ordered: pip needs priority order (the kernel refuses it)"
    )
    assert a.protocols["pcp"].reason == (
        "mutex M is FIFO-ordered: the pcp analysis assumes that the most urgent waiter gets a mutex first"
    )
    assert {p: r.reason for p, r in a.protocols.items() if p not in ("pip", "pcp")} == {
        "none": None, "ipcp": None, "npcs": None, "rcs": None,
    }  # fmt: skip


def with_ceiling(s: Scenario, name: str, ceiling: int) -> Scenario:
    """`s` with mutex `name`'s ceiling given (as `ceiling = N` in the file),
    without the loader's check, so that the analysis' own check is seen."""
    resources = tuple(replace(r, ceiling=ceiling) if r.name == name else r for r in s.resources)
    return replace(s, resources=resources)


def test_an_explicit_ceiling_is_used() -> None:
    # H (p 3) never locks M; L (p 1) and X (p 2) do. Computed ceiling 2: no pcp
    # blocking for H. Given ceiling 3: L's section 4 (the longest, with ceiling
    # 3 >= 3) blocks H under pcp and ipcp.
    text = tasks_toml(
        task("H", "compute 1", priority=3, period=20),
        task("X", "lock M, compute 1, unlock M", priority=2, period=20),
        task("L", "lock M, compute 4, unlock M", priority=1, period=20),
    )
    s = scenario(text)
    assert analyze(s, ["pcp"]).protocols["pcp"].tasks["H"].blocking == 0
    given = analyze(with_ceiling(s, "M", 3), ["pcp", "ipcp", "pip"])
    assert table(given, "blocking") == {
        "pip": {"H": 0, "X": 4, "L": 0},  # pip ignores ceilings
        "pcp": {"H": 4, "X": 4, "L": 0},
        "ipcp": {"H": 4, "X": 4, "L": 0},
    }
    assert (given.taskset.mutexes["M"].ceiling, given.taskset.mutexes["M"].ceiling_given) == (3, True)
    low = analyze(with_ceiling(s, "M", 1), ["pcp", "npcs"])
    assert low.protocols["pcp"].reason == (
        "mutex M: its ceiling 1 is below the priority 2 of X, which locks it (ceiling violated)"
    )
    assert low.protocols["npcs"].reason is None


# ---------------------------------------------------------------- what the analysis refuses


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "compute 1, delay 2, compute 1",
            "t.toml: [tasks.T] body[1]: delay: the analysis does not cover a task that suspends itself or yields",
        ),
        (
            "delay 0",
            "t.toml: [tasks.T] body[0]: delay: the analysis does not cover a task that suspends itself or yields",
        ),
        (
            "down Items",
            "t.toml: [tasks.T] body[0]: down Items: a down that may wait for another task's up is not covered "
            "(the blocking analysis covers mutexes; only a down with timeout 0 never waits)",
        ),
        (
            "compute 1, down Items timeout 3",
            "t.toml: [tasks.T] body[1]: down Items: a down that may wait for another task's up is not covered "
            "(the blocking analysis covers mutexes; only a down with timeout 0 never waits)",
        ),
    ],
)
def test_refused(body: str, message: str) -> None:
    text = tasks_toml(task("T", body, period=10), mutexes=()) + '\n[resources.Items]\nkind = "counting"\n'
    with pytest.raises(AnalysisError) as caught:
        analyze(scenario(text))
    assert str(caught.value) == message


def test_up_and_a_down_that_never_waits_are_accepted() -> None:
    text = tasks_toml(task("T", "down Items timeout 0, compute 2, up Items", period=10), mutexes=())
    text += '\n[resources.Items]\nkind = "counting"\n'
    assert analyze(scenario(text), ["pip"]).protocols["pip"].tasks["T"].response == 2


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "producer_consumer",
            "producer_consumer.toml: [tasks.P] body[0]: down slots: a down that may wait for another task's up "
            "is not covered (the blocking analysis covers mutexes; only a down with timeout 0 never waits)",
        ),
        (
            "minix_prodcons",
            "minix_prodcons.toml: [tasks.P] body[0]: down empty: a down that may wait for another task's up "
            "is not covered (the blocking analysis covers mutexes; only a down with timeout 0 never waits)",
        ),
    ],
)
def test_the_semaphore_examples_are_refused(name: str, message: str) -> None:
    with pytest.raises(AnalysisError) as caught:
        analyze(load(EXAMPLES / f"{name}.toml"))
    assert str(caught.value).endswith(message)


# ---------------------------------------------------------------- the command line


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_text(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "analyze", str(EXAMPLES / "rtmach_benchmark1.toml"))
    assert (status, err) == (0, "")
    assert out.startswith(f"Analysis of {EXAMPLES / 'rtmach_benchmark1.toml'}: times in ms (tick_hz 1000)\n")
    assert (
        "Tests: yes = schedulable by the test, no = not shown, - = does not apply\n"
        "test                                           none  pip  pcp  ipcp  npcs  rcs\n"
        "---------------------------------------------  ----  ---  ---  ----  ----  ---\n"
        "total utilisation U <= 1 (necessary)            yes  yes  yes   yes   yes  yes\n"
        "Liu-Layland with blocking                        no  yes  yes   yes   yes   no\n"
        "hyperbolic with blocking                         no  yes  yes   yes   yes   no\n"
        "response-time analysis                           no  yes  yes   yes   yes  yes\n"
        "EDF processor demand with blocking                -    -  yes   yes   yes    -\n"
        "EDF kernelized monitor [Tokuda-Nakajima 1993]     -    -    -     -    no    -\n"
    ) in out


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "analyze", str(CHAINED), "--json", "--protocol", "pip", "pcp")
    assert (status, err) == (0, "")
    document = json.loads(out)
    jsonschema.validate(document, schema(), cls=jsonschema.Draft202012Validator)
    provenance = document.pop("provenance")  # tests/lab/test_provenance_tables.py checks it
    assert provenance["document"] == "analysis"
    assert document == analysis_dict(analyze(load(CHAINED), ["pip", "pcp"])) | {"file": str(CHAINED)}
    assert list(document["protocols"]) == ["pip", "pcp"]
    assert document["protocols"]["pip"]["tasks"]["H"] == {
        "blocking": 11,
        "blocked_by": [
            {"task": "L1", "mutex": "S1", "length": 5},
            {"task": "L2", "mutex": "S2", "length": 6},
        ],
        "response": 15,
        "meets_deadline": False,
        "unbounded": False,
        "reason": None,
    }
    assert document["protocols"]["pcp"]["tests"]["response_time"] == {
        "passes": True,
        "value": None,
        "reason": None,
    }
    # F: only X's body ends with its section (H, L1 and L2 compute after theirs).
    assert [t["final_region"] for t in document["tasks"].values()] == [0, 0, 0, 0, 9]
    assert document["mutexes"]["S3"] == {
        "users": ["X"],
        "ceiling": 27,
        "ceiling_given": False,
        "inheritance_level": 27,
        "longest_section": 9,
    }
    # Repeated --protocol, in any order: the canonical order, once each.
    _, out, _ = run(
        capsys, "analyze", str(CHAINED), "--json", "--protocol", "rcs", "--protocol", "none", "rcs"
    )
    assert list(json.loads(out)["protocols"]) == ["none", "rcs"]
    # The list takes every word after it: "--" ends it before FILE.
    _, out, _ = run(capsys, "analyze", "--json", "--protocol", "npcs", "--", str(CHAINED))
    assert list(json.loads(out)["protocols"]) == ["npcs"]


@pytest.mark.parametrize(
    "name",
    [
        "rtmach_benchmark1",
        "inversion",
        "chain",
        "analysis/chained_blocking",
        "analysis/nonpreemptive",
        "analysis/limited_preemptive",
        "analysis/chain_job_end",
    ],
)
def test_every_document_validates(capsys: pytest.CaptureFixture[str], name: str) -> None:
    status, out, _ = run(capsys, "analyze", str(EXAMPLES / f"{name}.toml"), "--json")
    assert status == 0
    jsonschema.validate(json.loads(out), schema(), cls=jsonschema.Draft202012Validator)


def test_cli_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, err = run(capsys, "analyze", str(EXAMPLES / "producer_consumer.toml"))
    assert (status, out) == (2, "")
    assert err == (
        f"priora: {EXAMPLES / 'producer_consumer.toml'}: [tasks.P] body[0]: down slots: a down that may wait "
        "for another task's up is not covered (the blocking analysis covers mutexes; only a down with timeout 0 "
        "never waits)\n"
    )
    missing = tmp_path / "missing.toml"
    status, out, err = run(capsys, "analyze", str(missing))
    assert (status, out, err) == (
        2,
        "",
        f"priora: {missing}: cannot read the file: No such file or directory\n",
    )
    status, out, err = run(capsys, "analyze", str(CHAINED), "--protocol", "srp")
    assert (status, out) == (2, "")
    assert (
        "argument --protocol: invalid choice: 'srp' (choose from 'none', 'pip', 'pcp', 'ipcp', 'npcs', 'rcs')"
        in err
    )
    assert "Traceback" not in err


def test_cli_analyzes_a_file_whose_hyperperiod_is_beyond_the_clock(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # simulate refuses it without --horizon; nothing runs here. Three coprime periods
    # near 2^32: the hyperperiod is about 2^96 ticks; U < 1 bounds the EDF check.
    path = tmp_path / "long.toml"
    path.write_text(
        tasks_toml(
            task("A", "compute 1", priority=3, period=4294967291),
            task("B", "compute 1", priority=2, period=4294967279),
            task("C", "compute 1", priority=1, period=4294967231),
            mutexes=(),
        )
    )
    status, out, err = run(capsys, "analyze", str(path), "--json", "--protocol", "npcs")
    assert (status, err) == (0, "")
    npcs = json.loads(out)["protocols"]["npcs"]
    assert npcs["tasks"]["C"]["response"] == 3
    assert npcs["tests"]["edf_demand"]["passes"] is True


# ---------------------------------------------------------------- agreement with the kernel


def max_response(s: Scenario, name: str) -> int:
    """The largest response of `name`'s finished jobs on the kernel, in ticks."""
    result = simulate(s)
    index = next(i for i, t in enumerate(s.tasks) if t.name == name)
    jobs = result.jobs[(result.jobs["task"] == index) & (result.jobs["finish"] != native.NEVER)]
    ns = int((jobs["finish"] - jobs["release"]).max())
    assert ns % (10**9 // s.system.tick_hz) == 0
    return ns // (10**9 // s.system.tick_hz)


# Every protocol of the kernel: the analysis gives a bound under
# each of them (docs/analysis.md), and the kernel runs each one.
KERNEL_PROTOCOLS = PROTOCOLS
SETS = 3000
PERIODS = (4, 5, 6, 8, 10, 12, 15, 20, 24, 30)  # every hyperperiod divides 120


def _split(rng: random.Random, total: int, parts: int) -> list[int]:
    parts = max(1, min(parts, total))
    cuts = sorted(rng.sample(range(1, total), parts - 1))
    bounds = [0, *cuts, total]
    return [b - a for a, b in zip(bounds, bounds[1:], strict=False)]


def _random_body(
    rng: random.Random, wcet: int, mutexes: list[str], sections: float, pieces: int = 3
) -> list[str]:
    """`wcet` ticks of compute, some inside critical sections: single, nested
    (lock A, lock B, unlock B, unlock A) or crossing (lock A, lock B, unlock A,
    unlock B); now and then a lock with a timeout."""
    body: list[str] = []
    for piece in _split(rng, wcet, rng.randint(1, pieces)):
        if rng.random() > sections:
            body.append(f"compute {piece}")
            continue
        a = rng.choice(mutexes)
        lock = f"lock {a}" + (f" timeout {rng.randint(0, 6)}" if rng.random() < 0.1 else "")
        others = [m for m in mutexes if m != a]
        shape = rng.random()
        if shape < 0.6 or not others or piece < 2:
            body += [lock, f"compute {piece}", f"unlock {a}"]
            continue
        b = rng.choice(others)
        x, y, z = (_split(rng, piece, rng.randint(2, 3)) + [0])[:3]
        compute = [[f"compute {n}"] if n else [] for n in (x, y, z)]
        inner_end, outer_end = (
            (f"unlock {b}", f"unlock {a}") if shape < 0.85 else (f"unlock {a}", f"unlock {b}")
        )
        body += [lock, *compute[0], f"lock {b}", *compute[1], inner_end, *compute[2], outer_end]
    return body


def random_task_set(rng: random.Random, wide: bool = False) -> str:
    """2 to 5 periodic tasks with 1 to 3 mutexes, total utilisation 0.3 to 0.95
    (UUniFast), random priorities (ties one time in five), deadlines equal to,
    shorter or longer than the period, synchronous release or random phases
    (the analysis holds for any phases), a FIFO mutex one time in ten, a
    ceiling given one time in five (from the most urgent locker's priority
    to 2 above it; else the lab computes it). `wide`: 2 to 8 tasks, 1 to 4
    mutexes, 1 to 4 pieces of compute per body, utilisation up to 1."""
    n = rng.randint(2, 8 if wide else 5)
    mutexes = [f"M{i}" for i in range(rng.randint(1, 4 if wide else 3))]
    shares, rest = [], rng.uniform(0.3, 1.0 if wide else 0.95)
    for i in range(1, n):
        following = rest * rng.random() ** (1 / (n - i))
        shares.append(rest - following)
        rest = following
    shares.append(rest)
    ties = rng.random() < 0.2
    priorities = [rng.randint(1, max(1, n - 1)) for _ in range(n)] if ties else rng.sample(range(1, n + 1), n)
    phased = rng.random() < 0.5
    sections = rng.uniform(0.3, 0.9)
    head = ["[system]", 'time_unit = "tick"', 'protocol = "none"']
    tables: dict[str, list[str]] = {}
    for m in mutexes:
        tables[m] = [f"[resources.{m}]", 'kind = "mutex"'] + (
            ['order = "fifo"'] if rng.random() < 0.1 else []
        )
    lines: list[str] = []
    lockers: dict[str, list[int]] = {m: [] for m in mutexes}
    for i in range(n):
        period = rng.choice(PERIODS)
        wcet = max(1, round(shares[i] * period))
        lines += [f"[tasks.T{i}]", f"priority = {priorities[i]}", f"period = {period}"]
        if phased:
            lines.append(f"phase = {rng.randrange(period)}")
        shape = rng.random()
        if shape < 0.2:
            lines.append(f"deadline = {rng.randint(wcet, period)}")
        elif shape < 0.35:
            lines.append(f"deadline = {rng.randint(period + 1, 2 * period)}")
        body = _random_body(rng, wcet, mutexes, sections, 4 if wide else 3)
        lines.append("body = [" + ", ".join(f'"{a}"' for a in body) + "]")
        for m in mutexes:
            if f"lock {m}" in body or any(a.startswith(f"lock {m} ") for a in body):
                lockers[m].append(priorities[i])
    for m in mutexes:
        if rng.random() < 0.2:
            least = max(lockers[m], default=0)
            tables[m].append(f"ceiling = {rng.randint(least, least + 2)}")
    return "\n".join(head + [line for m in mutexes for line in tables[m]] + lines) + "\n"


@dataclass
class Coverage:
    sets: int = 0  # task sets analysed under the protocol
    tasks: int = 0  # tasks with a finite R, checked job by job
    blocked: int = 0  # ... of which with B > 0
    tight: int = 0  # ... whose largest observed response equals R
    schedulable: int = 0  # sets whose every task meets its deadline by RTA
    ceilings: int = 0  # sets with a ceiling given in the file
    aborted: int = 0  # sets in which the kernel aborted a section (rcs)
    final: int = 0  # npcs: tasks checked whose job ends with a non-preemptive region
    final_tight: int = 0  # ... whose largest observed response equals R


# A kernel bug found by this test, fixed (kernel/policy/pcp.c, pcp_lend;
# tests/kernel/test_ceilings.c keeps its smallest case): when an unlock
# lowered the system ceiling, the waiters left on the ceiling's wait list lent
# their priority to the ceiling's new holder even when its ceiling blocked
# none of them. That holder then ran above its ceilings and a job was blocked
# a second time. Its trace signature, a task raised above its base priority
# and above the ceiling of every pcp mutex it holds, is something PCP never
# does: every pcp run is checked for it.
def pcp_holder_above_its_ceilings(result: SimResult) -> bool:
    s = result.scenario
    ceilings = [s.kernel_ceiling(r.name) if r.protocol == "pcp" else None for r in s.resources]
    held: list[set[int]] = [set() for _ in s.tasks]
    base = [t.priority for t in s.tasks]
    effective = list(base)
    event = native.EVENT
    for e in result.trace:
        kind, task, sem, ok = int(e["event"]), int(e["task"]), int(e["object"]), int(e["result"]) == 0
        if task >= len(s.tasks):
            continue
        if kind in (event["DOWN"], event["WAKE"]) and ok and sem < len(ceilings):
            held[task].add(sem)  # a WAKE ok on a mutex hands it over
        elif kind in (event["UP"], event["ABORT"]) and ok and sem < len(ceilings):
            held[task].discard(sem)
        elif kind == event["PRIO"]:
            effective[task] = int(e["arg1"])
        else:
            continue
        top = max((c for m in held[task] if (c := ceilings[m]) is not None), default=-1)
        if effective[task] > max(base[task], top):
            return True
    return False


def check_agreement(text: str, protocol: str, coverage: Coverage) -> list[str]:
    """Analysis against the kernel over the hyperperiod plus the largest phase:
    every job of a task with a finite R_i responds within R_i (a job unfinished
    at the end has not yet run over R_i), and a task that RTA proves meets its
    deadline misses none. Returns the disagreements."""
    s = scenario(text, "random.toml")
    if protocol in NEEDS_PRIORITY_ORDER and any(r.order == "fifo" for r in s.resources):
        return []  # refused by the kernel (and by Scenario.with_protocol)
    s = s.with_protocol(next(p for p in PROTOCOLS if p == protocol))
    analysis = analyze(s, [protocol])
    result = analysis.protocols[protocol]
    if result.reason is not None:
        return []
    coverage.sets += 1
    coverage.schedulable += result.tests["response_time"].passes is True
    coverage.ceilings += any(r.ceiling is not None for r in s.resources)
    run = simulate(s)
    coverage.aborted += int(run.jobs["aborts"].sum()) > 0
    tick = 10**9 // s.system.tick_hz
    problems = []
    for index, t in enumerate(s.tasks):
        r = result.tasks[t.name]
        if r.response is None:
            continue
        coverage.tasks += 1
        coverage.blocked += bool(r.blocking)
        final = protocol == "npcs" and analysis.taskset.task(t.name).final_region > 0
        coverage.final += final
        jobs = run.jobs[run.jobs["task"] == index]
        finished = jobs[jobs["finish"] != native.NEVER]
        responses = (finished["finish"] - finished["release"]).tolist()
        if responses and max(responses) == r.response * tick:
            coverage.tight += 1
            coverage.final_tight += final
        open_for = [run.end_ns - int(j["release"]) for j in jobs[jobs["finish"] == native.NEVER]]
        late = [x // tick for x in responses + open_for if x > r.response * tick]
        if late:
            problems.append(f"{t.name}: R = {r.response} but the kernel took {max(late)}")
        if r.meets_deadline and int((jobs["missed"] == 1).sum()):
            problems.append(f"{t.name}: RTA says it meets its deadline, the kernel missed it")
    if protocol == "pcp" and pcp_holder_above_its_ceilings(run):
        problems.append("a task ran above its base priority and the ceilings of the pcp mutexes it holds")
    return problems


# (seed, sets, wide) of each family of random task sets; the wide family's
# seed is one whose sets included a counterexample of pcp before the fix
# above (set 1201).
FAMILIES = {"narrow": (20240611, SETS, False), "wide": (7, 1300, True)}


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("protocol", KERNEL_PROTOCOLS)
def test_the_kernel_agrees_with_response_time_analysis(protocol: str, family: str) -> None:
    seed, sets, wide = FAMILIES[family]
    rng = random.Random(seed)
    coverage = Coverage()
    for _ in range(sets):
        text = random_task_set(rng, wide)
        problems = check_agreement(text, protocol, coverage)
        assert not problems, f"{protocol}: {problems}\n{text}"
    # The test is only as good as what it checked: enough bounds, blocked tasks,
    # bounds the kernel reaches exactly, and wholly schedulable sets; ceilings
    # given in the file; under rcs (no blocking: B = 0), aborted sections.
    # pip, pcp, ipcp and rcs skip the sets with a FIFO mutex (about a fifth,
    # a quarter of the wide ones); few wide sets are wholly schedulable.
    assert coverage.sets > sets * (0.75 if protocol in ("none", "npcs") else 0.7)
    assert coverage.tasks > sets * 2
    if protocol == "rcs":
        assert coverage.blocked == 0 and coverage.aborted > sets * 0.25
    else:
        assert coverage.blocked > sets * 0.5
    if protocol == "npcs":
        # The start-time analysis of a job's final section (R = S + F) is checked
        # on many tasks, and the kernel reaches it on a good share of them.
        assert coverage.final > sets * 0.8 and coverage.final_tight > coverage.final * 0.25
    assert coverage.tight > sets
    assert coverage.schedulable > sets * (0.1 if wide else 0.25)
    assert coverage.ceilings > coverage.sets * 0.3

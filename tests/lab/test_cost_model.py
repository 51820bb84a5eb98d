"""The cost model (priora.costs.model, docs/cost-model.md): the host port charges
each operation's cost at its trace record, inside the kernel call; the named
models' figures; the [system] cost_model of a scenario file."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from priora.costs import model as costs
from priora.costs.model import ZERO, CostModel, SemCosts, measured, measured_figures, rtmach93
from priora.errors import ScenarioError
from priora.run import native
from priora.run.simulate import HostCosts, simulate
from priora.scenario.loader import parse
from priora.scenario.model import Scenario

ROOT = Path(__file__).resolve().parents[2]

HAND = """\
[system]
time_unit = "tick"

[system.cost_model]
switch_ns = 1000
preempt_ns = 2000
lock_ns = 10000
lock_blocked_ns = 20000
unlock_ns = 30000
unlock_wake_ns = 40000
job_end_ns = 5000

[resources.M]
kind = "mutex"

[tasks.L]
priority = 1
body = ["lock M", "compute 2", "unlock M"]

[tasks.H]
priority = 2
phase = 1
body = ["lock M", "compute 1", "unlock M"]
"""


def records(scenario: Scenario, model: CostModel | None = None) -> list[tuple[int, str, str]]:
    result = simulate(scenario, costs=model)
    names = {i: t.name for i, t in enumerate(scenario.tasks)}
    return [
        (int(r["time"]), native.EVENT_NAME[int(r["event"])], names.get(int(r["task"]), "-"))
        for r in result.trace
        if int(r["event"]) not in (native.EVENT["SEM_ALLOC"], native.EVENT["TASK_CREATE"])
    ]


def test_each_cost_at_its_record_by_hand() -> None:
    # L takes M at 0 (after the first switch, 1 us) and computes from 11 us; H
    # preempts at 1 ms (switch 1 + preempt 2), blocks (20); L runs again at
    # 1.024 ms with 1.011 ms left and unlocks at 2.035 waking H (40). That
    # unlock is L's last action, run under the scheduler lock (SCHED_LOCK, no
    # cost): H does not preempt it, L's job ends at 2.075 (5) and L exits;
    # switch to H (1, no preempt: L ended). H computes 2.081..3.081 and its
    # last action, the unlock (30), is under the lock too; H ends (5), switch
    # to idle (1): 3.117 ms. (When a job ended only after the task it woke,
    # L was preempted at 2.075 (1 + 2) and ended at 3.114, and the run at
    # 3.120.) The zero-cost run ends at 3 ms.
    scenario = parse(HAND, "hand.toml")
    assert records(scenario) == [
        (0, "RELEASE", "L"),
        (1000, "SWITCH", "L"),
        (1000, "DOWN", "L"),
        (1_000_000, "RELEASE", "H"),
        (1_000_000, "SWITCH", "H"),
        (1_003_000, "BLOCK", "H"),
        (1_023_000, "PRIO", "L"),
        (1_023_000, "SWITCH", "L"),
        (2_035_000, "SCHED_LOCK", "L"),
        (2_035_000, "PRIO", "L"),
        (2_035_000, "WAKE", "H"),
        (2_035_000, "UP", "L"),
        (2_075_000, "JOB_DONE", "L"),
        (2_080_000, "TASK_EXIT", "L"),
        (2_080_000, "SWITCH", "H"),
        (2_081_000, "DOWN", "H"),
        (3_081_000, "SCHED_LOCK", "H"),
        (3_081_000, "UP", "H"),
        (3_111_000, "JOB_DONE", "H"),
        (3_116_000, "TASK_EXIT", "H"),
        (3_116_000, "SWITCH", "-"),
    ]
    assert simulate(scenario).end_ns == 3_117_000
    assert simulate(scenario, costs=ZERO).end_ns == 3_000_000  # an explicit model wins over the file's


def test_release_and_tick_costs() -> None:
    text = '[system]\ntime_unit = "tick"\nhorizon = 4\n\n[tasks.T]\nperiod = 2\nbody = ["compute 1"]\n'
    scenario = parse(text, "p.toml")
    # The first release is the driver's (free); the second, at 2 ms, costs 7 us.
    result = simulate(scenario, costs=CostModel("t", events={"release": 7000}))
    assert [int(f) for f in result.jobs["finish"]] == [1_000_000, 3_007_000]
    # Ticks: 1 ms falls when T has just ended; 2 ms releases job 2 (+0.5 us),
    # 3 ms interrupts its compute (+0.5 us).
    result = simulate(scenario, costs=CostModel("t", tick=500))
    assert [int(f) for f in result.jobs["finish"]] == [1_000_000, 3_001_000]
    assert simulate(scenario, costs=HostCosts(tick_ns=500)).jobs["finish"].tolist() == [1_000_000, 3_001_000]


# Scenarios that never idle before everything is over and have no timer: the
# costs only add time, the sequence of records stays, and the end moves by
# the sum of what each record costs (the documented classification, below).
NO_WAIT = """\
[system]
time_unit = "tick"
protocol = "PROTOCOL"

[resources.M]
kind = "mutex"

[resources.S]
kind = "counting"

[resources.R]
kind = "counting"

[tasks.H]
priority = 3
body = ["down S", "lock M", "compute 1", "unlock M", "down R timeout 0", "up R", "compute 1"]

[tasks.M2]
priority = 2
body = ["down R", "lock M timeout 0", "compute 1", "unlock M"]

[tasks.L]
priority = 1
body = ["lock M", "up S", "up R", "compute 2", "unlock M", "compute 1"]
"""

EVERY_COST = CostModel(
    "every",
    switch=1,
    preempt=2,
    tick=0,
    events={e: 10 * (i + 1) for i, e in enumerate(costs.EVENTS)},
    mutex={
        p: SemCosts(1000 * (k + 1), 1100 * (k + 1), 1200 * (k + 1), 1300 * (k + 1), 1400 * (k + 1))
        for k, p in enumerate(("none", "pip", "pcp", "ipcp", "npcs", "rcs"))
    },
    semaphore=SemCosts(100_000, 200_000, 300_000, 400_000, 500_000),
)


def expected_charge(scenario: Scenario, model: CostModel, r: Any) -> int:
    """What the host port charges for record r: docs/cost-model.md's rule."""
    ev = native.EVENT_NAME[int(r["event"])]
    obj = int(r["object"])
    if ev == "SWITCH":
        return model.preempt if obj != native.TRACE_NONE and int(r["arg0"]) == 1 else 0
    if ev in ("DOWN", "BLOCK", "UP"):
        c = model.sem_costs(scenario.resources[obj])
        if ev == "BLOCK":
            return c.block
        if ev == "DOWN":
            if int(r["arg0"]) != 0:
                return 0
            return c.take if int(r["result"]) == 0 else c.take_failed
        if int(r["result"]) != 0:
            return 0
        return c.give_wake if int(r["arg0"]) != native.TRACE_NONE else c.give
    for key, name in costs.EVENTS.items():
        if name == ev:
            return model.events.get(key, 0)
    return 0


@pytest.mark.parametrize("protocol", ["none", "pip", "pcp", "ipcp", "npcs", "rcs"])
def test_every_operation_is_charged_as_documented(protocol: str) -> None:
    scenario = parse(NO_WAIT.replace("PROTOCOL", protocol), "w.toml")
    free = simulate(scenario)
    costly = simulate(scenario, costs=EVERY_COST)
    assert free.quiescent and costly.quiescent
    seq = [(int(r["event"]), int(r["task"]), int(r["object"])) for r in free.trace]
    assert seq == [(int(r["event"]), int(r["task"]), int(r["object"])) for r in costly.trace]
    # The driver's records (before the first switch) are free.
    first = next(i for i, r in enumerate(free.trace) if int(r["event"]) == native.EVENT["SWITCH"])
    charged = sum(expected_charge(scenario, EVERY_COST, r) for r in free.trace[first:])
    switches = free.context_switches * EVERY_COST.switch
    assert costly.end_ns == free.end_ns + charged + switches
    kinds = {native.EVENT_NAME[int(r["event"])] for r in free.trace}
    assert {"DOWN", "UP", "BLOCK", "JOB_DONE"} <= kinds
    if protocol == "rcs":
        assert "ABORT" in kinds  # H takes M over from L
    if protocol == "pip":
        assert "PRIO" in kinds


# ---------------------------------------------------------------- the named models


def test_rtmach93_is_tables_1_and_2_of_real_time_mach() -> None:
    m = rtmach93()  # at RT-Mach's own clock rate, 100 Hz
    us = 1000
    # switch: choose + dispatch; preempt: sched_call + block; tick: clockint.
    assert (m.switch, m.preempt, m.tick) == (88 * us, 156 * us, 108 * us)
    # C_clockint every 10 ms (the assumed clock), spread over a faster tick.
    assert (rtmach93(1000).tick, rtmach93(50).tick, rtmach93(3).tick) == (10_800, 216_000, 3_600_000)
    assert m.events == {
        "release": 72 * us,
        "job_end": 672 * us,
        "priority_change": 0,
        "abort": 816 * us,
        "timeout": 72 * us,
        "delay": 84 * us,
        "delay_end": 72 * us,
    }
    assert m.mutex["none"] == SemCosts(120 * us, 208 * us, 292 * us, 144 * us, 252 * us)
    assert m.mutex["npcs"] == SemCosts(132 * us, 208 * us, 292 * us, 156 * us, 180 * us)
    assert m.mutex["pip"] == SemCosts(196 * us, 340 * us, 424 * us, 192 * us, 192 * us)
    assert m.mutex["pcp"] == m.mutex["ipcp"] == SemCosts(232 * us, 508 * us, 592 * us, 256 * us, 256 * us)
    assert m.mutex["rcs"] == SemCosts(256 * us, 628 * us, 712 * us, 196 * us, 196 * us)
    assert m.semaphore == m.mutex["none"]
    # Section 4.2's C_nullcs(1) = lock + unlock: KM 288, BPI 388, PCP 488.
    assert [m.mutex[p].take + m.mutex[p].give for p in ("npcs", "pip", "pcp")] == [
        288 * us,
        388 * us,
        488 * us,
    ]
    # C_wait^bpi(2) - C_csbody = 948: wakeup + switch (172) + not acquired + choose + dispatch + unlock.
    pip = m.mutex["pip"]
    assert 72 * us + 172 * us + pip.block + (40 + 48) * us + pip.give_wake == 948 * us


def test_measured_is_instructions_at_cpu_hz() -> None:
    figures = measured_figures()["builds"]["rv32-trace-on"]
    m = measured(1_000_000_000)  # 1 ns an instruction
    assert m.switch == round(Fraction(str(figures["yield_switch"])) - Fraction(str(figures["yield_alone"])))
    assert m.tick == round(figures["tick"])
    assert m.mutex["pip"].take == round(figures["mutex_down"])
    assert m.mutex["pip"].give == round(figures["mutex_up"])
    slow = measured(25_000_000)  # 40 ns an instruction
    assert slow.mutex["pip"].take == round(figures["mutex_down"] * 40)
    off = measured(1_000_000_000, "rv32-trace-off")
    assert off.mutex["pip"].take < m.mutex["pip"].take


# ---------------------------------------------------------------- scenario files

BASE = '[tasks.T]\nperiod = 10\nbody = ["compute 1"]\n\n[resources.M]\nkind = "mutex"\n'


def load_system(system: str) -> Scenario:
    return parse(f"[system]\n{system}\n\n{BASE}", "c.toml")


def test_file_models() -> None:
    assert load_system("").system.cost_model is None
    assert load_system('cost_model = "zero"').system.cost_model == ZERO
    assert load_system('cost_model = "rtmach93"').system.cost_model == rtmach93(1000)
    assert load_system('tick_hz = 100\ncost_model = "rtmach93"').system.cost_model == rtmach93(100)
    got = load_system('cost_model = "measured"\ncpu_hz = 100_000_000').system.cost_model
    assert got == measured(100_000_000)


def test_file_tables() -> None:
    table = """
[system.cost_model]
base = "rtmach93"
tick_ns = 10_800
lock_ns = 5
down_ns = 6
release_ns = 7

[system.cost_model.pip]
unlock_ns = 8
"""
    m = parse(f"[system]\n{table}\n{BASE}", "c.toml").system.cost_model
    assert m is not None and m.name == "rtmach93 adjusted"
    assert (m.tick, m.switch, m.events["release"], m.events["job_end"]) == (10_800, 88_000, 7, 672_000)
    assert m.mutex["none"].take == m.mutex["pip"].take == 5
    assert (m.mutex["pip"].give, m.mutex["none"].give) == (8, 144_000)
    assert m.semaphore.take == 6
    plain = parse("[system.cost_model]\nswitch_ns = 3\n\n" + BASE, "c.toml").system.cost_model
    assert plain == CostModel("table", switch=3, mutex={p: SemCosts() for p in costs.PROTOCOLS})
    build = '[system]\ncpu_hz = 1_000_000_000\n\n[system.cost_model]\nbase = "measured"\nbuild = "rv64-trace-off"\n'
    m = parse(build + BASE, "c.toml").system.cost_model
    assert m is not None and m.name == "measured (rv64-trace-off, 1000000000 Hz) adjusted"


@pytest.mark.parametrize(
    ("system", "message"),
    [
        (
            'cost_model = "fast"',
            'c.toml: [system] cost_model: unknown cost model "fast" (expected "zero", "rtmach93" or "measured")',
        ),
        ("cost_model = 3", "c.toml: [system] cost_model: must be a name or a table, got an integer (3)"),
        (
            'cost_model = "measured"',
            'c.toml: [system] cost_model: "measured" needs the clock rate of the CPU: give [system] cpu_hz',
        ),
        (
            'cost_model = "rtmach93"\ncpu_hz = 5',
            'c.toml: [system] cpu_hz: only with the cost model "measured" (it converts instruction counts to time)',
        ),
        (
            "cpu_hz = 5",
            'c.toml: [system] cpu_hz: only with the cost model "measured" (it converts instruction counts to time)',
        ),
        ('cost_model = "measured"\ncpu_hz = 0', "c.toml: [system] cpu_hz: must be > 0, got 0"),
        (
            "cost_model = { switch = 3 }",
            "c.toml: [system.cost_model] switch: unknown key (expected base, build, *_ns keys or a protocol table: see docs/cost-model.md)",
        ),
        ("cost_model = { switch_ns = -3 }", "c.toml: [system.cost_model] switch_ns: must be >= 0, got -3"),
        (
            "cost_model = { switch_ns = 1.5 }",
            "c.toml: [system.cost_model] switch_ns: must be an integer number of ns, got a float (1.5)",
        ),
        (
            'cost_model = { base = "rtmach93", build = "rv32-trace-on" }',
            'c.toml: [system.cost_model] build: only with base = "measured"',
        ),
        (
            'cost_model = { base = "measured", build = "x86" }\ncpu_hz = 1',
            'c.toml: [system.cost_model] build: unknown build "x86" (expected rv32-trace-on, rv32-trace-off, rv64-trace-on, rv64-trace-off)',
        ),
        (
            "cost_model = { pip = { down_ns = 1 } }",
            "c.toml: [system.cost_model.pip] down_ns: unknown key (expected lock_ns, lock_failed_ns, lock_blocked_ns, unlock_ns, unlock_wake_ns)",
        ),
        ("cost_model = { pip = 1 }", "c.toml: [system.cost_model] pip: must be a table, got an integer (1)"),
    ],
)
def test_file_errors(system: str, message: str) -> None:
    with pytest.raises(ScenarioError) as err:
        load_system(system)
    assert str(err.value) == message


def test_breakdown_under_a_cost_model() -> None:
    # Benchmark-1, B's breakdown under pip: 190 ms with zero costs
    # (test_breakdown.py), 179 with rtmach93 (the paper's Table 4: 181), 149
    # with its clock interrupt at every 1 ms tick (10.8 % of the CPU).
    # Why 179 and not 180: D's first job ends at its unlock, 41.64 ms, where A
    # wakes (semantics.md, "Job completion"), so the cost of its end and of the
    # switch away from it (0.53 ms in all) is charged there, before B and C run,
    # not at 310 ms after C. At 180, C's first job, which ended at 309.91 ms,
    # would end 0.53 ms later: B's second job, released at 310, preempts it
    # and C misses its deadline at 410.072 ms. At 179 C ends at 309.43.
    from priora.breakdown.search import breakdown
    from priora.cli.commands.breakdown import with_cost_model
    from priora.record import replace
    from priora.scenario.loader import load

    scenario = with_cost_model(load(ROOT / "examples" / "rtmach" / "benchmark1.toml"), "rtmach93", None)
    b = breakdown(scenario, "B.wcet", ["pip"], analysis=False)
    assert b.cost_model == "rtmach93"
    assert b.protocols["pip"].simulation.search is not None
    assert b.protocols["pip"].simulation.search.value == 179
    fast_clock = replace(rtmach93(), tick=108_000)
    b = breakdown(scenario, "B.wcet", ["pip"], analysis=False, costs=fast_clock)
    assert b.protocols["pip"].simulation.search.value == 149  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["--cost-model", "measured"],
            "priora: --cost-model measured: give the CPU's clock rate with --cpu-hz\n",
        ),
        (["--cpu-hz", "5"], "priora: --cpu-hz: only with --cost-model measured\n"),
        (
            ["--cost-model", "rtmach93", "--cpu-hz", "5"],
            "priora: --cpu-hz: only with --cost-model measured\n",
        ),
        (["--cost-model", "measured", "--cpu-hz", "0"], "priora: --cpu-hz: must be > 0, got 0\n"),
    ],
)
def test_breakdown_cost_options(options: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    from priora.cli.main import main

    file = str(ROOT / "examples" / "rtmach" / "benchmark1.toml")
    assert main(["breakdown", file, "--vary", "B.wcet", *options]) == 2
    assert capsys.readouterr().err == message


def test_breakdown_measured_names_the_model(capsys: pytest.CaptureFixture[str]) -> None:
    from priora.cli.main import main

    file = str(ROOT / "examples" / "rtmach" / "benchmark1.toml")
    args = ["breakdown", file, "--vary", "B.wcet", "--protocol", "pip", "--cost-model", "measured"]
    assert main([*args, "--cpu-hz", "25000000", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["cost_model"] == "measured (rv32-trace-on, 25000000 Hz)"
    assert doc["protocols"]["pip"]["simulation"]["value"] == 188

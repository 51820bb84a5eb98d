"""Costs charged by the host port (priora.run.simulate.HostCosts): events at a
tick's instant come in a real CPU's order, and times include the costs."""

from __future__ import annotations

from pathlib import Path

from priora.run import native
from priora.run.simulate import HostCosts, simulate
from priora.scenario.loader import load

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def events(costs: HostCosts | None) -> list[str]:
    scenario = load(EXAMPLES / "inversion.toml").with_protocol("none")
    result = simulate(scenario, costs=costs)
    names = {i: t.name for i, t in enumerate(scenario.tasks)}
    out = []
    for r in result.trace:
        name = native.EVENT_NAME[int(r["event"])]
        if name in ("RELEASE", "BLOCK", "SWITCH"):
            who = names.get(int(r["task"]), "idle")
            out.append(f"{name} {who}")
    return out


def test_zero_costs_run_a_call_at_a_tick_instant_before_the_tick() -> None:
    # H's compute ends at the instant of tick 2: its lock blocks before the
    # tick releases M, and L runs for no time in between.
    assert events(None) == [
        "RELEASE L", "SWITCH L", "RELEASE H", "SWITCH H", "BLOCK H", "SWITCH L",
        "RELEASE M", "SWITCH M", "SWITCH L", "SWITCH H", "SWITCH L", "SWITCH idle",
    ]  # fmt: skip


def test_costs_take_the_tick_first_as_hardware_does() -> None:
    assert events(HostCosts(switch_ns=500, tick_ns=500)) == [
        "RELEASE L", "SWITCH L", "RELEASE H", "SWITCH H", "RELEASE M", "BLOCK H",
        "SWITCH M", "SWITCH L", "SWITCH H", "SWITCH L", "SWITCH idle",
    ]  # fmt: skip


def test_costs_show_in_the_times() -> None:
    scenario = load(EXAMPLES / "inversion.toml").with_protocol("pip")
    free = simulate(scenario)
    costly = simulate(scenario, costs=HostCosts(switch_ns=1000, tick_ns=0))
    assert free.end_ns == 13_000_000
    # Seven switches of 1 us each: L at the start, H, L, H, M, L, then idle.
    assert costly.context_switches == free.context_switches == 7
    assert costly.end_ns == 13_000_000 + 7 * 1000

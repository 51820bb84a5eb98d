"""The model's own logic: horizons, time conversion, protocol overrides."""

from __future__ import annotations

import pytest

from priora.errors import NativeError, ScenarioError
from priora.record import replace
from priora.scenario.model import PROTOCOLS, Action, Resource, Scenario, System, Task

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from priora.scenario.model import Protocol


def scenario(unit: str = "ms", tick_hz: int = 1000, order: str = "priority") -> Scenario:
    body = (Action("lock", "S"), Action("compute", ticks=1), Action("unlock", "S"))
    return Scenario(
        "m.toml",
        System(tick_hz, unit, None, "none"),  # type: ignore[arg-type]
        (Resource("S", "mutex", "none", 1, None, order), Resource("C", "counting", "none", 0, 4, "fifo")),  # type: ignore[arg-type]
        (Task("A", 2, 30, 5, 30, body), Task("B", 1, 40, 2, 40, body), Task("C", 0, None, 7, None, body)),
    )


def test_default_horizon_is_hyperperiod_plus_largest_phase() -> None:
    # lcm(30, 40) = 120; the largest phase is 7 (the one-shot task counts too)
    assert scenario().default_horizon() == 127
    assert scenario().horizon_ticks() == 127
    assert scenario().with_horizon(50).horizon_ticks() == 50


def test_no_periodic_task_runs_until_done() -> None:
    s = scenario()
    one_shot = Scenario(s.source, s.system, s.resources, (s.tasks[2],))
    assert one_shot.default_horizon() is None


def test_time_conversions() -> None:
    ms = scenario("ms", 1000)
    assert ms.ticks_to_ns(3) == 3_000_000
    assert ms.to_unit(2_500_000) == 2.5
    ticks = scenario("tick", 250)  # a tick is 4 ms
    assert ticks.ticks_to_ns(3) == 12_000_000
    assert ticks.to_unit(12_000_000) == 3
    us = scenario("us", 10_000)
    assert us.to_unit(300_000) == 300


def test_with_protocol_changes_every_mutex_only() -> None:
    s = scenario().with_protocol("pip")
    assert [r.protocol for r in s.resources] == ["pip", "none"]
    assert s.system.protocol == "pip"


@pytest.mark.parametrize("protocol", ["pip", "pcp", "ipcp", "rcs"])
def test_a_protocol_that_needs_priority_order_on_a_fifo_mutex_is_a_user_error(protocol: Protocol) -> None:
    with pytest.raises(ScenarioError) as e:
        scenario(order="fifo").with_protocol(protocol)
    assert str(e.value) == (
        f'm.toml: [resources.S] order: protocol "{protocol}" needs order "priority" '
        "(the kernel refuses it on a FIFO mutex)"
    )


@pytest.mark.parametrize("protocol", ["none", "npcs"])
def test_none_and_npcs_take_a_fifo_mutex(protocol: Protocol) -> None:
    assert scenario(order="fifo").with_protocol(protocol).resources[0].protocol == protocol


def test_ceilings() -> None:
    # S is locked by A (2), B (1) and C (0): its computed ceiling is 2; a
    # given one is kept. The kernel gets one under pcp and ipcp only; npcs
    # runs the holder at PR_PRIO_MAX: 255 in the lab's kernel (256 levels).
    s = scenario()
    assert [t.name for t in s.lockers("S")] == ["A", "B", "C"]
    assert s.lockers("C") == ()
    assert s.ceiling("S") == 2
    given = replace(s, resources=(replace(s.resources[0], ceiling=5), s.resources[1]))
    assert given.ceiling("S") == 5
    expected = {"none": None, "pip": None, "pcp": 2, "ipcp": 2, "npcs": 255, "rcs": None}
    assert {p: s.with_protocol(p).kernel_ceiling("S") for p in PROTOCOLS} == expected
    assert given.with_protocol("ipcp").kernel_ceiling("S") == 5
    assert s.with_protocol("pcp").kernel_ceiling("C") is None  # a counting semaphore
    nobody = replace(s, tasks=(replace(s.tasks[0], body=(Action("compute", ticks=1),)),))
    assert nobody.ceiling("S") == 0


def test_the_library_is_built_with_the_limits_the_loader_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    from priora import limits
    from priora.run import native

    loaded = native.lib()  # the check passed at load
    native.check_limits(native.library_path(), loaded)
    monkeypatch.setattr(limits, "MAX_TASKS", 16)
    with pytest.raises(NativeError) as e:
        native.check_limits(native.library_path(), loaded)
    assert str(e.value).endswith(
        "the kernel was built with PR_CONFIG_MAX_TASKS = 1024, the lab validates for 16: "
        "rebuild it: scripts/setup.sh in a checkout, else pip install ./lab again"
    )

"""The model's own logic: horizons, time conversion, protocol overrides."""

from __future__ import annotations

import pytest

from priora.errors import NativeError, ScenarioError
from priora.model import Action, Resource, Scenario, System, Task


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


def test_pip_on_a_fifo_mutex_is_a_user_error() -> None:
    with pytest.raises(ScenarioError) as e:
        scenario(order="fifo").with_protocol("pip")
    assert str(e.value) == (
        'm.toml: [resources.S] order: protocol "pip" needs order "priority" (inheritance on a FIFO mutex)'
    )
    assert scenario(order="fifo").with_protocol("none").resources[0].protocol == "none"


def test_the_library_is_built_with_the_limits_the_loader_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    from priora import native, scenario

    loaded = native.lib()  # the check passed at load
    native.check_limits(native.library_path(), loaded)
    monkeypatch.setattr(scenario, "MAX_TASKS", 16)
    with pytest.raises(NativeError) as e:
        native.check_limits(native.library_path(), loaded)
    assert str(e.value).endswith(
        "the kernel was built with PR_CONFIG_MAX_TASKS = 32, the lab validates for 16"
    )

"""Scenario files (lab/priora/scenario/loader.py, docs/scenario-format.md).

Good files parse to the exact model; each file in tests/lab/bad/ breaks one
rule and gives the exact message (file, where, reason).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from priora.errors import ScenarioError
from priora.scenario.loader import load, parse, parse_time
from priora.scenario.model import Action, Resource, Scenario, System, Task

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from priora.scenario.model import Order, Protocol

HERE = Path(__file__).parent
BAD = HERE / "bad"
DOCS = HERE.parents[1] / "docs" / "scenario-format.md"


def compute(ticks: int) -> Action:
    return Action("compute", ticks=ticks)


def delay(ticks: int) -> Action:
    return Action("delay", ticks=ticks)


def lock(name: str, timeout: int | None = None) -> Action:
    return Action("lock", resource=name, timeout=timeout)


def unlock(name: str) -> Action:
    return Action("unlock", resource=name)


def down(name: str, timeout: int | None = None) -> Action:
    return Action("down", resource=name, timeout=timeout)


def up(name: str) -> Action:
    return Action("up", resource=name)


def mutex(name: str, protocol: Protocol = "pip", order: Order = "priority") -> Resource:
    return Resource(name, "mutex", protocol, 1, None, order)


# ---- good files: the exact model ----


def test_a_small_complete_file() -> None:
    # Every section of a file, in ms at 1 kHz, so 1 ms = 1 tick.
    text = """
[system]
tick_hz = 1000
time_unit = "ms"
horizon = 1000
protocol = "pip"

[resources.S]
kind = "mutex"
protocol = "pip"

[tasks.H]
priority = 3
period = 100
phase = 2
deadline = 100
body = ["compute 1", "lock S", "compute 2", "unlock S"]
"""
    assert parse(text, "ex.toml") == Scenario(
        source="ex.toml",
        system=System(tick_hz=1000, time_unit="ms", horizon=1000, protocol="pip"),
        resources=(mutex("S"),),
        tasks=(Task("H", 3, 100, 2, 100, (compute(1), lock("S"), compute(2), unlock("S"))),),
    )


def test_defaults() -> None:
    # No [system], no [resources]; phase 0, deadline = period.
    text = '[tasks.T]\nperiod = 10\nbody = ["compute 1"]\n'
    assert parse(text, "min.toml") == Scenario(
        source="min.toml",
        system=System(tick_hz=1000, time_unit="tick", horizon=None, protocol="pip"),
        resources=(),
        tasks=(Task("T", 31, 10, 0, 10, (compute(1),)),),
    )


def test_one_shot_task_has_no_deadline_unless_given() -> None:
    text = """
[tasks.Once]
priority = 1
phase = 7
body = ["compute 3"]

[tasks.Due]
priority = 2
deadline = 20
body = ["compute 3"]
"""
    once, due = parse(text, "ex.toml").tasks
    assert once == Task("Once", 1, None, 7, None, (compute(3),))
    assert due == Task("Due", 2, None, 0, 20, (compute(3),))


def test_microseconds() -> None:
    # 10 kHz: a tick is 100 us. 500 us = 5 ticks, 1500.0 us = 15 ticks.
    text = """
[system]
tick_hz = 10000
time_unit = "us"
horizon = 20000

[tasks.T]
priority = 5
period = 500
phase = 1500.0
deadline = 400
body = ["compute 100", "delay 200", "compute 300.0"]
"""
    s = parse(text, "us.toml")
    assert s.system == System(tick_hz=10000, time_unit="us", horizon=200, protocol="pip")
    assert s.tasks == (Task("T", 5, 5, 15, 4, (compute(1), delay(2), compute(3))),)


@pytest.mark.parametrize(
    ("system", "ticks"),
    [
        ("", 0),  # no round robin
        ("quantum = 0", 0),
        ('tick_hz = 10000\ntime_unit = "ms"\nquantum = 0.5', 5),  # exact: half a ms is 5 ticks of 0.1 ms
        ('time_unit = "tick"\nquantum = 2.0', 2),
        ('time_unit = "us"\nquantum = 3000', 3),
    ],
)
def test_the_quantum_in_ticks(system: str, ticks: int) -> None:
    s = parse(f'[system]\n{system}\n\n[tasks.T]\npriority = 1\nbody = ["delay 0"]\n', "q.toml")
    assert s.system.quantum == ticks
    from priora.run.compiled import compile_scenario

    assert compile_scenario(s).quantum == ticks  # what the kernel and the blob get


def test_milliseconds_with_decimals() -> None:
    # 10 kHz: a tick is 0.1 ms; decimals are exact (0.1 is a tenth, not a binary float).
    text = """
[system]
tick_hz = 10000
time_unit = "ms"
horizon = 12.3

[resources.S]
kind = "mutex"

[tasks.T]
priority = 5
period = 2.5
phase = 0.1
body = ["compute 0.3", "lock S timeout 0.7", "compute 1e-1", "unlock S"]
"""
    s = parse(text, "ms.toml")
    assert s.system.horizon == 123
    assert s.tasks == (Task("T", 5, 25, 1, 25, (compute(3), lock("S", 7), compute(1), unlock("S"))),)


def test_milliseconds_at_a_fast_tick() -> None:
    # 1 MHz: a tick is 1 us, so 1 ms = 1000 ticks.
    text = """
[system]
tick_hz = 1000000
time_unit = "ms"

[tasks.T]
priority = 0
period = 2
body = ["compute 0.25"]
"""
    assert parse(text, "fast.toml").tasks == (Task("T", 0, 2000, 0, 2000, (compute(250),)),)


def test_whole_floats_in_ticks() -> None:
    text = '[tasks.T]\nperiod = 10.0\nbody = ["compute 2.0"]\n'
    assert parse(text, "t.toml").tasks == (Task("T", 31, 10, 0, 10, (compute(2),)),)


def test_rate_monotonic() -> None:
    # Shortest period -> 31, each longer distinct period one lower, equal periods equal.
    text = """
[tasks.A]
period = 20
body = ["compute 1"]

[tasks.B]
period = 10
body = ["compute 1"]

[tasks.C]
period = 40
body = ["compute 1"]

[tasks.D]
period = 10
body = ["compute 1"]
"""
    tasks = parse(text, "rm.toml").tasks
    assert [(t.name, t.priority) for t in tasks] == [
        ("A", 30),
        ("B", 31),
        ("C", 29),
        ("D", 31),
    ]


def test_rate_monotonic_on_the_largest_task_set() -> None:
    # 32 distinct periods: exactly the kernel's 32 levels, 31 down to 0.
    # A horizon: the default one (lcm of 69..100) is beyond the host port's clock.
    text = "[system]\nhorizon = 1000\n" + "".join(
        f'[tasks.T{i}]\nperiod = {100 - i}\nbody = ["compute 1"]\n' for i in range(32)
    )
    assert [t.priority for t in parse(text, "rm.toml").tasks] == list(range(32))


def rate_monotonic_tasks(n: int) -> str:
    """n tasks with the distinct periods 1 .. n, within a horizon."""
    return "[system]\nhorizon = 10\n" + "".join(
        f'[tasks.T{i}]\nperiod = {i + 1}\nbody = ["compute 1"]\n' for i in range(n)
    )


def test_rate_monotonic_above_the_default_levels() -> None:
    # Up to 32 distinct periods the shortest gets 31, the top of the default
    # build's 32 levels (as on the QEMU images); beyond, the top of the lab's
    # 256 levels, each longer period one lower.
    assert [t.priority for t in parse(rate_monotonic_tasks(32), "rm.toml").tasks] == list(range(31, -1, -1))
    assert [t.priority for t in parse(rate_monotonic_tasks(33), "rm.toml").tasks] == list(range(255, 222, -1))


def test_rate_monotonic_beyond_the_levels() -> None:
    # 1,024 tasks fit the lab's kernel, but 257 distinct periods need more
    # than its 256 levels.
    with pytest.raises(ScenarioError) as e:
        parse(rate_monotonic_tasks(257), "rm.toml")
    assert str(e.value) == (
        "rm.toml: [tasks]: rate-monotonic order needs 257 priority levels "
        "(one per distinct period), the kernel has 256 real-time levels"
    )


def test_file_order_is_kept() -> None:
    text = """
[resources.Z]
kind = "binary"

[resources.A]
kind = "mutex"

[tasks.Zed]
priority = 1
body = ["compute 1"]

[tasks.Alpha]
priority = 2
body = ["compute 1"]

[tasks.Mid]
priority = 3
body = ["compute 1"]
"""
    s = parse(text, "order.toml")
    assert [r.name for r in s.resources] == ["Z", "A"]
    assert [t.name for t in s.tasks] == ["Zed", "Alpha", "Mid"]
    assert s.resource_index("A") == 1


def test_resources() -> None:
    text = """
[system]
protocol = "none"

[resources.Plain]
kind = "mutex"

[resources.Inherit]
kind = "mutex"
protocol = "pip"

[resources.Queue]
kind = "mutex"
order = "fifo"

[resources.Pool]
kind = "counting"

[resources.Slots]
kind = "counting"
initial = 2
max = 4
order = "fifo"

[resources.Full]
kind = "counting"
initial = 3
max = 3

[resources.Flag]
kind = "binary"

[resources.Open]
kind = "binary"
initial = 1

[tasks.T]
priority = 1
body = ["compute 1"]
"""
    assert parse(text, "res.toml").resources == (
        mutex("Plain", "none"),
        mutex("Inherit", "pip"),
        mutex("Queue", "none", "fifo"),
        Resource("Pool", "counting", "none", 0, None, "priority"),
        Resource("Slots", "counting", "none", 2, 4, "fifo"),
        Resource("Full", "counting", "none", 3, 3, "priority"),
        Resource("Flag", "binary", "none", 0, 1, "priority"),
        Resource("Open", "binary", "none", 1, 1, "priority"),
    )


def test_actions() -> None:
    # Timeouts: none = forever (None), 0 = no wait; overlapping sections are accepted.
    text = """
[resources.A]
kind = "mutex"

[resources.B]
kind = "mutex"

[resources.C]
kind = "counting"

[tasks.T]
priority = 1
body = [
    "lock A", "lock B timeout 0", "unlock A", "unlock B",
    "down C", "down C timeout 3", "down C timeout 0", "up C",
    "delay 0", "delay 4", "  compute   5  ",
    "lock A", "unlock A", "lock A timeout 2", "unlock A",
]
"""
    (task,) = parse(text, "act.toml").tasks
    assert task.body == (
        lock("A"),
        lock("B", 0),
        unlock("A"),
        unlock("B"),
        down("C"),
        down("C", 3),
        down("C", 0),
        up("C"),
        delay(0),
        delay(4),
        compute(5),
        lock("A"),
        unlock("A"),
        lock("A", 2),
        unlock("A"),
    )


def test_names_at_the_limits() -> None:
    text = (
        '[resources."a-B_9"]\nkind = "binary"\n\n[tasks.ABCDEFGHIJKLMNO]\nperiod = 1\nbody = ["up a-B_9"]\n'
    )
    s = parse(text, "names.toml")
    assert s.resources[0].name == "a-B_9"
    assert s.tasks[0].name == "ABCDEFGHIJKLMNO"


def test_the_documented_example() -> None:
    # The complete example of docs/scenario-format.md parses to this model.
    match = re.search(r"```toml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    assert match is not None
    s = parse(match[1], "docs.toml")
    assert s.system == System(tick_hz=10000, time_unit="ms", horizon=3000, protocol="pip")
    assert s.resources == (
        mutex("S"),
        mutex("Log", "none", "fifo"),
        Resource("Items", "counting", "none", 0, 4, "priority"),
        Resource("Go", "binary", "none", 0, 1, "priority"),
    )
    assert s.tasks == (
        Task("H", 4, 500, 20, 200, (compute(10), lock("S", 50), compute(25), unlock("S"))),
        Task(
            "M",
            3,
            1000,
            0,
            1000,
            (compute(100), lock("Log"), compute(5), unlock("Log")),
        ),
        Task(
            "L",
            2,
            1500,
            0,
            1500,
            (
                lock("S"),
                compute(40),
                lock("Log"),
                compute(10),
                unlock("Log"),
                unlock("S"),
            ),
        ),
        Task(
            "Producer",
            1,
            None,
            50,
            None,
            (compute(10), up("Items"), up("Items"), up("Go")),
        ),
        Task(
            "Consumer",
            0,
            None,
            0,
            1000,
            (
                down("Go"),
                down("Items"),
                compute(20),
                delay(100),
                down("Items", 0),
                compute(20),
            ),
        ),
    )


def test_load_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "ok.toml"
    path.write_text('[tasks.T]\nperiod = 10\nbody = ["compute 1"]\n', encoding="utf-8")
    assert load(path) == load(str(path)) == parse(path.read_text(), str(path))
    assert load(path).source == str(path)


# ---- files that cannot be read ----


def test_missing_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ScenarioError) as e:
        load("nothing.toml")
    assert str(e.value) == "nothing.toml: cannot read the file: No such file or directory"


def test_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dir.toml").mkdir()
    with pytest.raises(ScenarioError) as e:
        load("dir.toml")
    assert str(e.value) == "dir.toml: not a regular file (a directory)"


def test_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "latin1.toml").write_bytes(b'[tasks.T]\nperiod = 10 # \xe9t\xe9\nbody = ["compute 1"]\n')
    with pytest.raises(ScenarioError) as e:
        load("latin1.toml")
    assert str(e.value) == "latin1.toml: line 2: not UTF-8 text (TOML files are UTF-8)"


def test_integer_too_long_for_python() -> None:
    # tomllib raises a plain ValueError here, not a TOMLDecodeError.
    with pytest.raises(ScenarioError) as e:
        parse("[tasks.T]\nperiod = " + "9" * 5000 + '\nbody = ["compute 1"]\n', "big.toml")
    assert str(e.value).startswith("big.toml: malformed TOML: Exceeds the limit")


def test_float_exponent_too_large_for_decimal() -> None:
    # Decimal refuses the exponent with InvalidOperation, which tomllib passes on.
    with pytest.raises(ScenarioError) as e:
        parse('[tasks.T]\nperiod = 10\nbody = ["compute 1"]\nwcet = 1e99999999999999999999\n', "huge.toml")
    assert str(e.value) == (
        "huge.toml: line 4: malformed TOML: float 1e99999999999999999999: its exponent is beyond what can be held"
    )


# ---- limits that only show when the scenario runs ----

LIMIT_TICKS = 2**62 // 1_000_000  # the host port's clock at tick_hz 1000 (1 ms = 10^6 ns)
PRIMES = (4294967291, 4294967279, 4294967231)  # periods whose hyperperiod is their product


def late(phase: int) -> str:
    """A periodic task (period 1) and a one-shot task released at `phase`."""
    return (
        '[tasks.P]\npriority = 1\nperiod = 1\nbody = ["compute 1"]\n'
        f'[tasks.Late]\npriority = 0\nphase = {phase}\nbody = ["compute 1"]\n'
    )


def test_default_horizon_at_the_limit() -> None:
    # Without a horizon the run lasts the hyperperiod plus the largest phase:
    # up to the clock's limit exactly, and not one tick more.
    assert parse(late(LIMIT_TICKS - 1), "ok.toml").horizon_ticks() == LIMIT_TICKS
    with pytest.raises(ScenarioError) as e:
        parse(late(LIMIT_TICKS), "late.toml")
    assert (e.value.where, e.value.reason) == (
        "[system] horizon",
        f"the default horizon (the hyperperiod 1 ticks plus the largest phase {LIMIT_TICKS}) "
        f"exceeds the limit of {LIMIT_TICKS} ticks: give a horizon",
    )


def test_default_horizon_limit_in_the_file_unit() -> None:
    # The limit follows tick_hz: at 1 MHz a tick is 1 us, 1000 times more ticks fit.
    text = "[system]\ntick_hz = 1000000\n" + "".join(
        f'[tasks.T{i}]\nperiod = {p}\nbody = ["compute 1"]\n' for i, p in enumerate(PRIMES)
    )
    with pytest.raises(ScenarioError) as e:
        parse(text, "fast.toml")
    assert e.value.reason == (
        f"the default horizon (the hyperperiod {PRIMES[0] * PRIMES[1] * PRIMES[2]} ticks plus the largest "
        f"phase 0) exceeds the limit of {2**62 // 1000} ticks: give a horizon"
    )


def test_a_horizon_lifts_the_default_horizon_limit() -> None:
    # The same periods with a horizon (validated on its own) are fine, and a
    # caller that gives the horizon itself (--horizon) may skip the check.
    tasks = "".join(f'[tasks.T{i}]\nperiod = {p}\nbody = ["compute 1"]\n' for i, p in enumerate(PRIMES))
    assert parse("[system]\nhorizon = 100\n" + tasks, "h.toml").horizon_ticks() == 100
    assert parse(tasks, "h.toml", check_default_horizon=False).system.horizon is None
    # One-shot tasks only: no default horizon (the run ends when every job is done).
    once = f'[tasks.Once]\npriority = 1\nphase = {LIMIT_TICKS}\nbody = ["compute 1"]\n'
    assert parse(once, "once.toml").horizon_ticks() is None


@pytest.mark.parametrize("hz", [1, 1_000_000])
def test_tick_hz_range_accepted(hz: int) -> None:
    text = f'[system]\ntick_hz = {hz}\n[tasks.T]\nperiod = 10\nbody = ["compute 1"]\n'
    assert parse(text, "hz.toml").system.tick_hz == hz


@pytest.mark.parametrize("hz", [2_000_000, 1_000_000_000])
def test_tick_hz_beyond_the_kernel(hz: int) -> None:
    # Divisors of 10^9 the host port's clock could count, but pr_kernel_init refuses.
    text = f'[system]\ntick_hz = {hz}\n[tasks.T]\nperiod = 10\nbody = ["compute 1"]\n'
    with pytest.raises(ScenarioError) as e:
        parse(text, "hz.toml")
    assert str(e.value) == (
        f"hz.toml: [system] tick_hz: must be at most 1000000 (the kernel's range is 1..1000000), got {hz}"
    )


@pytest.mark.parametrize(
    "value",
    ["[" * 5000 + "]" * 5000, "{a = " * 5000 + "1" + "}" * 5000],
    ids=["arrays", "inline_tables"],
)
def test_deeply_nested_toml(value: str) -> None:
    # tomllib recurses once per level and runs out of stack: a RecursionError.
    with pytest.raises(ScenarioError) as e:
        parse(f"x = {value}\n", "deep.toml")
    assert str(e.value) == "deep.toml: malformed TOML: nested too deeply"


# ---- parse_time: a time given outside the file (the --horizon option) ----


def scenario_at(tick_hz: int, unit: str) -> Scenario:
    """A scenario with this clock."""
    text = (
        f'[system]\ntick_hz = {tick_hz}\ntime_unit = "{unit}"\n[tasks.T]\npriority = 1\nbody = ["delay 0"]\n'
    )
    return parse(text, "clock.toml")


def test_parse_time_is_exact() -> None:
    ms = scenario_at(1000, "ms")
    assert [parse_time(t, ms, "--horizon") for t in ("6", "1e1", "2.000", "+3")] == [6, 10, 2, 3]
    fine = scenario_at(10_000, "ms")
    assert parse_time("0.1", fine, "--horizon") == 1  # 0.1 ms at 10 kHz: one tick, exactly
    assert parse_time("2.5", fine, "--horizon") == 25
    assert parse_time("1500", scenario_at(10_000, "us"), "--horizon") == 15
    assert parse_time(str(LIMIT_TICKS), scenario_at(1000, "tick"), "--horizon") == LIMIT_TICKS


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("0", "must be > 0, got 0"),
        ("-3", "must be > 0, got -3"),
        ("abc", 'must be a number, got "abc"'),
        ("nan", 'must be a number, got "nan"'),
        ("inf", 'must be a number, got "inf"'),
        ("1_000", 'must be a number, got "1_000"'),
        ("", 'must be a number, got ""'),
        ("0.05", "0.05 ms is not representable in ticks (a tick is 0.1 ms at tick_hz 10000)"),
        ("1e99", "1e99 is out of range"),
        ("5e12", "5e12 ms (50000000000000 ticks) exceeds the limit of 46116860184273 ticks"),
    ],
)
def test_parse_time_refuses_like_a_file_time(text: str, reason: str) -> None:
    with pytest.raises(ScenarioError) as e:
        parse_time(text, scenario_at(10_000, "ms"), "--horizon")
    assert (e.value.source, e.value.where, e.value.reason) == ("clock.toml", "--horizon", reason)


def test_parse_time_words_as_the_file() -> None:
    # The same reason as for the same time in the file (here a body time, also text).
    for text in ("0.5", "5000000000000", "0", "x"):
        body = f'[tasks.T]\npriority = 1\nbody = ["compute {text}"]\n'
        with pytest.raises(ScenarioError) as in_file:
            parse('[system]\ntime_unit = "ms"\n' + body, "t.toml")
        with pytest.raises(ScenarioError) as given:
            parse_time(text, scenario_at(1000, "ms"), "--horizon")
        assert in_file.value.reason == "compute time " + given.value.reason


# ---- crossing critical sections ----

CROSSING = """
[resources.A]
kind = "mutex"

[resources.B]
kind = "mutex"

[tasks.Hold]
priority = 2
body = ["lock B", "delay 5", "unlock B"]

[tasks.T]
priority = 1
phase = 1
body = ["lock A", "lock B timeout 0", "unlock A", "lock A", "compute 1", "unlock B", "unlock A"]
"""


def test_crossing_sections_are_accepted() -> None:
    # B's section [1..5] opens A's section at 3, which closes at 6, after it.
    (_, task) = parse(CROSSING, "cross.toml").tasks
    assert task.body == (
        lock("A"),
        lock("B", 0),
        unlock("A"),
        lock("A"),
        compute(1),
        unlock("B"),
        unlock("A"),
    )


def test_crossing_sections_run_without_errors() -> None:
    # Hold has B from 0 to 5. At 1 T takes A, fails "lock B timeout 0" and skips
    # B's section [1..5]: A (held from before) is unlocked at once, the section
    # of A opened at 3 is skipped in full, its unlock at 6 too. Before the
    # kernel's fix that unlock ran on a mutex not held: PR_EPERM, an error.
    from priora.run.simulate import simulate

    result = simulate(parse(CROSSING, "cross.toml"))
    assert result.quiescent
    assert [(int(j["task"]), int(j["timeouts"]), int(j["errors"])) for j in result.jobs] == [
        (0, 0, 0),
        (1, 1, 0),
    ]
    a, b = result.semaphores
    assert (a.downs, a.ups, b.downs, b.ups) == (1, 1, 2, 1)


# ---- bad files: one rule each, the exact message ----

BAD_FILES = [
    # Malformed TOML: the line goes in the where part
    (
        "malformed_toml",
        "malformed_toml.toml: line 3: malformed TOML: Invalid value (column 13)",
    ),
    (
        "malformed_toml_eof",
        "malformed_toml_eof.toml: line 6: malformed TOML: Invalid value (at the end of the file)",
    ),
    (
        "malformed_toml_nested",
        "malformed_toml_nested.toml: malformed TOML: nested too deeply",
    ),
    (
        "malformed_toml_duplicate",
        "malformed_toml_duplicate.toml: line 4: malformed TOML: Cannot declare ('tasks', 'T') twice (column 9)",
    ),
    # Unknown tables and keys
    (
        "unknown_table",
        "unknown_table.toml: [task]: unknown table (expected [system], [resources.NAME], [tasks.NAME], [timers.NAME], [interrupts.NAME] and [groups.N])",
    ),
    (
        "unknown_top_level_key",
        "unknown_top_level_key.toml: name: unknown top-level key (expected [system], [resources.NAME], [tasks.NAME], [timers.NAME], [interrupts.NAME] and [groups.N])",
    ),
    (
        "unknown_key_system",
        "unknown_key_system.toml: [system] tickhz: unknown key (expected one of: tick_hz, time_unit, horizon, protocol, quantum, cost_model, cpu_hz, timer_service_priority, timeshare_levels, timeshare_quantum, timeshare_decay)",
    ),
    (
        "unknown_key_resource",
        "unknown_key_resource.toml: [resources.S] protocl: unknown key (expected one of: kind, protocol, ceiling, recovery, initial, max, order, length, message_order, inherit)",
    ),
    (
        "unknown_key_task",
        "unknown_key_task.toml: [tasks.T] deadlne: unknown key (expected one of: priority, period, phase, deadline, body, min_interarrival, arrivals, early_release, jitter, bcet, wcet, distribution, seed, deadline_kind, importance, abort_time, start, offset, class, nice, group)",
    ),
    # Tables of the wrong type
    (
        "system_not_table",
        'system_not_table.toml: [system]: must be a table, got a string ("fast")',
    ),
    (
        "resource_not_table",
        'resource_not_table.toml: [resources.S]: must be a table, got a string ("mutex")',
    ),
    (
        "task_not_table",
        "task_not_table.toml: [tasks.T]: must be a table, got an integer (10)",
    ),
    # [system]
    ("tick_hz_zero", "tick_hz_zero.toml: [system] tick_hz: must be > 0, got 0"),
    # [system] quantum: a time, 0 for none; none per task (the kernel's is system-wide)
    ("quantum_negative", "quantum_negative.toml: [system] quantum: must be >= 0, got -1"),
    (
        "quantum_not_representable",
        "quantum_not_representable.toml: [system] quantum: 1.5 ms is not representable in ticks (a tick is 1 ms at tick_hz 1000)",
    ),
    ("quantum_string", 'quantum_string.toml: [system] quantum: must be a number, got a string ("2")'),
    (
        "quantum_too_long",
        "quantum_too_long.toml: [system] quantum: 5000000000000 ms (5000000000000 ticks) exceeds the limit of 4611686018427 ticks",
    ),
    (
        "quantum_on_task",
        "quantum_on_task.toml: [tasks.T] quantum: no per-task quantum: the kernel's round-robin quantum is system-wide; give it as [system] quantum",
    ),
    (
        "tick_hz_not_divisor",
        "tick_hz_not_divisor.toml: [system] tick_hz: must divide 1000000000 so that a tick is a whole number of ns, got 1024",
    ),
    (
        "tick_hz_too_high",
        "tick_hz_too_high.toml: [system] tick_hz: must be at most 1000000 (the kernel's range is 1..1000000), got 2000000",
    ),
    (
        "tick_hz_float",
        "tick_hz_float.toml: [system] tick_hz: must be an integer, got a float (1000.0)",
    ),
    (
        "time_unit_unknown",
        'time_unit_unknown.toml: [system] time_unit: unknown time unit "s" (expected "tick", "us" or "ms")',
    ),
    (
        "protocol_unknown",
        'protocol_unknown.toml: [system] protocol: unknown protocol "pi" (expected "none", "pip", "pcp", "ipcp", "npcs" or "rcs")',
    ),
    ("horizon_zero", "horizon_zero.toml: [system] horizon: must be > 0, got 0"),
    (
        "horizon_not_representable",
        "horizon_not_representable.toml: [system] horizon: 100.5 ms is not representable in ticks (a tick is 1 ms at tick_hz 1000)",
    ),
    (
        "default_horizon_too_long",
        "default_horizon_too_long.toml: [system] horizon: the default horizon (the hyperperiod "
        "79228160909397609687688407659 ticks plus the largest phase 0) exceeds the limit of "
        "4611686018427 ticks: give a horizon",
    ),
    # Names (the kernel keeps 15 characters)
    ("name_empty", 'name_empty.toml: [resources.""]: the name is empty'),
    (
        "name_bad_characters",
        'name_bad_characters.toml: [tasks."my task"]: the name "my task" may only have letters, digits, "_" and "-"',
    ),
    (
        "name_too_long",
        "name_too_long.toml: [tasks.ABCDEFGHIJKLMNOP]: the name is 16 characters long, the kernel's limit is 15",
    ),
    # [resources.NAME]
    (
        "kind_missing",
        'kind_missing.toml: [resources.S] kind: missing (expected "mutex", "counting", "binary", "queue" or "events")',
    ),
    (
        "kind_unknown",
        'kind_unknown.toml: [resources.S] kind: unknown kind "spinlock" (expected "mutex", "counting", "binary", "queue" or "events")',
    ),
    (
        "order_unknown",
        'order_unknown.toml: [resources.S] order: unknown order "lifo" (expected "priority" or "fifo")',
    ),
    (
        "resource_protocol_unknown",
        'resource_protocol_unknown.toml: [resources.S] protocol: unknown protocol "srp" (expected "none", "pip", "pcp", "ipcp", "npcs" or "rcs")',
    ),
    (
        "pip_on_fifo_mutex",
        'pip_on_fifo_mutex.toml: [resources.S] order: "fifo" cannot go with protocol "pip" (from [system]): priority inheritance needs priority order; set protocol = "none" or "npcs", or drop order',
    ),
    (
        "pip_on_fifo_mutex_explicit",
        'pip_on_fifo_mutex_explicit.toml: [resources.S] order: "fifo" cannot go with protocol "pip": priority inheritance needs priority order; set protocol = "none" or "npcs", or drop order',
    ),
    (
        "pcp_on_fifo_mutex",
        'pcp_on_fifo_mutex.toml: [resources.S] order: "fifo" cannot go with protocol "pcp" (from [system]): the priority ceiling protocol needs priority order; set protocol = "none" or "npcs", or drop order',
    ),
    (
        "rcs_on_fifo_mutex_explicit",
        'rcs_on_fifo_mutex_explicit.toml: [resources.S] order: "fifo" cannot go with protocol "rcs": a restartable section needs priority order; set protocol = "none" or "npcs", or drop order',
    ),
    # Ceilings
    (
        "ceiling_out_of_range",
        "ceiling_out_of_range.toml: [resources.S] ceiling: must be in 0..255 (the kernel's range), got 256",
    ),
    (
        "ceiling_string",
        'ceiling_string.toml: [resources.S] ceiling: must be an integer, got a string ("high")',
    ),
    (
        "ceiling_on_binary",
        "ceiling_on_binary.toml: [resources.B] ceiling: not allowed on a binary semaphore (only mutexes have a ceiling)",
    ),
    (
        "ceiling_below_locker",
        "ceiling_below_locker.toml: [resources.S] ceiling: 2 is below the priority 3 of task M, which locks S: "
        "the kernel would refuse M's lock with PR_ECEILING; give at least 3, or no ceiling to have it computed",
    ),
    # rcs recoveries
    (
        "recovery_on_pip_mutex",
        'recovery_on_pip_mutex.toml: [resources.S] recovery: only an rcs mutex has a recovery, its protocol is "pip" '
        '(from [system]): set protocol = "rcs", or drop recovery',
    ),
    (
        "recovery_on_npcs_mutex_explicit",
        "recovery_on_npcs_mutex_explicit.toml: [resources.S] recovery: only an rcs mutex has a recovery, its protocol "
        'is "npcs": set protocol = "rcs", or drop recovery',
    ),
    (
        "recovery_on_counting",
        "recovery_on_counting.toml: [resources.C] recovery: not allowed on a counting semaphore (only an rcs mutex "
        "has a recovery)",
    ),
    ("recovery_negative", "recovery_negative.toml: [resources.S] recovery: must be >= 0, got -1"),
    (
        "recovery_not_representable",
        "recovery_not_representable.toml: [resources.S] recovery: 0.5 ms is not representable in ticks "
        "(a tick is 1 ms at tick_hz 1000)",
    ),
    ("recovery_string", 'recovery_string.toml: [resources.S] recovery: must be a number, got a string ("2")'),
    (
        "recovery_too_long",
        "recovery_too_long.toml: [resources.S] recovery: 4611686018428 ticks exceeds the limit of 4611686018427 ticks",
    ),
    (
        "initial_on_mutex",
        "initial_on_mutex.toml: [resources.S] initial: not allowed on a mutex (a mutex always starts free)",
    ),
    (
        "max_on_mutex",
        "max_on_mutex.toml: [resources.S] max: not allowed on a mutex (a mutex has no count)",
    ),
    (
        "max_on_binary",
        'max_on_binary.toml: [resources.B] max: not allowed on a binary semaphore (its max is 1; use kind = "counting" for another max)',
    ),
    (
        "protocol_on_counting",
        "protocol_on_counting.toml: [resources.C] protocol: not allowed on a counting semaphore (only mutexes have a locking protocol)",
    ),
    (
        "binary_initial_2",
        "binary_initial_2.toml: [resources.B] initial: must be 0 or 1 for a binary semaphore, got 2",
    ),
    (
        "counting_initial_negative",
        "counting_initial_negative.toml: [resources.C] initial: must be >= 0, got -1",
    ),
    (
        "counting_max_zero",
        "counting_max_zero.toml: [resources.C] max: must be >= 1, got 0",
    ),
    (
        "counting_max_below_initial",
        "counting_max_below_initial.toml: [resources.C] max: must be >= initial (3), got 2",
    ),
    (
        "counting_max_too_large",
        "counting_max_too_large.toml: [resources.C] max: must be at most 2147483647 (a C int), got 2147483648",
    ),
    (
        "too_many_resources",
        "too_many_resources.toml: [resources]: 65 semaphores, the kernel has room for 64",
    ),
    # [tasks.NAME]: times
    (
        "no_tasks",
        "no_tasks.toml: [tasks]: no tasks: a scenario needs at least one [tasks.NAME] table",
    ),
    (
        "tasks_empty",
        "tasks_empty.toml: [tasks]: no tasks: a scenario needs at least one [tasks.NAME] table",
    ),
    (
        "too_many_tasks",
        "too_many_tasks.toml: [tasks]: 1025 tasks, the kernel has room for 1024",
    ),
    ("period_negative", "period_negative.toml: [tasks.T] period: must be > 0, got -5"),
    ("period_zero", "period_zero.toml: [tasks.T] period: must be > 0, got 0"),
    (
        "period_string",
        'period_string.toml: [tasks.T] period: must be a number, got a string ("10")',
    ),
    (
        "period_infinite",
        "period_infinite.toml: [tasks.T] period: must be a finite number, got inf",
    ),
    (
        "period_out_of_range",
        "period_out_of_range.toml: [tasks.T] period: 1E+99 is out of range",
    ),
    (
        "period_not_representable",
        "period_not_representable.toml: [tasks.T] period: 1.5 ms is not representable in ticks (a tick is 1 ms at tick_hz 1000)",
    ),
    (
        "period_not_representable_ticks",
        'period_not_representable_ticks.toml: [tasks.T] period: 2.5 is not representable in ticks (time_unit is "tick": times are whole numbers)',
    ),
    (
        "period_too_long",
        "period_too_long.toml: [tasks.T] period: 4294967296 ticks exceeds the limit of 4294967295 ticks",
    ),
    ("phase_negative", "phase_negative.toml: [tasks.T] phase: must be >= 0, got -1"),
    ("deadline_zero", "deadline_zero.toml: [tasks.T] deadline: must be > 0, got 0"),
    # [tasks.NAME]: priorities
    (
        "priority_too_high",
        "priority_too_high.toml: [tasks.T] priority: must be in 0..255 (the kernel's range), got 256",
    ),
    (
        "priority_negative",
        "priority_negative.toml: [tasks.T] priority: must be in 0..255 (the kernel's range), got -1",
    ),
    (
        "priority_float",
        "priority_float.toml: [tasks.T] priority: must be an integer, got a float (3.0)",
    ),
    (
        "priority_boolean",
        "priority_boolean.toml: [tasks.T] priority: must be an integer, got a boolean (true)",
    ),
    (
        "priority_string",
        'priority_string.toml: [tasks.T] priority: must be an integer, got a string ("high")',
    ),
    (
        "priority_on_some_tasks",
        "priority_on_some_tasks.toml: [tasks.L] priority: missing, while [tasks.H] has one: give every task a priority, or none for rate-monotonic order",
    ),
    (
        "rate_monotonic_without_period",
        "rate_monotonic_without_period.toml: [tasks.Once] period: missing: rate-monotonic order needs a period on every task (or give every task a priority)",
    ),
    # Bodies: shape and actions
    (
        "body_missing",
        "body_missing.toml: [tasks.T] body: missing: a task needs a body, a list of actions",
    ),
    (
        "body_empty",
        "body_empty.toml: [tasks.T] body: empty: a task needs at least one action",
    ),
    (
        "body_not_array",
        'body_not_array.toml: [tasks.T] body: must be an array of action strings, got a string ("compute 1")',
    ),
    (
        "body_item_not_string",
        "body_item_not_string.toml: [tasks.T] body[1]: must be a string, got an integer (2)",
    ),
    (
        "action_unknown",
        'action_unknown.toml: [tasks.T] body[1]: unknown action "run 2" (expected compute, lock, unlock, down, up, delay, send, receive, set, clear, wait, rtprio, nice or release)',
    ),
    (
        "action_empty",
        "action_empty.toml: [tasks.T] body[1]: empty action (expected compute, lock, unlock, down, up, delay, send, receive, set, clear, wait, rtprio, nice or release)",
    ),
    (
        "action_malformed",
        'action_malformed.toml: [tasks.T] body[0]: malformed action "lock" (expected "lock R" or "lock R timeout T")',
    ),
    (
        "action_malformed_timeout",
        'action_malformed_timeout.toml: [tasks.T] body[0]: malformed action "lock S wait 3" (expected "lock R" or "lock R timeout T")',
    ),
    (
        "action_unlock_timeout",
        'action_unlock_timeout.toml: [tasks.T] body[2]: malformed action "unlock S timeout 3" (expected "unlock R")',
    ),
    (
        "action_bad_time",
        'action_bad_time.toml: [tasks.T] body[0]: compute time must be a number, got "1ms"',
    ),
    (
        "action_non_ascii_digits",
        'action_non_ascii_digits.toml: [tasks.T] body[0]: compute time must be a number, got "\\u0661\\u0662"',
    ),
    (
        "cost_model_tick_stalls",
        "cost_model_tick_stalls.toml: [system.cost_model] tick_ns: the tick costs 1000000 ns, not less than the "
        "tick period (1000000 ns at tick_hz 1000): the tick interrupt would take all the time and nothing else "
        "would ever run",
    ),
    (
        "compute_zero",
        "compute_zero.toml: [tasks.T] body[0]: compute time must be > 0, got 0",
    ),
    (
        "compute_not_representable",
        "compute_not_representable.toml: [tasks.T] body[0]: compute time 250 us is not representable in ticks (a tick is 1000 us at tick_hz 1000)",
    ),
    (
        "compute_too_long",
        "compute_too_long.toml: [tasks.T] body[0]: compute time 5e12 ms (5000000000000 ticks) exceeds the limit of 4611686018427 ticks",
    ),
    (
        "delay_negative",
        "delay_negative.toml: [tasks.T] body[1]: delay time must be >= 0, got -2",
    ),
    (
        "timeout_negative",
        "timeout_negative.toml: [tasks.T] body[0]: timeout must be >= 0, got -1",
    ),
    (
        "timeout_too_long",
        "timeout_too_long.toml: [tasks.T] body[0]: timeout 4294967295 ticks exceeds the limit of 4294967294 ticks",
    ),
    # Bodies: resources and critical sections
    (
        "unknown_resource",
        'unknown_resource.toml: [tasks.T] body[2]: unknown resource "X"',
    ),
    (
        "lock_on_counting",
        'lock_on_counting.toml: [tasks.T] body[0]: lock needs a mutex, "C" is a counting semaphore (use down/up)',
    ),
    (
        "unlock_on_binary",
        'unlock_on_binary.toml: [tasks.T] body[2]: unlock needs a mutex, "B" is a binary semaphore (use down/up)',
    ),
    (
        "down_on_mutex",
        'down_on_mutex.toml: [tasks.T] body[0]: down needs a counting or binary semaphore, "S" is a mutex (use lock/unlock)',
    ),
    (
        "up_on_mutex",
        'up_on_mutex.toml: [tasks.T] body[1]: up needs a counting or binary semaphore, "S" is a mutex (use lock/unlock)',
    ),
    (
        "unlock_not_held",
        'unlock_not_held.toml: [tasks.T] body[1]: unlock "S": not held at this point of the body',
    ),
    (
        "unlock_twice",
        'unlock_twice.toml: [tasks.T] body[3]: unlock "S": not held at this point of the body',
    ),
    (
        "lock_already_held",
        'lock_already_held.toml: [tasks.T] body[2]: lock "S": already held (locked at body[0])',
    ),
    (
        "ends_holding",
        'ends_holding.toml: [tasks.T] body: ends holding "R" (locked at body[1], never unlocked after)',
    ),
]


@pytest.mark.parametrize(("name", "message"), BAD_FILES, ids=[name for name, _ in BAD_FILES])
def test_bad_file(name: str, message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BAD)  # so the message names the file as given: NAME.toml
    with pytest.raises(ScenarioError) as e:
        load(f"{name}.toml")
    assert str(e.value) == message


def test_every_bad_file_is_checked() -> None:
    assert sorted(p.stem for p in BAD.glob("*.toml")) == sorted(name for name, _ in BAD_FILES)


def test_error_parts() -> None:
    # The CLI and reports may use the parts separately.
    with pytest.raises(ScenarioError) as e:
        parse('[tasks.T]\nperiod = -5\nbody = ["compute 1"]\n', "ex.toml")
    assert (e.value.source, e.value.where, e.value.reason) == (
        "ex.toml",
        "[tasks.T] period",
        "must be > 0, got -5",
    )


# ---- protocols and ceilings ----


def test_every_protocol_and_ceilings() -> None:
    text = """
[system]
protocol = "pcp"

[resources.A]
kind = "mutex"
ceiling = 7

[resources.B]
kind = "mutex"
protocol = "npcs"
order = "fifo"

[resources.C]
kind = "mutex"
protocol = "rcs"
ceiling = 31

[resources.D]
kind = "mutex"
protocol = "ipcp"

[tasks.T]
priority = 5
body = ["lock A", "lock B", "lock C", "lock D", "compute 1", "unlock D", "unlock C", "unlock B", "unlock A"]
"""
    s = parse(text, "p.toml")
    assert [(r.name, r.protocol, r.order, r.ceiling) for r in s.resources] == [
        ("A", "pcp", "priority", 7),
        ("B", "npcs", "fifo", None),
        ("C", "rcs", "priority", 31),
        ("D", "ipcp", "priority", None),
    ]
    assert [s.ceiling(r.name) for r in s.resources] == [7, 5, 31, 5]
    assert [s.kernel_ceiling(r.name) for r in s.resources] == [7, 255, None, 5]  # npcs: the top of 256 levels
    for protocol in ("none", "pip", "ipcp", "npcs", "rcs"):
        assert (
            parse(text.replace('protocol = "pcp"', f'protocol = "{protocol}"'), "p.toml")
            .resources[0]
            .protocol
            == protocol
        )


def test_a_recovery_in_the_file_units_kept_under_another_protocol() -> None:
    # 1.5 ms at 10 kHz is 15 ticks; 0 is allowed (no recovery: the take-over).
    # --protocol keeps it on the model; only an rcs mutex runs it (compiled.py).
    text = """
[system]
tick_hz = 10000
time_unit = "ms"
protocol = "rcs"

[resources.S]
kind = "mutex"
recovery = 1.5

[resources.T]
kind = "mutex"
recovery = 0

[resources.U]
kind = "mutex"

[tasks.T]
priority = 5
body = ["lock S", "lock T", "lock U", "compute 1", "unlock U", "unlock T", "unlock S"]
"""
    s = parse(text, "r.toml")
    assert [r.recovery for r in s.resources] == [15, 0, 0]
    assert [r.recovery for r in s.with_protocol("pip").resources] == [15, 0, 0]
    from priora.run.compiled import compile_scenario

    assert [k.recovery for k in compile_scenario(s).semaphores] == [1_500_000, 0, 0]
    assert [k.recovery for k in compile_scenario(s.with_protocol("pip")).semaphores] == [0, 0, 0]


def test_a_ceiling_is_checked_against_rate_monotonic_priorities() -> None:
    # Periods 10 and 20 give priorities 31 and 30: a ceiling of 30 on a mutex
    # the period-10 task locks is below its priority.
    text = """
[resources.S]
kind = "mutex"
ceiling = 30

[tasks.Fast]
period = 10
body = ["lock S", "compute 1", "unlock S"]

[tasks.Slow]
period = 20
body = ["lock S", "compute 1", "unlock S"]
"""
    with pytest.raises(ScenarioError) as e:
        parse(text, "rm.toml")
    assert str(e.value) == (
        "rm.toml: [resources.S] ceiling: 30 is below the priority 31 of task Fast, which locks S: "
        "the kernel would refuse Fast's lock with PR_ECEILING; give at least 31, or no ceiling to have it computed"
    )
    assert parse(text.replace("ceiling = 30", "ceiling = 31"), "rm.toml").resources[0].ceiling == 31


def test_a_ceiling_is_checked_under_any_protocol() -> None:
    # A file under pip may be run with --protocol pcp: its ceilings are checked anyway.
    text = """
[resources.S]
kind = "mutex"
protocol = "pip"
ceiling = 1

[tasks.T]
priority = 2
body = ["lock S", "compute 1", "unlock S"]
"""
    with pytest.raises(
        ScenarioError, match=r"^c.toml: \[resources.S\] ceiling: 1 is below the priority 2 of task T,"
    ):
        parse(text, "c.toml")


def test_the_documented_protocol_fragment_is_valid() -> None:
    blocks = re.findall(r"```toml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    fragment = next(b for b in blocks if "ceiling = 4" in b)
    task = '\n[tasks.T]\npriority = 4\nbody = ["lock S", "lock T", "lock Log", "compute 1", "unlock Log", "unlock T", "unlock S"]\n'
    s = parse(fragment + task, "docs.toml")
    assert [(r.protocol, r.ceiling, s.kernel_ceiling(r.name)) for r in s.resources] == [
        ("pcp", 4, 4),
        ("pcp", None, 4),
        ("npcs", None, 255),
    ]

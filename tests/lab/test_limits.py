"""The lab's kernel limits: 1,024 tasks and 256 priority levels (the library
is built with them: CMakeLists.txt PRIORA_LAB_LIMITS, lab/setup.py). A
generated 500-task set and a scenario across the 256 levels, simulated and
checked exactly; task ids beyond 254 read back from the trace (12-bit tags)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from priora.generate import generate, parse_params
from priora.generate.taskset import to_toml
from priora.limits import DEFAULT_PRIORITY_MAX, MAX_TASKS, PRIORITY_MAX
from priora.run import native
from priora.run.simulate import simulate
from priora.scenario.loader import parse
from priora.trace import ctf
from priora.trace.ctf import CtfError
from priora.trace.timeline import extract

# Periods of 10, 20 and 40 ms at 100 kHz; two hyperperiods.
SPEC = {
    "tasks": 500,
    "utilisation": 0.5,
    "periods": [10000, 20000, 40000],
    "time_unit": "us",
    "tick_hz": 100000,
    "horizon": 80000,
}


def test_the_limits_are_the_librarys() -> None:
    lib = native.lib()
    assert [int(lib.pr_lab_limit(i)) for i in (0, 2)] == [MAX_TASKS, PRIORITY_MAX + 1] == [1024, 256]


def test_a_500_task_set_simulates(tmp_path: Path) -> None:
    s = parse(to_toml(generate(parse_params("g.toml", SPEC), 7)), "big.toml")
    assert len(s.tasks) == 500
    # Rate-monotonic over 500 tasks: 256 levels shared by neighbours, the
    # shortest period at the top.
    priorities = [t.priority for t in s.tasks]
    assert (min(priorities), max(priorities), len(set(priorities))) == (0, 255, 256)
    assert all(t.phase == 0 for t in s.tasks)
    horizon = s.horizon_ticks()
    assert horizon == 8000

    result = simulate(s)
    # Each task's jobs released in [0, horizon): horizon / period, exactly.
    expected = [horizon // t.period for t in s.tasks if t.period is not None]
    assert len(expected) == 500
    counts = np.bincount(result.jobs["task"], minlength=500).tolist()
    assert counts == expected
    assert sum(counts) == len(result.jobs) == 2430
    assert int(np.count_nonzero(result.jobs["missed"])) == 0

    # The trace names tasks up to 499: tags beyond 0xFF decoded.
    switched_in = native.task_ids(result.trace[result.trace["event"] == native.EVENT["SWITCH"]])
    assert sorted(set(switched_in.tolist()) - {-1}) == list(range(500))
    assert int(np.count_nonzero(result.trace["ids_high"])) > 0
    # The Python reader sees the same releases as the job accounting.
    timeline = extract(result)
    assert [len(t.releases) for t in timeline.tasks] == counts
    # CTF's event classes hold one byte per id: refused in one line, nothing written.
    out = tmp_path / "ctf"
    with pytest.raises(CtfError) as err:
        ctf.write(result, out)
    assert str(err.value) == (
        f"--ctf: {out}: the run has task ids above 254, which this CTF layout (one byte per id) "
        "cannot hold; write the run with --trace (Perfetto) instead"
    )
    assert not out.exists()


def test_rate_monotonic_over_more_than_32_tasks_uses_the_upper_levels() -> None:
    # Distinct periods, one per task: 40 tasks get 255 .. 216; 32 keep the
    # default build's levels, 31 .. 0 (as on QEMU).
    for n, levels in ((40, range(216, 256)), (32, range(0, DEFAULT_PRIORITY_MAX + 1))):
        spec = {**SPEC, "tasks": n, "periods": [1000 * (i + 1) for i in range(n)], "horizon": 100000}
        s = parse(to_toml(generate(parse_params("g.toml", spec), 3)), "g.toml")
        assert sorted(t.priority for t in s.tasks) == list(levels)
        by_period = sorted(s.tasks, key=lambda t: t.period or 0)
        assert [t.priority for t in by_period] == sorted(levels, reverse=True)


# L (0) holds S (ipcp, ceiling 255) from 0 to 3: H (255), released at 2,
# does not preempt it (not strictly above the ceiling); then every task runs
# by priority across the words of the bitmap: H, C (128), B (32), A (31), L.
LEVELS = """
[system]
tick_hz = 1000

[resources.S]
kind = "mutex"
protocol = "ipcp"
ceiling = 255

[tasks.L]
priority = 0
body = ["lock S", "compute 3", "unlock S", "compute 1"]

[tasks.A]
priority = 31
phase = 1
body = ["compute 1"]

[tasks.B]
priority = 32
phase = 1
body = ["compute 1"]

[tasks.H]
priority = 255
phase = 2
body = ["lock S", "compute 1", "unlock S"]

[tasks.C]
priority = 128
phase = 2
body = ["compute 1"]
"""


def test_a_scenario_across_256_levels() -> None:
    result = simulate(parse(LEVELS, "levels.toml"))
    ms = 1_000_000
    names = [t.name for t in result.scenario.tasks]
    jobs = [
        (names[int(j["task"])], int(j["release"]) // ms, int(j["start"]) // ms, int(j["finish"]) // ms)
        for j in result.jobs
    ]
    assert sorted(jobs, key=lambda j: j[3]) == [
        ("H", 2, 3, 4),
        ("C", 2, 4, 5),
        ("B", 1, 5, 6),
        ("A", 1, 6, 7),
        ("L", 0, 0, 8),
    ]
    prio = result.trace[result.trace["event"] == native.EVENT["PRIO"]]
    assert [
        (names[t], int(a), int(b))
        for t, a, b in zip(native.task_ids(prio), prio["arg0"], prio["arg1"], strict=True)
    ] == [
        ("L", 0, 255),
        ("L", 255, 0),
    ]

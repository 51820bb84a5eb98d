"""The Chrome trace for Perfetto (`--trace`): well formed on every example
under every protocol (tests/lab/perfetto_check.py; test_qemu_run.py checks
the same on QEMU), and its lanes, counters and flows exact on the classic
inversion (examples/inversion.toml, worked out in its comment: under pip, L
holds S from 0 to 5 ms and runs at H's 3 from 2 to 5 ms; H blocks at 2 ms
and runs at 5 ms when L unlocks S).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from perfetto_check import check, check_file

from priora import __version__
from priora.run.simulate import simulate
from priora.scenario.loader import load
from priora.scenario.model import PROTOCOLS
from priora.trace.chrome_trace import CPU_TID, MUTEX_TID, to_events, write

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("**/*.toml"))
CASES = [(p, protocol) for p in EXAMPLES if "campaigns" not in p.parts for protocol in PROTOCOLS]


@pytest.mark.parametrize(("path", "protocol"), CASES, ids=lambda v: v.stem if isinstance(v, Path) else v)
def test_every_example_gives_a_well_formed_trace(path: Path, protocol: str, tmp_path: Path) -> None:
    scenario = load(path).with_protocol(protocol)  # type: ignore[arg-type]
    out = tmp_path / "trace.json"
    write(simulate(scenario), out)
    assert check_file(out) == []


def inversion_events() -> list[dict[str, object]]:
    return to_events(simulate(load(ROOT / "examples" / "inversion.toml")))


def test_the_cpu_lane_says_who_runs() -> None:
    cpu = [
        (e["name"], e["ts"], e["dur"])
        for e in inversion_events()
        if e.get("tid") == CPU_TID and e["ph"] == "X"
    ]
    # L 0-1, H 1-2, L 2-5 (boosted), H 5-7, M 7-12, L 12-13 (ms = 1000 µs)
    assert cpu == [("L", 0.0, 1000.0), ("H", 1000.0, 1000.0), ("L", 2000.0, 3000.0), ("H", 5000.0, 2000.0),
                   ("M", 7000.0, 5000.0), ("L", 12000.0, 1000.0)]  # fmt: skip


def test_the_mutex_lane_says_who_holds_it() -> None:
    held = [
        (e["name"], e["ts"], e["dur"])
        for e in inversion_events()
        if e.get("tid") == MUTEX_TID and e["ph"] == "X"
    ]
    assert held == [("held by L", 0.0, 5000.0), ("held by H", 5000.0, 1000.0)]


def test_priority_counters_and_the_wake_flow() -> None:
    events = inversion_events()
    counters = [
        (e["name"], e["ts"], e["args"]) for e in events if e["ph"] == "C" and e["name"] == "priority L"
    ]
    assert counters == [("priority L", 0.0, {"priority": 1}), ("priority L", 2000.0, {"priority": 3}),
                        ("priority L", 5000.0, {"priority": 1})]  # fmt: skip
    flows = [(e["ph"], e["tid"], e["ts"]) for e in events if e["ph"] in ("s", "f")]
    # L's unlock at 5 ms wakes H (tid 2), which runs at 5 ms.
    assert flows == [("s", 1, 5000.0), ("f", 2, 5000.0)]


def test_metadata_names_the_run(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    write(simulate(load(ROOT / "examples" / "inversion.toml")), out)
    doc = json.loads(out.read_text())
    assert doc["metadata"] == {"priora": __version__, "scenario": "inversion.toml", "protocol": "pip",
                               "tick_hz": 1000, "time_unit": "ms", "cost_model": "zero"}  # fmt: skip


def test_the_checker_finds_overlaps_and_broken_flows() -> None:
    meta = {
        "priora": "x",
        "scenario": "s",
        "protocol": "p",
        "tick_hz": 1,
        "time_unit": "ms",
        "cost_model": "z",
    }
    name = {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "T"}}
    overlap = [name, {"name": "a", "ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
               {"name": "b", "ph": "X", "pid": 1, "tid": 1, "ts": 5, "dur": 10},
               {"name": "w", "ph": "s", "pid": 1, "tid": 1, "ts": 1, "id": 7}]  # fmt: skip
    problems = check({"displayTimeUnit": "ms", "metadata": meta, "traceEvents": overlap})
    assert problems == ["track 1: 'b' [5, 15] overlaps 'a' [0, 10]", "flow 7: has ['s'] only"]

"""The pictures and the trace export: priora.trace.timeline (the intervals read from
the kernel trace), priora.pictures.gantt (the chart files) and priora.trace.chrome_trace (the
Chrome trace event JSON), on small scenarios built with the model classes.
Every expected interval is worked out by hand in the comments."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from priora.pictures import gantt
from priora.report.build import build_report
from priora.run import native
from priora.run.simulate import SimResult, simulate
from priora.scenario.model import Action, Resource, Scenario, System, Task
from priora.trace import chrome_trace
from priora.trace.timeline import (
    Abort,
    Blocked,
    Boost,
    CriticalSection,
    Interval,
    Mark,
    PriorityChange,
    extract,
)

MS = 1_000_000  # ns per ms (and per tick at 1000 Hz)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# ---------------------------------------------------------------- scenarios


def compute(ticks: int) -> Action:
    return Action("compute", ticks=ticks)


def lock(name: str) -> Action:
    return Action("lock", name)


def unlock(name: str) -> Action:
    return Action("unlock", name)


def mutex(name: str, protocol: str) -> Resource:
    return Resource(name, "mutex", protocol, 1, None, "priority")  # type: ignore[arg-type]


def inversion(protocol: str, unit: str = "ms") -> Scenario:
    """The classic inversion: L (1) at 0: lock S, compute 4, unlock S,
    compute 1; H (3) at 1: compute 1, lock S, compute 1, unlock S, compute 1;
    M (2) at 2: compute 5. 1000 Hz."""
    tasks = (
        Task("L", 1, None, 0, None, (lock("S"), compute(4), unlock("S"), compute(1))),
        Task("H", 3, None, 1, None, (compute(1), lock("S"), compute(1), unlock("S"), compute(1))),
        Task("M", 2, None, 2, None, (compute(5),)),
    )
    system = System(1000, unit, None, protocol)  # type: ignore[arg-type]
    return Scenario("inversion.toml", system, (mutex("S", protocol),), tasks)


def chain() -> Scenario:
    """A transitive chain under pip: L (1) at 0: lock S1, compute 4, unlock S1;
    M (2) at 1: lock S2, lock S1, compute 1, unlock S1, unlock S2; H (3) at 2:
    lock S2, compute 1, unlock S2."""
    tasks = (
        Task("L", 1, None, 0, None, (lock("S1"), compute(4), unlock("S1"))),
        Task("M", 2, None, 1, None, (lock("S2"), lock("S1"), compute(1), unlock("S1"), unlock("S2"))),
        Task("H", 3, None, 2, None, (lock("S2"), compute(1), unlock("S2"))),
    )
    return Scenario(
        "chain.toml", System(1000, "ms", None, "pip"), (mutex("S1", "pip"), mutex("S2", "pip")), tasks
    )


def periodic() -> Scenario:
    """Periodic tasks, a deadline miss, a semaphore timeout, an unfinished job,
    a task never released (the scenario of test_report.py), horizon 10:
    A (2) period 5: compute 2.
    B (1) period 10, deadline 4: down C (counting, 0 units) timeout 2, compute 3.
    U (0) period 20, phase 3: compute 5.
    Z (3) one job at 50, after the horizon."""
    resources = (
        Resource("C", "counting", "none", 0, None, "priority"),
        Resource("R", "mutex", "pip", 1, None, "priority"),
    )
    tasks = (
        Task("A", 2, 5, 0, None, (compute(2),)),
        Task("B", 1, 10, 0, 4, (Action("down", "C", timeout=2), compute(3))),
        Task("U", 0, 20, 3, None, (compute(5),)),
        Task("Z", 3, None, 50, None, (compute(1),)),
    )
    return Scenario("periodic.toml", System(1000, "ms", 10, "pip"), resources, tasks)


def crossed() -> Scenario:
    """Holds that do not nest: T (1): lock A, compute 1, lock B, compute 1,
    unlock A, compute 1, unlock B, compute 1. A held [0,2), B held [1,3)."""
    body = (lock("A"), compute(1), lock("B"), compute(1), unlock("A"), compute(1), unlock("B"), compute(1))
    resources = (mutex("A", "pip"), mutex("B", "pip"))
    return Scenario(
        "crossed.toml", System(1000, "ms", None, "pip"), resources, (Task("T", 1, None, 0, None, body),)
    )


def overrun() -> Scenario:
    """T (1) period 2, compute 3, horizon 6: job 1 runs [0,3) and misses its
    deadline at 2; job 2 (released at 2) goes on at once at 3 and finishes at
    6, missing its deadline at 4; job 3 is released at 4 and is unfinished at
    6, its deadline and the end of the run: missed too."""
    task = Task("T", 1, 2, 0, None, (compute(3),))
    return Scenario("overrun.toml", System(1000, "ms", 6, "pip"), (), (task,))


def late_at_the_end() -> Scenario:
    """T (1) period 10, compute 12, the default horizon (the hyperperiod, 10):
    job 1 runs [0,10) and is unfinished at its deadline 10, the end of the run."""
    task = Task("T", 1, 10, 0, None, (compute(12),))
    return Scenario("late.toml", System(1000, "ms", None, "pip"), (), (task,))


def ms(*bounds: tuple[int, int]) -> tuple[Interval, ...]:
    return tuple(Interval(a * MS, b * MS) for a, b in bounds)


@pytest.fixture(scope="module")
def pip_result() -> SimResult:
    return simulate(inversion("pip"))


# ---------------------------------------------------------------- timeline


def test_timeline_of_the_inversion_under_pip(pip_result: SimResult) -> None:
    # 0 L runs, takes S at once. 1 H preempts. 2 H blocks on S: L inherits 3
    # and runs; M (released at 2) cannot preempt it. 5 L unlocks: back to 1,
    # S handed to H, which runs: S [5,6), compute to 7. 7 M runs to 12, L's
    # last tick [12,13).
    tl = extract(pip_result)
    assert tl.end == 13 * MS
    L, H, M = tl.tasks
    assert (L.name, L.base_priority, H.name, M.name) == ("L", 1, "H", "M")
    assert L.executions == ms((0, 1), (2, 5), (12, 13))
    assert H.executions == ms((1, 2), (5, 7))
    assert M.executions == ms((7, 12))
    assert L.critical_sections == (CriticalSection(0, 5 * MS, "S"),)
    assert H.critical_sections == (CriticalSection(5 * MS, 6 * MS, "S"),)
    assert M.critical_sections == ()
    assert H.blocked == (Blocked(2 * MS, 5 * MS, "S", timed_out=False),)
    assert L.blocked == M.blocked == ()
    assert L.boosts == (Boost(2 * MS, 5 * MS, 3),)
    assert H.boosts == M.boosts == ()
    assert L.priority_changes == (
        PriorityChange(2 * MS, 1, 3, "inherit", "S"),
        PriorityChange(5 * MS, 3, 1, "release", "S"),
    )
    assert [t.releases for t in tl.tasks] == [(Mark(0, 1),), (Mark(MS, 1),), (Mark(2 * MS, 1),)]
    assert [t.finishes for t in tl.tasks] == [(Mark(13 * MS, 1),), (Mark(7 * MS, 1),), (Mark(12 * MS, 1),)]
    # One-shot tasks without a deadline: none to mark, none missed.
    assert all(t.deadlines == () and t.misses == () for t in tl.tasks)
    assert [t.name for t in tl.by_urgency()] == ["H", "M", "L"]


def test_timeline_of_the_inversion_without_inheritance() -> None:
    # 2 H blocks; L runs again for no time: M (released at 2) preempts it at
    # once (that empty run is dropped) and runs to 7. L [7,10) unlocks: S to
    # H, which runs [10,12) holding S [10,11). L's last tick [12,13).
    L, H, M = extract(simulate(inversion("none"))).tasks
    assert L.executions == ms((0, 1), (7, 10), (12, 13))
    assert H.executions == ms((1, 2), (10, 12))
    assert M.executions == ms((2, 7))
    assert L.critical_sections == (CriticalSection(0, 10 * MS, "S"),)
    assert H.critical_sections == (CriticalSection(10 * MS, 11 * MS, "S"),)
    assert H.blocked == (Blocked(2 * MS, 10 * MS, "S"),)
    assert L.boosts == L.priority_changes == ()


def test_boosts_are_split_per_inherited_value() -> None:
    # 0 L takes S1. 1 M preempts, takes S2, blocks on S1: L inherits 2 (M ran
    # for no time, so L's run goes on as one interval). 2 H preempts, blocks
    # on S2: M inherits 3, and through S1 so does L. 4 L unlocks S1: back to
    # 1, S1 handed to M, which runs [4,5), unlocks S1 then S2: back to 2, S2
    # handed to H, which runs [5,6). Then M and L end at 6, having nothing
    # left to compute.
    L, M, H = extract(simulate(chain())).tasks
    assert L.executions == ms((0, 4))
    assert L.boosts == (Boost(1 * MS, 2 * MS, 2), Boost(2 * MS, 4 * MS, 3))
    assert [(c.old, c.new, c.cause, c.resource) for c in L.priority_changes] == [
        (1, 2, "inherit", "S1"),
        (2, 3, "inherit", "S1"),
        (3, 1, "release", "S1"),
    ]
    assert M.boosts == (Boost(2 * MS, 5 * MS, 3),)
    assert M.blocked == (Blocked(1 * MS, 4 * MS, "S1"),)
    # M takes S2 at once at 1, is handed S1 at 4.
    assert M.critical_sections == (
        CriticalSection(1 * MS, 5 * MS, "S2"),
        CriticalSection(4 * MS, 5 * MS, "S1"),
    )
    assert H.blocked == (Blocked(2 * MS, 5 * MS, "S2"),)
    assert H.critical_sections == (CriticalSection(5 * MS, 6 * MS, "S2"),)


def test_timeline_marks_deadlines_misses_and_timeouts() -> None:
    # A runs [0,2) and [5,7). B blocks on C at 2 with a timeout of 2 ticks,
    # given at the instant of tick 2 before it is taken: the wait counts from
    # tick 2 and times out at 4 (docs/semantics.md). U (released at 3) runs
    # [3,4) while B waits. At 4 B's deadline passes (missed), then B runs
    # [4,5), A preempts, [7,9). U runs again [9,10), unfinished at the horizon,
    # where its interval is closed. Z is never released.
    A, B, U, Z = extract(simulate(periodic())).tasks
    assert A.executions == ms((0, 2), (5, 7))
    assert A.releases == (Mark(0, 1), Mark(5 * MS, 2))
    assert A.deadlines == (Mark(5 * MS, 1), Mark(10 * MS, 2))
    assert A.misses == ()
    assert B.executions == ms((4, 5), (7, 9))
    assert B.blocked == (Blocked(2 * MS, 4 * MS, "C", timed_out=True),)
    assert B.critical_sections == ()  # a counting semaphore has no holder
    assert B.deadlines == (Mark(4 * MS, 1),)
    assert B.misses == (Mark(4 * MS, 1),)
    assert B.finishes == (Mark(9 * MS, 1),)
    assert U.executions == ms((3, 4), (9, 10))
    assert U.deadlines == (Mark(23 * MS, 1),)
    assert U.finishes == ()
    assert Z.executions == Z.releases == Z.deadlines == ()


@pytest.mark.parametrize(
    ("unit", "expected"), [("ms", (2.0, 5.0)), ("us", (2000.0, 5000.0)), ("tick", (2.0, 5.0))]
)
def test_converters_give_the_file_unit(unit: str, expected: tuple[float, float]) -> None:
    result = simulate(inversion("pip", unit=unit))
    H = extract(result).tasks[1]
    assert H.blocked[0].in_unit(result.scenario) == expected
    assert H.releases[0].in_unit(result.scenario) == expected[0] / 2


def test_a_miss_at_the_end_of_the_run_is_drawn_as_reported(tmp_path: Path) -> None:
    # T1 runs [0,10) and is unfinished when the run stops at 10. Its deadline
    # (0 + 10) is not after the end: the accounting marks it missed, and the
    # report says so. The kernel wrote no MISS record: it never takes the tick
    # at the end of the run. The timeline, the trace export and the chart
    # show the miss the report counts, at the deadline.
    result = simulate(late_at_the_end())
    assert result.end_ns == 10 * MS
    assert native.EVENT["MISS"] not in result.trace["event"].tolist()
    report = build_report(result)
    assert (report.jobs[0].missed, report.jobs[0].deadline, report.system.misses) == (True, 10, 1)
    (T,) = extract(result).tasks
    assert T.misses == (Mark(10 * MS, 1),)
    assert T.deadlines == (Mark(10 * MS, 1),)
    assert instants(chrome_trace.to_events(result), "deadline miss") == [(1, 10000.0, {"job": 1})]
    path = tmp_path / "late.svg"
    gantt.draw(result, path)
    assert gantt.MISS_COLOUR in path.read_text(encoding="utf-8")  # the red arrow, cross and legend


@pytest.mark.parametrize("scenario", [periodic(), overrun(), late_at_the_end(), inversion("pip")])
def test_misses_are_the_reports_and_include_every_miss_record(scenario: Scenario) -> None:
    result = simulate(scenario)
    drawn = {(t.name, m.job, m.time) for t in extract(result).tasks for m in t.misses}
    names = [t.name for t in scenario.tasks]
    reported = {(j.task, j.job, j.deadline * MS) for j in build_report(result).jobs if j.missed}  # in ms
    assert drawn == reported
    records = result.trace[result.trace["event"] == native.EVENT["MISS"]]
    written = {(names[r["task"]], int(r["value"]), int(r["time"])) for r in records}
    # The records are the misses whose deadline the kernel reached; the
    # others are at the end of the run.
    assert written <= drawn
    assert all(time == result.end_ns for _, _, time in drawn - written)


# ---------------------------------------------------------------- gantt


def test_gantt_writes_png_and_svg(tmp_path: Path, pip_result: SimResult) -> None:
    png, svg = tmp_path / "chart.png", tmp_path / "chart.svg"
    gantt.draw(pip_result, png)
    gantt.draw(pip_result, svg, title="inversion under pip")
    assert png.read_bytes().startswith(PNG_SIGNATURE)
    assert png.stat().st_size > 5000
    root = ET.parse(svg).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


def test_gantt_is_deterministic(tmp_path: Path, pip_result: SimResult) -> None:
    first, second = tmp_path / "a.svg", tmp_path / "b.svg"
    gantt.draw(pip_result, first)
    gantt.draw(simulate(inversion("pip")), second)  # a second run, too
    assert first.read_bytes() == second.read_bytes()
    png1, png2 = tmp_path / "a.png", tmp_path / "b.png"
    gantt.draw(pip_result, png1)
    gantt.draw(pip_result, png2)
    assert png1.read_bytes() == png2.read_bytes()


@pytest.mark.parametrize(
    "scenario", [periodic(), chain(), crossed(), overrun(), inversion("none", unit="us")]
)
def test_gantt_draws_every_kind_of_mark(tmp_path: Path, scenario: Scenario) -> None:
    # Misses, timeouts, unfinished jobs, chains, crossed holds, other units.
    path = tmp_path / "chart.svg"
    gantt.draw(simulate(scenario), path)
    ET.parse(path)


def test_gantt_refuses_other_formats(tmp_path: Path, pip_result: SimResult) -> None:
    with pytest.raises(
        ValueError, match=r"^.*chart\.gif: a Gantt chart is written as \.png, \.svg or \.pdf$"
    ):
        gantt.draw(pip_result, tmp_path / "chart.gif")


# ---------------------------------------------------------------- chrome trace


def load_trace(tmp_path: Path, result: SimResult) -> dict[str, Any]:
    path = tmp_path / "trace.json"
    chrome_trace.write(result, path)
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def slices(events: list[dict[str, Any]], tid: int, cat: str) -> list[tuple[str, float, float]]:
    return [
        (e["name"], e["ts"], e["dur"])
        for e in events
        if e["ph"] == "X" and e["tid"] == tid and e["cat"] == cat
    ]


def instants(events: list[dict[str, Any]], name: str) -> list[tuple[int, float, dict[str, Any]]]:
    return [(e["tid"], e["ts"], e["args"]) for e in events if e["ph"] == "i" and e["name"] == name]


def test_chrome_trace_of_the_inversion(tmp_path: Path, pip_result: SimResult) -> None:
    document = load_trace(tmp_path, pip_result)
    assert document["displayTimeUnit"] == "ms"
    events = document["traceEvents"]
    assert events == chrome_trace.to_events(pip_result)
    # Tracks: L, H, M are tids 1, 2, 3, named with their base priority; then
    # the CPU lane and S's lane (test_perfetto.py checks what is on them).
    names = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert names == {1: "L (p1)", 2: "H (p3)", 3: "M (p2)", 1000000: "CPU", 2000000: "mutex S"}
    assert [e for e in events if e["name"] == "process_name"][0]["pid"] == 1
    assert all(e["pid"] == 1 for e in events)
    # H runs [1,2) and [5,7) ms, holds S [5,6), is blocked on S [2,5).
    assert slices(events, 2, "execution") == [("run", 1000.0, 1000.0), ("run", 5000.0, 2000.0)]
    assert slices(events, 2, "critical section") == [("S", 5000.0, 1000.0)]
    assert slices(events, 2, "blocked") == [("blocked on S", 2000.0, 3000.0)]
    # L holds S [0,5) but runs [0,1) and [2,5): its S slices nest in its runs.
    assert slices(events, 1, "execution") == [
        ("run", 0.0, 1000.0),
        ("run", 2000.0, 3000.0),
        ("run", 12000.0, 1000.0),
    ]
    assert slices(events, 1, "critical section") == [("S", 0.0, 1000.0), ("S", 2000.0, 3000.0)]
    assert instants(events, "priority 1->3") == [
        (1, 2000.0, {"old": 1, "new": 3, "cause": "inherit", "resource": "S"})
    ]
    assert instants(events, "priority 3->1") == [
        (1, 5000.0, {"old": 3, "new": 1, "cause": "release", "resource": "S"})
    ]
    assert instants(events, "release") == [
        (1, 0.0, {"job": 1}),
        (2, 1000.0, {"job": 1}),
        (3, 2000.0, {"job": 1}),
    ]
    assert instants(events, "deadline miss") == []
    assert all(e["s"] == "t" for e in events if e["ph"] == "i")


def test_chrome_trace_misses_and_jobs_of_an_overrun(tmp_path: Path) -> None:
    events = load_trace(tmp_path, simulate(overrun()))["traceEvents"]
    # One run [0,6) cut where job 1 ends, so that each slice is one job's.
    runs = [(e["ts"], e["dur"], e["args"]["job"]) for e in events if e["name"] == "run"]
    assert runs == [(0.0, 3000.0, 1), (3000.0, 3000.0, 2)]
    assert instants(events, "deadline miss") == [
        (1, 2000.0, {"job": 1}),
        (1, 4000.0, {"job": 2}),
        (1, 6000.0, {"job": 3}),  # at the end of the run (see late_at_the_end)
    ]
    assert instants(events, "job done") == [(1, 3000.0, {"job": 1}), (1, 6000.0, {"job": 2})]
    assert [ts for _, ts, _ in instants(events, "release")] == [0.0, 2000.0, 4000.0]


def test_chrome_trace_slices_nest_when_holds_cross(tmp_path: Path) -> None:
    # A held [0,2), B [1,3), in one run [0,4): B is cut at A's end.
    events = load_trace(tmp_path, simulate(crossed()))["traceEvents"]
    assert slices(events, 1, "critical section") == [
        ("A", 0.0, 2000.0),
        ("B", 1000.0, 1000.0),
        ("B", 2000.0, 1000.0),
    ]
    for tid in {e["tid"] for e in events if e["ph"] == "X"}:
        assert_nested([e for e in events if e["ph"] == "X" and e["tid"] == tid])


def assert_nested(track: list[dict[str, Any]]) -> None:
    """Every two slices of a track are disjoint or one contains the other."""
    for a in track:
        for b in track:
            a0, a1, b0, b1 = a["ts"], a["ts"] + a["dur"], b["ts"], b["ts"] + b["dur"]
            disjoint = a1 <= b0 or b1 <= a0
            assert disjoint or (a0 <= b0 and b1 <= a1) or (b0 <= a0 and a1 <= b1), (a, b)


def test_chrome_trace_timestamps_are_microseconds(tmp_path: Path) -> None:
    document = load_trace(tmp_path, simulate(inversion("pip", unit="us")))
    assert document["displayTimeUnit"] == "ns"
    # The same schedule whatever the unit of the file: H blocked [2,5) ms.
    assert slices(document["traceEvents"], 2, "blocked") == [("blocked on S", 2000.0, 3000.0)]


# ---------------------------------------------------------------- the protocols' new events


def protocols(protocol: str) -> SimResult:
    """examples/protocols.toml under `protocol` (its hand schedules are in
    tests/lab/test_examples.py)."""
    from priora.scenario.loader import load

    path = Path(__file__).resolve().parents[2] / "examples" / "protocols.toml"
    return simulate(load(path).with_protocol(protocol))  # type: ignore[arg-type]


def test_timeline_of_pcp_shows_waits_on_the_ceiling() -> None:
    # M asks for the free T at 1 and H for S at 4: both wait on the system
    # ceiling (4, set by S, held by L), until woken to try again (PR_EAGAIN):
    # H at 6, M at 7. H takes S when it runs at 6 (no hand-over), T at 7; M
    # takes T when it runs again, at 9. L inherits 2 at 1, then 4 at 4.
    tl = extract(protocols("pcp"))
    L, M, N, H, U = tl.tasks
    assert M.blocked == (Blocked(1 * MS, 7 * MS, "T", timed_out=False, ceiling=4, holder="L"),)
    assert H.blocked == (Blocked(4 * MS, 6 * MS, "S", timed_out=False, ceiling=4, holder="L"),)
    assert H.critical_sections == (CriticalSection(6 * MS, 7 * MS, "S"), CriticalSection(7 * MS, 8 * MS, "T"))
    assert M.critical_sections == (CriticalSection(9 * MS, 11 * MS, "T"),)
    assert L.critical_sections == (CriticalSection(0, 6 * MS, "S"),)
    assert L.boosts == (Boost(1 * MS, 4 * MS, 2, "inherit"), Boost(4 * MS, 6 * MS, 4, "inherit"))
    assert all(t.aborts == () for t in tl.tasks)


def test_timeline_of_ipcp_and_npcs_shows_boosts_to_the_ceiling() -> None:
    L, M, N, H, U = extract(protocols("ipcp")).tasks
    assert L.boosts == (Boost(0, 5 * MS, 4, "ceiling"),)
    assert M.boosts == (Boost(9 * MS, 11 * MS, 4, "ceiling"),)
    assert H.boosts == ()  # its ceiling is its own priority
    L, M, N, H, U = extract(protocols("npcs")).tasks
    assert L.boosts == (Boost(0, 4 * MS, 255, "ceiling"),)  # npcs: the top of 256 levels
    assert H.boosts == (Boost(5 * MS, 7 * MS, 255, "ceiling"),)  # S then T: one value, one boost
    assert all(b.blocked == () for b in (L, M, N, H, U))


def test_timeline_of_rcs_shows_aborts_and_lost_work() -> None:
    # H takes S from L at 4 and T from M at 5: L's section [0,4) and M's
    # [1,5) end aborted; each runs its section again from its lock: M
    # [7,9), L [9,13).
    L, M, N, H, U = extract(protocols("rcs")).tasks
    assert L.aborts == (Abort(4 * MS, "S", "H"),)
    assert M.aborts == (Abort(5 * MS, "T", "H"),)
    assert L.critical_sections == (
        CriticalSection(0, 4 * MS, "S", aborted=True),
        CriticalSection(9 * MS, 13 * MS, "S"),
    )
    assert M.critical_sections == (
        CriticalSection(1 * MS, 5 * MS, "T", aborted=True),
        CriticalSection(7 * MS, 9 * MS, "T"),
    )
    assert H.critical_sections == (CriticalSection(4 * MS, 5 * MS, "S"), CriticalSection(5 * MS, 6 * MS, "T"))
    assert all(t.blocked == () for t in (L, M, N, H, U))


@pytest.mark.parametrize("protocol", ["pcp", "ipcp", "npcs", "rcs"])
def test_gantt_draws_the_protocols(tmp_path: Path, protocol: str) -> None:
    path = tmp_path / "chart.svg"
    gantt.draw(protocols(protocol), path)
    text = path.read_text()
    ET.parse(path)
    legend = {
        "pcp": "blocked by the system ceiling (pcp)",
        "ipcp": "pN: ceiling from the lock on (ipcp, npcs)",
        "npcs": "pN: ceiling from the lock on (ipcp, npcs)",
        "rcs": "section aborted (rcs)",
    }[protocol]
    # The SVG draws its texts as paths (svg.fonttype "path"): the label is
    # in the figure's legend, which the chart's artists keep.
    fig = gantt.figure(extract(protocols(protocol)), "t")
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend in labels
    if protocol == "rcs":
        assert "lost work (rcs)" in labels
    assert text.startswith("<?xml")


def test_chrome_trace_of_the_protocols(tmp_path: Path) -> None:
    # pcp: the waits on the ceiling name it and its holder (H is tid 4, M 2).
    events = load_trace(tmp_path, protocols("pcp"))["traceEvents"]
    assert slices(events, 4, "blocked") == [("blocked on S by the ceiling", 4000.0, 2000.0)]
    assert slices(events, 2, "blocked") == [("blocked on T by the ceiling", 1000.0, 6000.0)]
    blocked = [e["args"] for e in events if e["ph"] == "X" and e["cat"] == "blocked" and e["tid"] == 4]
    assert blocked == [{"resource": "S", "timed_out": False, "ceiling": 4, "holder": "L"}]
    # ipcp: a boost to a ceiling is a priority instant with cause "ceiling".
    events = load_trace(tmp_path, protocols("ipcp"))["traceEvents"]
    assert instants(events, "priority 1->4") == [
        (1, 0.0, {"old": 1, "new": 4, "cause": "ceiling", "resource": "S"})
    ]
    # rcs: the aborts, and the aborted sections' slices (L, tid 1, ran [0,1)
    # inside S before H took it; M, tid 2, [1,2) inside T).
    events = load_trace(tmp_path, protocols("rcs"))["traceEvents"]
    assert instants(events, "abort S") == [(1, 4000.0, {"resource": "S", "by": "H"})]
    assert instants(events, "abort T") == [(2, 5000.0, {"resource": "T", "by": "H"})]
    assert slices(events, 1, "critical section") == [("S (aborted)", 0.0, 1000.0), ("S", 9000.0, 4000.0)]
    assert slices(events, 2, "critical section") == [("T (aborted)", 1000.0, 1000.0), ("T", 7000.0, 2000.0)]
    aborted = [e["args"] for e in events if e["ph"] == "X" and e["name"] == "S (aborted)"]
    assert aborted == [{"resource": "S", "aborted": True}]
    for tid in {e["tid"] for e in events if e["ph"] == "X"}:
        assert_nested([e for e in events if e["ph"] == "X" and e["tid"] == tid])

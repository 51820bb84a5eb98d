"""Round robin among equal priorities from a scenario file ([system] quantum):
examples/round_robin.toml on the host port (the report, the switches, the
chart), on QEMU (the same job table), and in the analysis."""

from __future__ import annotations

import json
from pathlib import Path

from priora.analysis import analysis_json, analysis_text, analyze
from priora.pictures import gantt
from priora.record import replace
from priora.report.build import build_report
from priora.report.json_document import report_json
from priora.report.text import report_text
from priora.run import blob, native, qemu_run
from priora.run.compiled import compile_scenario
from priora.run.simulate import SimResult, simulate
from priora.scenario.loader import load
from priora.trace.timeline import extract

ROOT = Path(__file__).resolve().parents[2]
ROUND_ROBIN = ROOT / "examples" / "round_robin.toml"
MS = 1_000_000  # ns per tick at 1000 Hz

# A (5), B (3), C (3), all at priority 1 and released at 0, quantum 2 ticks:
# A 0-2, B 2-4, C 4-6, A 6-8, B 8-9 (done), C 9-10 (done), A 10-11 (done).
ROTATION = [("A", 0, 2), ("B", 2, 4), ("C", 4, 6), ("A", 6, 8), ("B", 8, 9), ("C", 9, 10), ("A", 10, 11)]
JOBS = """\
Jobs
task  job  release (tick)  start (tick)  finish (tick)  response (tick)  deadline (tick)  missed  blocked (tick)  inverted (tick)  timeouts  errors
----  ---  --------------  ------------  -------------  ---------------  ---------------  ------  --------------  ---------------  --------  ------
A       1               0             0             11               11                -      no               0                0         0       0
B       1               0             2              9                9                -      no               0                0         0       0
C       1               0             4             10               10                -      no               0                0         0       0"""


def switches(result: SimResult) -> list[tuple[str, int]]:
    """(task switched in, tick) for every SWITCH record to a task."""
    names = [t.name for t in result.scenario.tasks]
    trace = result.trace[result.trace["event"] == native.EVENT["SWITCH"]]
    return [
        (names[task], round(time / MS))
        for task, time in zip(trace["task"].tolist(), trace["time"].tolist(), strict=True)
        if task != native.TRACE_NONE
    ]


def test_the_tasks_take_turns() -> None:
    result = simulate(load(ROUND_ROBIN))
    report = build_report(result)
    assert report_text(report).startswith(JOBS + "\n\n")
    assert "  quantum              2 tick (round robin among equal priorities)" in report_text(report)
    assert json.loads(report_json(report))["system"]["quantum"] == 2
    assert switches(result) == [(task, start) for task, start, _ in ROTATION]
    runs = sorted((e.start // MS, e.end // MS, t.name) for t in extract(result).tasks for e in t.executions)
    assert runs == sorted((start, end, task) for task, start, end in ROTATION)


def test_without_a_quantum_the_first_runs_to_its_end() -> None:
    scenario = load(ROUND_ROBIN)
    plain = replace(scenario, system=replace(scenario.system, quantum=0))
    assert switches(simulate(plain)) == [("A", 0), ("B", 5), ("C", 8)]


def test_the_chart_shows_the_turns() -> None:
    fig = gantt.figure(extract(simulate(load(ROUND_ROBIN))), "round robin")
    ax = fig.axes[0]
    rows = {"A": 2.0, "B": 1.0, "C": 0.0}  # equal priorities: file order, the first at the top
    bars = set()
    for collection in ax.collections:
        faces = collection.get_facecolor()  # none: the lines (releases, deadlines)
        if not len(faces) or tuple(faces[0][:3]) != (0x4C / 255, 0x72 / 255, 0xB0 / 255):  # EXEC_COLOUR
            continue
        for path in collection.get_paths():
            xs, ys = path.vertices[:, 0], path.vertices[:, 1]
            bars.add(
                (
                    round(float(xs.min()), 6),
                    round(float(xs.max()), 6),
                    round(float(ys.min() + ys.max()) / 2, 6),
                )
            )
    assert bars == {(float(start), float(end), rows[task]) for task, start, end in ROTATION}


def test_the_blob_carries_the_quantum() -> None:
    # Header offset 32, a u64 inside the checksum: the runner gives it to the
    # kernel (pr_kernel_config_t.quantum). Every version has had the field.
    scenario = load(ROUND_ROBIN)
    data = blob.encode(compile_scenario(scenario), scenario.horizon_ticks())
    assert (data[4:6], data[32:40]) == (blob.VERSION.to_bytes(2, "little"), (2).to_bytes(8, "little"))
    assert blob.decode(data)[0].quantum == 2


def test_the_same_job_table_on_qemu() -> None:
    # The emulated clock puts every time a few us after the host's (kernel
    # costs); to the tick, the table and the turns are the host's.
    result = qemu_run.run(load(ROUND_ROBIN), "qemu-rv32").result
    host = build_report(simulate(load(ROUND_ROBIN)))
    qemu = build_report(result)
    assert [(j.task, j.job, j.release, round(j.start), round(j.finish), j.errors) for j in qemu.jobs] == [
        (j.task, j.job, j.release, j.start, j.finish, j.errors) for j in host.jobs
    ]
    assert switches(result) == [(task, start) for task, start, _ in ROTATION]
    assert qemu.system.quantum == 2


def test_the_analysis_counts_equal_priorities_whole() -> None:
    # Each task counts the other two whole: R = 5 + 3 + 3 = 11 for all three,
    # at or above what the kernel gave (11, 9, 10).
    result = analyze(load(ROUND_ROBIN), ["pip"])
    assert {name: r.response for name, r in result.protocols["pip"].tasks.items()} == {
        "A": 11,
        "B": 11,
        "C": 11,
    }
    assert analysis_text(result).splitlines()[1] == (
        "  round robin among equal priorities, quantum 2 tick: "
        "each task counts the others of its priority as interference"
    )
    assert json.loads(analysis_json(result))["quantum"] == 2

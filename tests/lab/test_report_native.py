"""The report's parts computed in C: the jobs of report_json
(lab/native/jobs_json.c), the same document, byte for byte, as the Python
formatting of the same rows; the task rows (lab/native/task_totals.c), the
same values as numpy's per-task reductions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from priora.generate import generate, parse_params
from priora.record import replace
from priora.report.build import JobRows, Report, TaskRow, _time, build_report
from priora.report.json_document import report_dict, report_json
from priora.run import native
from priora.run.simulate import simulate
from priora.scenario.loader import load, parse
from priora.scenario.model import PROTOCOLS, Action, Resource, Scenario, System, Task

ROOT = Path(__file__).resolve().parents[2]


def in_python(report: Report) -> Report:
    """The same report with rows made in Python (no C rows): report_json
    formats them in Python."""
    rows = JobRows.from_rows(list(report.jobs))
    assert rows.source is None
    return replace(report, jobs=rows)


def compute(ticks: int) -> Action:
    return Action("compute", ticks=ticks)


# W never finishes (blocked on C to the end), Ü has a deadline it misses and
# a non-ASCII name, X has no deadline and starts late.
EDGES = Scenario(
    "edges",
    System(1000, "ms", 30, "pip"),
    (
        Resource("C", "counting", "none", 0, None, "priority"),
        Resource("M", "mutex", "pip", 1, None, "priority"),
    ),
    (
        Task("W", 3, None, 0, None, (compute(1), Action("down", "C"), compute(1))),
        Task("Ü", 2, 10, 0, 3, (Action("lock", "M"), compute(4), Action("unlock", "M"))),
        Task("X", 1, 15, 2, None, (Action("lock", "M"), compute(2), Action("unlock", "M"))),
    ),
)


@pytest.mark.parametrize(
    "name",
    ["edges", "inversion", "protocols", "rcs/recovery", "queue_prodcons", "timer_release", "round_robin"],
)
def test_the_c_jobs_are_the_python_jobs(name: str) -> None:
    scenario = EDGES if name == "edges" else load(ROOT / "examples" / f"{name}.toml")
    report = build_report(simulate(scenario))
    assert report.jobs.source is not None and len(report.jobs) > 0
    document = report_json(report)
    assert document == report_json(in_python(report))
    assert json.loads(document) == report_dict(report)
    provenance = {"command": "priora simulate \u00e9\u0000"}
    assert report_json(report, provenance) == report_json(in_python(report), provenance)
    assert report_json(report, summary=True) == report_json(in_python(report), summary=True)


def test_the_edges_reach_every_kind_of_value() -> None:
    jobs = report_dict(build_report(simulate(EDGES)))["jobs"]
    assert {j["task"] for j in jobs} == {"W", "Ü", "X"}
    assert any(j["finish"] is None for j in jobs) and any(j["deadline"] is None for j in jobs)
    assert any(j["missed"] for j in jobs) and not all(j["missed"] for j in jobs)
    assert any(j["blocked"] > 0 for j in jobs)


def test_times_that_are_not_whole_are_written_by_python() -> None:
    # At 512 Hz a tick is 1.953125 ms: the times are floats, and the document
    # is Python's (repr of each float).
    scenario = replace(EDGES, system=System(512, "ms", 30, "pip"))
    report = build_report(simulate(scenario))
    document = report_json(report)
    assert document == report_json(in_python(report))
    assert '"release": 1.953125' in document or '"release": 19.53125' in document


def numpy_task_rows(result: Any) -> dict[str, TaskRow]:
    """The task rows as numpy reductions over each task's rows, in release
    order (the report's way before lab/native/task_totals.c)."""
    scenario, jobs = result.scenario, result.jobs
    rows = {}
    for i, t in enumerate(scenario.tasks):
        mine = jobs[jobs["task"] == i]
        finished = mine["finish"] != native.NEVER
        responses = (mine["finish"][finished] - mine["release"][finished]).astype(np.float64)
        some = len(responses) > 0
        script = result.scripts[i]
        rows[t.name] = TaskRow(
            jobs=len(mine),
            max_response=_time(scenario, float(responses.max())) if some else None,
            mean_response=_time(scenario, float(responses.mean())) if some else None,
            max_blocked=_time(scenario, int(mine["blocked"].max(initial=0))),
            max_inverted=_time(scenario, int(mine["inverted"].max(initial=0))),
            misses=int(np.count_nonzero(mine["missed"] == 1)),
            timeouts=int(mine["timeouts"].sum()),
            errors=int(mine["errors"].sum()),
            aborts=script.aborts,
            lost=_time(scenario, script.lost_ns),
            recovery=_time(scenario, int(mine["recovery"].sum())),
        )
    return rows


OVERLOADED = {
    "tasks": 7, "utilisation": 1.1, "mutexes": 3, "sections_per_job": [1, 3], "section_length": [0.1, 0.4],
    "nesting_depth": 2, "deadlines": "constrained", "priorities": "dm", "phases": "random",
}  # fmt: skip


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_c_task_rows_are_numpy_s(protocol: str) -> None:
    seen_unfinished = 0
    for draw in (1, 2):
        ts = generate(parse_params("g.toml", OVERLOADED), draw)
        for tick_hz in (1000, 512):  # means that are whole, and not
            scenario = parse(ts.toml(), "g", check_default_horizon=False).with_protocol(protocol)
            scenario = replace(scenario, system=replace(scenario.system, tick_hz=tick_hz)).with_horizon(3000)
            result = simulate(scenario)
            assert build_report(result).tasks == numpy_task_rows(result)
            seen_unfinished += int(np.count_nonzero(result.jobs["finish"] == native.NEVER))
    for name in ("edges", "rcs/recovery", "timer_release"):
        scenario = EDGES if name == "edges" else load(ROOT / "examples" / f"{name}.toml")
        result = simulate(scenario.with_protocol(protocol) if name == "edges" else scenario)
        assert build_report(result).tasks == numpy_task_rows(result)
    assert seen_unfinished > 0

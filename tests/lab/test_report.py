"""build_report, report_json and report_text on small scenarios built with
the model classes (no file loader involved), every value worked out by hand
from the kernel's schedule in the comments."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import numpy as np
import pytest

from priora.record import replace
from priora.report import build as report_module
from priora.report.build import (
    JobRow,
    JobRows,
    Report,
    ResourceRow,
    SystemRow,
    TaskRow,
    build_report,
    nominal_utilisation,
)
from priora.report.json_document import report_dict, report_json, schema
from priora.report.text import report_text
from priora.run import native
from priora.run.simulate import simulate
from priora.scenario.model import NS_PER_SECOND, UNITS_PER_SECOND, Action, Resource, Scenario, System, Task

# ---------------------------------------------------------------- scenarios


def compute(ticks: int) -> Action:
    return Action("compute", ticks=ticks)


def inversion(protocol: str, tick_hz: int = 1000, unit: str = "ms") -> Scenario:
    """The classic inversion (tests/kernel/test_inversion.c): L (1) locks S for
    4 ticks from 0; H (3) released at 1 computes 1 then wants S; M (2)
    released at 2 computes 5."""
    s = Resource("S", "mutex", protocol, 1, None, "priority")  # type: ignore[arg-type]
    lock, unlock = Action("lock", "S"), Action("unlock", "S")
    tasks = (
        Task("L", 1, None, 0, None, (lock, compute(4), unlock, compute(1))),
        Task("H", 3, None, 1, None, (compute(1), lock, compute(1), unlock, compute(1))),
        Task("M", 2, None, 2, None, (compute(5),)),
    )
    system = System(tick_hz, unit, None, protocol)  # type: ignore[arg-type]
    return Scenario("inversion.toml", system, (s,), tasks)


def periodic() -> Scenario:
    """Periodic tasks, a deadline miss, a semaphore timeout, an unfinished
    job, a task never released, one resource of each kind.

    A (2) period 5: compute 2.
    B (1) period 10, deadline 4: down C (counting, 0 units) with timeout 2, compute 3.
    U (0) period 20, phase 3: compute 5.
    Z (3) one job at 50, after the horizon (10).
    """
    resources = (
        Resource("C", "counting", "none", 0, None, "priority"),
        Resource("E", "binary", "none", 1, 1, "fifo"),
        Resource("R", "mutex", "pip", 1, None, "priority"),
    )
    tasks = (
        Task("A", 2, 5, 0, None, (compute(2),)),
        Task("B", 1, 10, 0, 4, (Action("down", "C", timeout=2), compute(3))),
        Task("U", 0, 20, 3, None, (compute(5),)),
        Task("Z", 3, None, 50, None, (compute(1),)),
    )
    return Scenario("periodic.toml", System(1000, "ms", 10, "pip"), resources, tasks)


def deadlock() -> Scenario:
    """Two tasks locking two mutexes in opposite orders, under pip.

    L (1) at 0: lock A, compute 2, lock B, compute 1, unlock B, unlock A.
    H (2) at 1: lock B, compute 2, lock A, compute 1, unlock A, unlock B.
    """
    a, b = (Resource(name, "mutex", "pip", 1, None, "priority") for name in "AB")
    lock_a, lock_b = Action("lock", "A"), Action("lock", "B")
    unlock_a, unlock_b = Action("unlock", "A"), Action("unlock", "B")
    tasks = (
        Task("L", 1, None, 0, None, (lock_a, compute(2), lock_b, compute(1), unlock_b, unlock_a)),
        Task("H", 2, None, 1, None, (lock_b, compute(2), lock_a, compute(1), unlock_a, unlock_b)),
    )
    return Scenario("deadlock.toml", System(1000, "ms", None, "pip"), (a, b), tasks)


def job(
    task: str,
    n: int,
    release: float,
    start: float | None,
    finish: float | None,
    **kw: Any,
) -> JobRow:
    """A JobRow with zero blocking/inversion/timeouts/errors, no miss and no deadline unless given."""
    response = None if finish is None else finish - release
    fields: dict[str, Any] = {
        "timeouts": 0,
        "errors": 0,
        "blocked": 0,
        "inverted": 0,
        "missed": False,
        "deadline": None,
    } | kw
    return JobRow(task, n, release, start, finish, response, **fields)


# ---------------------------------------------------------------- the inversion


def test_inversion_without_inheritance() -> None:
    # L locks S at 0; H preempts at 1, computes 1..2 and blocks on S at 2; M
    # (released at 2) runs 2..7; L finishes its section 7..10 and hands S to
    # H, which runs 10..12; L's last tick 12..13.
    # H: blocked 2..10 = 8; inverted = M 2..7 + L 7..10 = 8; response 12-1 = 11.
    # M: never delayed by a lower task (released at 2, runs at once): 0.
    # S: held by L 0..10 (10), by H 10..11 (1): longest 10.
    report = build_report(simulate(inversion("none")))
    assert report.jobs == (
        job("L", 1, 0, 0, 13),
        job("H", 1, 1, 1, 12, blocked=8, inverted=8),
        job("M", 1, 2, 2, 7),
    )
    assert report.tasks == {
        "L": TaskRow(1, 13, 13, 0, 0, 0, 0, 0),
        "H": TaskRow(1, 11, 11, 8, 8, 0, 0, 0),
        "M": TaskRow(1, 5, 5, 0, 0, 0, 0, 0),
    }
    assert report.resources == {"S": ResourceRow("mutex", "none", 2, 2, 1, 10)}
    # Switches: L<-idle 0, H<-L 1, L<-H 2, M<-L 2, L<-M 7, H<-L 10, L<-H 12,
    # idle<-L 13 = 8. No priority ever changes. Always busy 0..13.
    assert report.system == SystemRow(
        utilisation=1.0,
        nominal_utilisation=None,
        context_switches=8,
        priority_changes=0,
        horizon=13,
        stopped="quiescent",
        time_unit="ms",
        tick_hz=1000,
        protocol="none",
        jobs=3,
        misses=0,
    )


def test_inversion_with_inheritance() -> None:
    # H blocks on S at 2 and L inherits 3: L finishes its section 2..5, M
    # cannot preempt. At 5 S goes to H: H 5..7, then M 7..12, L 12..13.
    # H: blocked 2..5 = 3, inverted = L 2..5 = 3, response 7-1 = 6.
    # M: released at 2, L (base 1) runs 2..5 before it: inverted 3; starts 7.
    # S: held by L 0..5, by H 5..6: longest 5.
    report = build_report(simulate(inversion("pip")))
    assert report.jobs == (
        job("L", 1, 0, 0, 13),
        job("H", 1, 1, 1, 7, blocked=3, inverted=3),
        job("M", 1, 2, 7, 12, inverted=3),
    )
    assert report.tasks["H"] == TaskRow(1, 6, 6, 3, 3, 0, 0, 0)
    assert report.tasks["M"] == TaskRow(1, 10, 10, 0, 3, 0, 0, 0)
    assert report.resources == {"S": ResourceRow("mutex", "pip", 2, 2, 1, 5)}
    # Switches: L<-idle 0, H<-L 1, L<-H 2, H<-L 5, M<-H 7, L<-M 12, idle<-L 13
    # = 7. Priority changes: L 1->3 at 2, 3->1 at 5.
    assert (report.system.context_switches, report.system.priority_changes) == (7, 2)
    assert report.system.protocol == "pip"


def test_protocol_override_is_reported() -> None:
    report = build_report(simulate(inversion("pip").with_protocol("none")))
    assert report.system.protocol == "none"
    assert report.resources["S"].protocol == "none"
    assert report.tasks["H"].max_response == 11


@pytest.mark.parametrize(
    ("tick_hz", "unit", "h_response", "hold"),
    [
        (1000, "tick", 11, 10),  # ticks are the unit
        (1000, "us", 11_000, 10_000),  # 1 tick = 1000 us
        (100, "ms", 110, 100),  # 1 tick = 10 ms
        # 512 Hz (tick_hz must divide 1e9): a tick is 1953125 ns =
        # 1.953125 ms, so 11 ticks = 21.484375 ms and 10 ticks = 19.53125 ms.
        (512, "ms", 21.484375, 19.53125),
        (512, "us", 21484.375, 19531.25),
    ],
)
def test_times_in_the_file_unit(tick_hz: int, unit: str, h_response: float, hold: float) -> None:
    report = build_report(simulate(inversion("none", tick_hz, unit)))
    assert report.tasks["H"].max_response == h_response
    assert report.resources["S"].longest_hold == hold
    assert report.system.time_unit == unit


def test_integral_times_are_ints() -> None:
    h = build_report(simulate(inversion("none", 1000, "us"))).jobs[1]
    assert (h.release, h.finish, h.response, h.blocked) == (1000, 12000, 11000, 8000)
    assert all(type(v) is int for v in (h.release, h.finish, h.response, h.blocked))
    h = build_report(simulate(inversion("none", 512, "ms"))).jobs[1]
    assert (h.release, h.finish, h.blocked) == (1.953125, 23.4375, 15.625)
    assert type(h.release) is float and type(h.start) is float


def test_mean_is_rounded_to_6_decimals() -> None:
    # In ticks. H (2) period 9: compute 2. L (1) period 3: compute 1.
    # L1 released 0 waits for H (0..2), runs 2..3: response 3; L2 3..4: 1;
    # L3 6..7: 1. Mean 5/3 = 1.666667. Horizon 9 (the hyperperiod). H is
    # more urgent, so L is never inverted.
    # Busy 2 + 3 = 5 of 9 = 0.555556; nominal 2/9 + 1/3 = 5/9 = 0.555556.
    tasks = (
        Task("H", 2, 9, 0, None, (compute(2),)),
        Task("L", 1, 3, 0, None, (compute(1),)),
    )
    scenario = Scenario("rm.toml", System(1000, "tick", None, "pip"), (), tasks)
    report = build_report(simulate(scenario))
    assert report.tasks["L"] == TaskRow(3, 3, 1.666667, 0, 0, 0, 0, 0)
    assert report.tasks["H"] == TaskRow(1, 2, 2, 0, 0, 0, 0, 0)
    assert (report.system.utilisation, report.system.nominal_utilisation) == (
        0.555556,
        0.555556,
    )
    assert (report.system.horizon, report.system.stopped) == (9, "horizon")


# ---------------------------------------------------------------- periodic


def test_periodic_to_the_horizon() -> None:
    # 0..2   A1 (2 ticks). B1 runs at 2 and blocks on C with timeout 2: the
    #        instant belongs to tick 2 (its interrupt comes after), so the wait
    #        ends at tick 4, two whole ticks.
    # 2..3   idle.
    # 3..4   U1 released at 3 and runs (B1 still waits): B1 inverted 1.
    # 4      B1's deadline (0 + 4): missed (its deadline timer was armed first);
    #        then its down times out (1 timeout, blocked 2..4); B1 runs 4..5.
    # 5..7   A2 preempts (released at 5). 7..9 B1's last 2 ticks: finish 9.
    # 9..10  U1 (2 of its 5 ticks): unfinished at the horizon 10, deadline 23.
    # Z is released at 50: no job. The releases at 10 are not in the run.
    report = build_report(simulate(periodic()))
    assert report.jobs == (
        job("A", 1, 0, 0, 2, deadline=5),
        job("B", 1, 0, 2, 9, deadline=4, missed=True, blocked=2, inverted=1, timeouts=1),
        job("U", 1, 3, 3, None, deadline=23),
        job("A", 2, 5, 5, 7, deadline=10),
    )
    assert report.tasks == {
        "A": TaskRow(2, 2, 2, 0, 0, 0, 0, 0),
        "B": TaskRow(1, 9, 9, 2, 1, 1, 1, 0),
        "U": TaskRow(1, None, None, 0, 0, 0, 0, 0),
        "Z": TaskRow(0, None, None, 0, 0, 0, 0, 0),
    }
    # C: B's one down (it timed out) with B waiting; E unused; R never taken.
    assert report.resources == {
        "C": ResourceRow("counting", None, 1, 0, 1, None),
        "E": ResourceRow("binary", None, 0, 0, 0, None),
        "R": ResourceRow("mutex", "pip", 0, 0, 0, 0),
    }
    # Busy: A 2 + U 1 + B 1 + A 2 + B 2 + U 1 = 9 of 10. Nominal: 2/5 + 3/10 + 5/20 = 0.95.
    # Switches at 0, 2 (B), 2 (idle), 3 (U), 4 (B), 5 (A), 7 (B), 9 (U) = 8.
    assert report.system == SystemRow(
        utilisation=0.9,
        nominal_utilisation=0.95,
        context_switches=8,
        priority_changes=0,
        horizon=10,
        stopped="horizon",
        time_unit="ms",
        tick_hz=1000,
        protocol="pip",
        jobs=4,
        misses=1,
    )


def test_unstarted_and_open_jobs() -> None:
    # Same schedule cut at 6: B1 unfinished but its deadline 4 has passed
    # (missed); U1 released at 3 ran 3..4 and is unfinished; A2 (5..)
    # unfinished with its deadline 10 after the end (not missed).
    report = build_report(simulate(periodic().with_horizon(6)))
    assert report.jobs == (
        job("A", 1, 0, 0, 2, deadline=5),
        job("B", 1, 0, 2, None, deadline=4, missed=True, blocked=2, inverted=1, timeouts=1),
        job("U", 1, 3, 3, None, deadline=23),
        job("A", 2, 5, 5, None, deadline=10),
    )
    assert report.tasks["B"] == TaskRow(1, None, None, 2, 1, 1, 1, 0)
    # Busy: A 0..2, U 3..4, B 4..5, A 5..6 = 5 of 6.
    assert report.system.utilisation == round(5 / 6, 6) == 0.833333
    assert (report.system.horizon, report.system.misses) == (6, 1)


def test_a_refused_lock_is_an_error_of_the_job() -> None:
    # 0     L takes A at once, computes 0..1.
    # 1     H preempts, takes B at once, computes 1..3.
    # 3     H locks A, held by L: H blocks, L inherits 2 and computes its
    #       second tick 3..4.
    # 4     L locks B, held by H, which waits for A, held by L: the wait would
    #       close a cycle, so the kernel refuses it (PR_EDEADLK): 1 error for
    #       L's job. L skips its section on B (compute 1, unlock B) and
    #       unlocks A, which goes to H; L is back to 1. That unlock is L's
    #       last action: L's job ends at 4, as the unlock completes (the
    #       interpreter runs it under the scheduler lock, semantics.md, "Job
    #       completion"), and H runs only then. H computes 4..5, unlocks A
    #       and B and ends at 5.
    # L: response 4 - 0 = 4 (it no longer waits for H's end at 5).
    # H: response 5 - 1 = 4, blocked 3..4, inverted 3..4 (L ran).
    # A: downs L, H; ups L (hand-over), H; one waiter (H); held by L 0..4.
    # B: downs H, L (refused, counted: api.md); up H; held by H 1..5.
    report = build_report(simulate(deadlock()))
    assert report.jobs == (
        job("L", 1, 0, 0, 4, errors=1),
        job("H", 1, 1, 1, 5, blocked=1, inverted=1),
    )
    assert report.tasks == {
        "L": TaskRow(1, 4, 4, 0, 0, 0, 0, 1),
        "H": TaskRow(1, 4, 4, 1, 1, 0, 0, 0),
    }
    assert report.resources == {
        "A": ResourceRow("mutex", "pip", 2, 2, 1, 4),
        "B": ResourceRow("mutex", "pip", 2, 1, 0, 4),
    }
    document = json.loads(report_json(report))
    jsonschema.validate(document, schema(), cls=jsonschema.Draft202012Validator)
    assert (document["jobs"][0]["errors"], document["tasks"]["L"]["errors"]) == (1, 1)
    assert (document["jobs"][1]["errors"], document["tasks"]["H"]["errors"]) == (0, 0)
    text = report_text(report)
    assert rows_of(text, "Jobs")[0] == ["L", "1", "0", "0", "4", "4", "-", "no", "0", "0", "0", "1"]
    assert rows_of(text, "Tasks")[0] == ["L", "1", "4", "4", "0", "0", "0", "0", "1"]
    assert text.splitlines()[1].split()[-2:] == ["timeouts", "errors"]


def test_nominal_utilisation_counts_compute_only() -> None:
    body = (
        compute(1),
        Action("lock", "S"),
        compute(2),
        Action("unlock", "S"),
        Action("delay", ticks=5),
    )
    tasks = (Task("P", 1, 3, 0, None, body), Task("Q", 2, None, 0, None, (compute(7),)))
    assert nominal_utilisation(tasks) == 1.0  # 3/3; delay and the one-shot Q do not count
    assert nominal_utilisation(tasks[1:]) is None
    assert nominal_utilisation((replace(tasks[0], period=7),)) == 0.428571  # 3/7


# ---------------------------------------------------------------- columns


def test_the_jobs_are_kept_in_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    # build_report, report_json, report_text and report_dict work on the job
    # columns: one Python object per job would cost more than the simulation
    # (docs/performance.md). A JobRow is built only when one is asked for.
    result = simulate(periodic())
    expected = build_report(result)
    json_text, text = report_json(expected), report_text(expected)

    def no_row(*args: Any) -> JobRow:
        raise AssertionError("a JobRow was built")

    monkeypatch.setattr(report_module, "JobRow", no_row)
    report = build_report(result)
    assert (report_json(report), report_text(report)) == (json_text, text)
    assert report_dict(report)["jobs"][1]["missed"] is True
    monkeypatch.undo()
    assert isinstance(report.jobs, JobRows) and len(report.jobs) == 4
    assert report.jobs[1] == job("B", 1, 0, 2, 9, deadline=4, missed=True, blocked=2, inverted=1, timeouts=1)
    assert report.jobs[-1] == report.jobs[3] and report.jobs[1:3] == tuple(report.jobs)[1:3]
    assert report.jobs.column("task") == ["A", "B", "U", "A"]
    assert report.jobs == expected.jobs == JobRows.from_rows(list(report.jobs))
    assert report.jobs != tuple(report.jobs)[:3]
    with pytest.raises(IndexError):
        report.jobs[4]


@pytest.mark.parametrize(
    ("tick_hz", "unit"),
    [(1000, "ms"), (1000, "us"), (1000, "tick"), (100, "ms"), (512, "tick"), (1_000_000, "us"), (1, "ms")],
)
def test_whole_unit_columns_are_the_float_conversion(
    monkeypatch: pytest.MonkeyPatch, tick_hz: int, unit: str
) -> None:
    # Times that are a whole number of the unit are converted in integers
    # (no float, no object array): the very same values, of the same types,
    # as the float conversion, up to the largest time it keeps exact.
    scenario = inversion("none", tick_hz, unit)
    per_second = tick_hz if unit == "tick" else UNITS_PER_SECOND[unit]
    ns_per_unit = NS_PER_SECOND // per_second
    most = (2**53 // per_second - 1) // ns_per_unit  # the largest whole number of units it takes
    units = np.random.default_rng(tick_hz).integers(0, most, 2000, dtype=np.uint64)
    edges = np.array([0, most * ns_per_unit, native.NEVER], dtype=np.uint64)
    ns = np.concatenate([units * np.uint64(ns_per_unit), edges])
    expected = report_module._column_float(scenario, ns)

    def no_float(*args: Any) -> list[Any]:
        raise AssertionError("the float conversion was used")

    monkeypatch.setattr(report_module, "_column_float", no_float)
    rows = np.zeros(len(ns), dtype=native.JOB_DTYPE)  # C job rows, the times as their blocked field
    rows["blocked"] = ns
    converted = report_module._column(scenario, rows.tobytes(), "blocked")
    assert converted == expected
    assert [type(v) for v in converted] == [type(v) for v in expected]
    assert expected[-1] is None and type(expected[-2]) is int


def test_one_value_is_rounded_as_numpy_rounds_a_column() -> None:
    # `_number` (one value: a task's mean, a hold) rounds without numpy; it
    # must give np.round's float for every value, so that a time reads the
    # same in the tasks as in the jobs (`_column_float`). Ties at the sixth
    # decimal, values near 2^53 and tiny ones included.
    rng = np.random.default_rng(7)
    values = np.concatenate(
        [
            rng.random(20000) * 10.0 ** rng.integers(-8, 16, 20000),
            (np.arange(2000) + 0.5) / 1e6,  # halves of the last decimal kept
            np.array([0.0, 2.0**53, 2.0**53 - 1, 2.0**60, 1e-7, 5e-7, 1.5e-6, 2.5e-6, 10.999999999999998]),
        ]
    )
    numpy_rounded = np.round(values, report_module.DECIMALS).tolist()
    assert [report_module._round(float(v)) for v in values] == numpy_rounded


# ---------------------------------------------------------------- JSON


def both_inversion_reports() -> list[Report]:
    return [build_report(simulate(inversion(p))) for p in ("none", "pip")]


@pytest.mark.parametrize(
    "scenario",
    [inversion("none"), inversion("pip"), periodic(), periodic().with_horizon(6)],
)
def test_json_validates_against_the_schema(scenario: Scenario) -> None:
    document = json.loads(report_json(build_report(simulate(scenario))))
    jsonschema.Draft202012Validator.check_schema(schema())
    jsonschema.validate(document, schema(), cls=jsonschema.Draft202012Validator)


def test_json_shape_and_key_order() -> None:
    report = build_report(simulate(periodic()))
    document = json.loads(report_json(report))
    assert list(document) == ["jobs", "tasks", "resources", "system", "warnings"]
    assert list(document["jobs"][0]) == [
        "task", "job", "release", "start", "finish", "response",
        "timeouts", "errors", "blocked", "inverted", "missed", "deadline", "aborts", "lost",
    ]  # fmt: skip
    assert list(document["tasks"]) == ["A", "B", "U", "Z"]  # the file's order
    assert list(document["resources"]) == ["C", "E", "R"]
    assert document["jobs"][2] == {
        "task": "U", "job": 1, "release": 3, "start": 3, "finish": None, "response": None,
        "timeouts": 0, "errors": 0, "blocked": 0, "inverted": 0, "missed": False, "deadline": 23,
        "aborts": 0, "lost": 0,
    }  # fmt: skip
    assert document["tasks"]["Z"]["max_response"] is None
    assert document["resources"]["C"] == {
        "kind": "counting", "protocol": None, "downs": 1, "ups": 0, "most_waiters": 1, "longest_hold": None,
        "ceiling": None, "aborts": 0,
    }  # fmt: skip
    assert document["system"]["stopped"] == "horizon"
    assert (document["system"]["refused"], document["system"]["quantum"], document["warnings"]) == (0, 0, [])
    assert document == json.loads(json.dumps(report_dict(report)))
    assert report_json(report) == report_json(build_report(simulate(periodic())))  # deterministic


def test_json_layout_one_entry_per_line() -> None:
    lines = report_json(build_report(simulate(periodic()))).splitlines()
    assert lines[:2] == ["{", '  "jobs": [']
    assert lines[2] == (
        '    {"task": "A", "job": 1, "release": 0, "start": 0, "finish": 2, "response": 2, '
        '"timeouts": 0, "errors": 0, "blocked": 0, "inverted": 0, "missed": false, "deadline": 5, '
        '"aborts": 0, "lost": 0},'
    )
    assert lines[6:8] == ["  ],", '  "tasks": {']
    assert '    "utilisation": 0.9,' in lines
    assert lines[-8:] == [
        '    "misses": 1,',
        '    "aborts": 0,',
        '    "lost": 0,',
        '    "refused": 0,',
        '    "quantum": 0',
        "  },",
        '  "warnings": []',
        "}",
    ]


def test_schema_rejects_a_wrong_document() -> None:
    document = json.loads(report_json(build_report(simulate(inversion("pip")))))
    document["jobs"][0]["missed"] = 1  # a boolean, not the C row's integer
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema())
    del document["jobs"][0]["missed"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema())


# ---------------------------------------------------------------- text


def rows_of(text: str, title: str) -> list[list[str]]:
    """The data rows (split on blanks) of the table titled `title`."""
    lines = text.split("\n\n")
    block = next(b for b in lines if b.startswith(title + "\n")).splitlines()
    return [line.split() for line in block[3:]]  # title, header, rule


def test_text_tables() -> None:
    none, pip = (report_text(r) for r in both_inversion_reports())
    assert rows_of(none, "Jobs") == [
        # task job release start finish response deadline missed blocked inverted timeouts errors
        ["L", "1", "0", "0", "13", "13", "-", "no", "0", "0", "0", "0"],
        ["H", "1", "1", "1", "12", "11", "-", "no", "8", "8", "0", "0"],
        ["M", "1", "2", "2", "7", "5", "-", "no", "0", "0", "0", "0"],
    ]
    assert rows_of(pip, "Tasks") == [
        # task jobs max-response mean-response max-blocked max-inverted misses timeouts errors
        ["L", "1", "13", "13", "0", "0", "0", "0", "0"],
        ["H", "1", "6", "6", "3", "3", "0", "0", "0"],
        ["M", "1", "10", "10", "0", "3", "0", "0", "0"],
    ]
    assert rows_of(pip, "Resources") == [["S", "mutex", "pip", "2", "2", "1", "5"]]
    header = none.splitlines()[1]
    assert "release (ms)" in header and "inverted (ms)" in header
    assert "longest hold (ms)" in none and "max response (ms)" in none
    assert "  horizon              13 ms (stopped: quiescent)" in none
    assert "  priority changes     2" in pip


def test_text_columns_are_aligned() -> None:
    text = report_text(build_report(simulate(periodic())))
    for block, left in zip(text.split("\n\n")[:3], (1, 1, 3), strict=True):
        lines = block.splitlines()[1:]
        rule = lines[1]
        # each column ends where its rule ends (numbers right-aligned)
        ends = [i + 1 for i, c in enumerate(rule) if c == "-" and (i + 1 == len(rule) or rule[i + 1] == " ")]
        for line in lines[2:]:
            for end in ends[left:]:
                assert line[end - 1] != " ", (line, end)


def test_text_marks_missing_values() -> None:
    text = report_text(build_report(simulate(periodic())))
    assert rows_of(text, "Jobs")[1] == [
        "B",
        "1",
        "0",
        "2",
        "9",
        "9",
        "4",
        "yes",
        "2",
        "1",
        "1",
        "0",
    ]
    assert rows_of(text, "Jobs")[2] == [
        "U",
        "1",
        "3",
        "3",
        "-",
        "-",
        "23",
        "no",
        "0",
        "0",
        "0",
        "0",
    ]
    assert rows_of(text, "Resources")[0] == ["C", "counting", "-", "1", "0", "1", "-"]
    assert "  nominal utilisation  0.950000" in text


def test_text_with_no_resources() -> None:
    scenario = replace(
        periodic(),
        resources=(),
        tasks=(Task("A", 1, 5, 0, None, (compute(1),)),),
    )
    report = build_report(simulate(scenario))
    text = report_text(report)
    assert "Resources: none" in text
    assert '  "resources": {},' in report_json(report).splitlines()
    assert json.loads(report_json(report))["resources"] == {}
    assert rows_of(text, "Jobs") == [
        ["A", "1", "0", "0", "1", "1", "5", "no", "0", "0", "0", "0"],
        ["A", "2", "5", "5", "6", "1", "10", "no", "0", "0", "0", "0"],
    ]


# ---------------------------------------------------------------- the documented outputs


def test_the_documented_outputs_are_the_commands(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/report-schema.md: the JSON of examples/inversion.toml (run from the
    # source tree, as the page's command) and the text of examples/protocols.toml
    # under rcs, as the command prints them.
    import re
    from pathlib import Path

    from priora.cli.main import main

    root = Path(__file__).resolve().parents[2]
    docs = (root / "docs" / "report-schema.md").read_text()
    monkeypatch.chdir(root)
    assert main(["simulate", "examples/inversion.toml", "--json"]) == 0
    documented_json = re.search(r"```json\n(.*?)```", docs, re.DOTALL)
    assert documented_json is not None and capsys.readouterr().out == documented_json[1]
    assert main(["simulate", str(root / "examples" / "protocols.toml"), "--protocol", "rcs"]) == 0
    out = capsys.readouterr().out
    assert f"```\n{out}```" in docs
    assert "aborts  lost (ms)" in out and "  lost                 2 ms" in out

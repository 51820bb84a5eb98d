"""The time-sharing band in scenario files: validation messages, the
report's bands, and examples/timeshare.toml, the demonstration that
MINIX4RT's and HP-UX's papers describe: a real-time set meets every deadline
while CPU-bound time-sharing tasks share the rest by their nice values, and
the one interaction, through a mutex, is bounded by inheritance.

The kernel's rule (docs/semantics.md, "Two bands") is checked exactly in
tests/kernel/test_timeshare.c; here the lab's view of it.
"""

from __future__ import annotations

import json

import jsonschema
import numpy as np
import pytest
from test_examples import example

from priora.analysis import analyze
from priora.errors import ScenarioError
from priora.pictures import gantt
from priora.pictures.gantt_model import plan
from priora.report.build import build_report
from priora.report.json_document import report_json, schema
from priora.report.text import report_text
from priora.run import native, qemu_run
from priora.run.simulate import SimResult, simulate
from priora.scenario.loader import parse
from priora.trace.timeline import extract

HEAD = '[system]\ntick_hz = 1000\nhorizon = 100\n[tasks.R]\npriority = 9\nperiod = 10\nbody = ["compute 1"]\n'

BAD = [
    (
        HEAD + '[tasks.T]\nclass = "batch"\nbody = ["compute 1"]\n',
        'x.toml: [tasks.T] class: unknown class "batch" (expected "realtime" or "timeshare")',
    ),
    (
        HEAD + '[tasks.T]\nnice = 3\npriority = 9\nbody = ["compute 1"]\n',
        'x.toml: [tasks.T] nice: only a time-sharing task has a nice value (class = "timeshare")',
    ),
    (
        HEAD + '[tasks.T]\nclass = "timeshare"\nnice = 20\nbody = ["compute 1"]\n',
        "x.toml: [tasks.T] nice: must be in -20..19, got 20",
    ),
    (
        HEAD + '[tasks.T]\nclass = "timeshare"\npriority = 3\nbody = ["compute 1"]\n',
        "x.toml: [tasks.T] priority: a time-sharing task has no priority of its own: "
        "the kernel sets its level from its CPU usage and nice",
    ),
    (
        HEAD.replace("priority = 9", "priority = 7")
        + '[tasks.T]\nclass = "timeshare"\nbody = ["compute 1"]\n',
        "x.toml: [tasks.R] priority: 7 is in the time-sharing band (levels 0..7: [system] timeshare_levels = 8); "
        "a real-time priority is 8..255",
    ),
    (
        HEAD.replace("horizon = 100", "horizon = 100\ntimeshare_levels = 0")
        + '[tasks.T]\nclass = "timeshare"\nbody = ["compute 1"]\n',
        'x.toml: [tasks.T] class: "timeshare" needs a time-sharing band, and [system] timeshare_levels is 0',
    ),
    (
        HEAD.replace("horizon = 100", "horizon = 100\ntimeshare_levels = 256"),
        "x.toml: [system] timeshare_levels: must be in 0..255 (the kernel's levels below its highest), got 256",
    ),
    (
        HEAD.replace("horizon = 100", "horizon = 100\ntimeshare_quantum = 0"),
        "x.toml: [system] timeshare_quantum: must be > 0, got 0",
    ),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=range(len(BAD)))
def test_bad_files(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse(text, "x.toml")
    assert str(caught.value) == message


def test_the_band_in_the_model() -> None:
    s = example("timeshare")
    assert s.system.timeshare_levels == 8  # the default with time-sharing tasks
    assert (s.system.timeshare_quantum, s.system.timeshare_decay) == (10, 100)
    batch5 = next(t for t in s.tasks if t.name == "batch5")
    assert (batch5.timeshare, batch5.nice, batch5.priority) == (True, 5, 7)  # the top of the band
    control = next(t for t in s.tasks if t.name == "control")
    assert (control.timeshare, control.priority) == (False, 20)
    # Without time-sharing tasks there is no band, and a report reads as before.
    assert parse(HEAD, "x.toml").system.timeshare_levels == 0
    plain = report_text(build_report(simulate(parse(HEAD, "x.toml"))))
    assert "band" not in plain and "share" not in plain


@pytest.fixture(scope="module")
def run() -> SimResult:
    return simulate(example("timeshare"))


def test_the_real_time_set_meets_every_deadline(run: SimResult) -> None:
    report = build_report(run)
    assert {name: t.misses for name, t in report.tasks.items()} == {
        "control": 0, "sensor": 0, "logger": 0, "batch0": 0, "batch5": 0, "batch10": 0
    }  # fmt: skip
    assert (report.tasks["control"].jobs, report.tasks["sensor"].jobs) == (100, 40)
    # Its CPU time is its demand: 100 jobs of 5 ms, 40 of 6 ms, over 2000 ms.
    assert report.system.realtime_share == 0.37
    assert report.system.realtime_share + report.system.timeshare_share == pytest.approx(1.0)


# Each task's CPU time in ms over the 2000 ms run: the real-time tasks' is
# their demand; the time-sharing tasks share the 1260 ms left, every one of
# them, the smaller the nice value the more (the decay-usage rule's figures,
# tick for tick).
CPU_MS = {"control": 500, "sensor": 240, "logger": 168, "batch0": 602, "batch5": 360, "batch10": 130}


def test_nice_values_order_the_time_sharing_shares(run: SimResult) -> None:
    tasks = build_report(run).tasks
    assert {name: t.cpu for name, t in tasks.items()} == CPU_MS
    assert {name: t.cpu_share for name, t in tasks.items()} == {n: ms / 2000 for n, ms in CPU_MS.items()}
    assert sum(CPU_MS.values()) == 2000  # no idle tick: the time-sharing band takes all the rest
    assert [tasks[name].band for name in tasks] == ["realtime"] * 2 + ["timeshare"] * 4


def test_the_shared_mutex_is_bounded_by_inheritance(run: SimResult) -> None:
    report = build_report(run)
    # control waits for log once, in its job 30 (released at 580 ms): 1 ms,
    # the rest of logger's 2 ms section, and no other job of it waits.
    blocked = run.jobs[run.jobs["blocked"] > 0]
    assert [(int(j["task"]), int(j["job"]), int(j["release"]), int(j["blocked"])) for j in blocked] == [
        (0, 30, 580 * 10**6, 10**6)
    ]  # fmt: skip
    assert report.tasks["control"].max_blocked == 1
    # Each wait lifts logger into the real-time band, to control's 20, and
    # drops it again when it unlocks: PRIO records logger ->20 (inherit),
    # then 20-> (release), as many of each.
    prio = run.trace[run.trace["event"] == native.EVENT["PRIO"]]
    logger = [t.name for t in run.scenario.tasks].index("logger")
    mine = prio[prio["task"] == logger]
    causes = [native.CAUSE_NAME[v & 0xFF] for v in mine["value"].tolist()]
    lifted = [(a, b) for a, b, c in zip(mine["arg0"].tolist(), mine["arg1"].tolist(), causes, strict=True)
              if c == "inherit"]  # fmt: skip
    dropped = [(a, b) for a, b, c in zip(mine["arg0"].tolist(), mine["arg1"].tolist(), causes, strict=True)
               if c == "release"]  # fmt: skip
    assert lifted and all(new == 20 and old < 8 for old, new in lifted)
    assert len(dropped) == len(lifted) and all(old == 20 and new < 8 for old, new in dropped)


def test_the_time_sharing_world_delays_real_time_only_through_the_mutex(run: SimResult) -> None:
    # The real-time tasks alone (every time-sharing task gone): each job's
    # response with the busy time-sharing world is its response alone plus
    # the time it was blocked on log, and nothing else.
    with open(run.scenario.source, encoding="utf-8") as f:
        alone = (
            f.read()
            .split("[tasks.logger]")[0]
            .replace('"lock log", "compute 1", "unlock log"', '"compute 1"')
        )
    quiet = simulate(parse(alone, "alone.toml"))
    for task in (0, 1):  # control, sensor
        busy_jobs = run.jobs[run.jobs["task"] == task]
        quiet_jobs = quiet.jobs[quiet.jobs["task"] == task]
        busy_responses = (busy_jobs["finish"] - busy_jobs["release"] - busy_jobs["blocked"]).tolist()
        assert busy_responses == (quiet_jobs["finish"] - quiet_jobs["release"]).tolist()
    assert build_report(quiet).tasks["control"].max_response == 5


def test_the_json_report_has_the_bands(run: SimResult) -> None:
    document = json.loads(report_json(build_report(run)))
    jsonschema.validate(document, schema())
    assert document["tasks"]["batch10"]["band"] == "timeshare"
    assert document["system"]["timeshare_share"] == pytest.approx(1 - 0.37)


def test_the_analysis_bounds_real_time_and_not_time_sharing(run: SimResult) -> None:
    analysis = analyze(example("timeshare"), protocols=("pip",)).protocols["pip"]
    control = analysis.tasks["control"]
    # B = logger's 2 ms section on log (a time-sharing task's section counts);
    # R = 5 + 2 = 7 ms, above the 6 ms the kernel gave.
    assert (control.blocking, control.response, control.meets_deadline) == (2, 7, True)
    assert [(term.task, term.mutex, term.ticks) for term in control.blocked_by] == [("logger", "log", 2)]
    assert build_report(run).tasks["control"].max_response == 6
    for name in ("logger", "batch0", "batch5", "batch10"):
        result = analysis.tasks[name]
        assert (result.response, result.unbounded) == (None, True)
        assert (
            result.reason
            == "a time-sharing task: its level moves with its CPU usage, so no response time is bounded"
        )
    assert analysis.tests["response_time"].passes is True  # every task with a deadline meets it


@pytest.mark.parametrize("target", ["qemu-rv32", "qemu-rv64"])
def test_the_same_on_qemu(target: str) -> None:
    # The kernel on QEMU, with its real costs: the same verdicts. (The event
    # sequence is the host's: tests/lab/test_qemu_run.py compares every example.)
    result = qemu_run.run(example("timeshare"), target).result
    report = build_report(result)
    assert sum(t.misses for t in report.tasks.values()) == 0
    assert (report.tasks["control"].jobs, report.tasks["sensor"].jobs) == (100, 40)
    # The times carry the kernel's own costs on QEMU (instructions, under 0.1%
    # of the run): each task's CPU time is the host's within 1 ms of 2000.
    cpu = {name: t.cpu for name, t in report.tasks.items()}
    assert all(abs(cpu[name] - ms) < 1 for name, ms in CPU_MS.items()), cpu
    # The same one wait, control's job 30, for the rest of logger's section
    # plus the kernel's costs on the way (about 80 us).
    blocked = result.jobs[result.jobs["blocked"] > 0]
    assert [(int(j["task"]), int(j["job"])) for j in blocked] == [(0, 30)]
    assert 1 < report.tasks["control"].max_blocked < 1.1


def test_the_chart_draws_the_two_bands_apart(run: SimResult) -> None:
    drawn = plan(extract(run), axis_pixels=1000, dpi=100)
    # Real-time rows on top, the time-sharing rows below, labelled with their band and nice value.
    assert [(r.label(), r.y) for r in drawn.rows] == [
        ("control  (p20)", 5), ("sensor  (p18)", 4), ("logger  (ts, nice 0)", 3), ("batch0  (ts, nice 0)", 2),
        ("batch5  (ts, nice 5)", 1), ("batch10  (ts, nice 10)", 0),
    ]  # fmt: skip
    assert ("band", "", "") in drawn.elements
    assert gantt._band_line(drawn) == 3.5  # between sensor's row and logger's
    fig = gantt.figure(extract(run))
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels[0] == "real time above, time sharing below (ts: the kernel's decay-usage level)"
    # Without time-sharing tasks: no line, no entry.
    plain = simulate(parse(HEAD, "x.toml"))
    assert ("band", "", "") not in plan(extract(plain), axis_pixels=1000, dpi=100).elements


BAND = '[system]\nhorizon = 30\ntimeshare_quantum = 100\n[resources.M]\nkind = "mutex"\n'
BAD_BAND = [
    (
        BAND + '[tasks.T]\nclass = "timeshare"\ngroup = 9\nbody = ["compute 1"]\n',
        "x.toml: [tasks.T] group: must be in 1..8 (1: the system group, every privilege), got 9",
    ),
    (
        BAND + '[groups.1]\nprivileges = []\n[tasks.T]\nclass = "timeshare"\nbody = ["compute 1"]\n',
        "x.toml: [groups.1]: a group is a number in 2..8 (1, the system group, holds every privilege)",
    ),
    (
        BAND + '[groups.2]\nprivileges = ["root"]\n[tasks.T]\nclass = "timeshare"\nbody = ["compute 1"]\n',
        'x.toml: [groups.2] privileges[0]: unknown privilege "root" (expected one of: rtprio, setprio, ceiling, '
        "groups)",
    ),
    (
        BAND + '[tasks.T]\nclass = "timeshare"\nbody = ["rtprio 3"]\n',
        "x.toml: [tasks.T] body[0]: rtprio 3: in the time-sharing band (levels 0..7); a real-time priority is "
        "8..255",
    ),
    (
        '[tasks.T]\npriority = 9\nbody = ["rtprio off"]\n',
        "x.toml: [tasks.T] body[0]: rtprio off: there is no time-sharing band ([system] timeshare_levels is 0)",
    ),
    (
        BAND + '[tasks.T]\nclass = "timeshare"\nbody = ["nice 25"]\n',
        "x.toml: [tasks.T] body[0]: nice 25: must be in -20..19",
    ),
    (
        BAND + '[tasks.T]\nclass = "timeshare"\nbody = ["rtprio high"]\n',
        'x.toml: [tasks.T] body[0]: malformed action "rtprio high" (expected "rtprio N" or "rtprio off")',
    ),
]


@pytest.mark.parametrize(("text", "message"), BAD_BAND, ids=range(len(BAD_BAND)))
def test_bad_band_files(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse(text, "x.toml")
    assert str(caught.value) == message


MOVERS = BAND + (
    '[groups.2]\nprivileges = ["rtprio"]\n'
    '[groups.3]\nprivileges = ["rtprio", "setprio"]\n'
    '[tasks.W]\nclass = "timeshare"\ngroup = 2\nbody = ["compute 1", "rtprio 12", "compute 2", "rtprio off", '
    '"compute 1"]\n'
    '[tasks.V]\nclass = "timeshare"\ngroup = 3\nphase = 10\nbody = ["compute 1", "rtprio 12", "compute 2", '
    '"rtprio off", "nice -5", "compute 1"]\n'
)


def test_a_body_moves_between_the_bands_as_its_group_allows() -> None:
    # W's group may use real-time priorities but not raise its own: entering
    # the band from time sharing is a raise, refused (PR_EPRIV_PRIO), and W
    # goes on in the band; V's group has both privileges: it runs 2 ticks at
    # real-time 12, leaves the band, and its nice -5 (a raise) is allowed too.
    scenario = parse(MOVERS, "movers.toml")
    assert scenario.system.groups == ((2, 1), (3, 3))
    assert [(t.name, t.group) for t in scenario.tasks] == [("W", 2), ("V", 3)]
    result = simulate(scenario)
    report = build_report(result)
    assert (report.tasks["W"].errors, report.tasks["V"].errors) == (1, 0)
    lines = native.format_records(
        result.trace[np.isin(result.trace["event"], [native.EVENT[e] for e in ("RTPRIO", "NICE", "PRIO")])],
        1000,
        {"task": {0: "W", 1: "V"}},
    )
    assert lines == [
        "1 RTPRIO W PR_EPRIV_PRIO ts->12 nice=0",
        "3 RTPRIO W ok ts->ts nice=0",
        "11 RTPRIO V ok ts->12 nice=0",
        "11 PRIO V 5->12 set -",
        "13 RTPRIO V ok 12->ts nice=0",
        "13 PRIO V 12->5 set -",
        "13 NICE V ok 0->-5",
        "13 PRIO V 5->6 decay -",
    ]


def test_the_same_moves_on_qemu() -> None:
    # The groups' privileges and each task's group travel in the blob: the
    # same refusal and the same moves on the RISC-V kernel.
    result = qemu_run.run(parse(MOVERS, "movers.toml"), "qemu-rv32").result
    report = build_report(result)
    assert (report.tasks["W"].errors, report.tasks["V"].errors) == (1, 0)
    moves = result.trace[result.trace["event"] == native.EVENT["RTPRIO"]]
    assert [(int(r["task"]), native.errname(int(r["result"]))) for r in moves] == [
        (0, "PR_EPRIV_PRIO"), (0, "PR_OK"), (1, "PR_OK"), (1, "PR_OK")
    ]  # fmt: skip

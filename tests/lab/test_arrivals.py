"""Arrivals, release jitter and execution times between a best and a worst
case (docs/scenario-format.md, "Arrivals, jitter and execution times"):
every refusal of the scenario keys, the simulated jobs of small files worked
out by hand, the report's arrivals block, the example, and a property test:
on random sets of periodic tasks with jitter and phase offsets and sporadic
tasks (arrivals at the worst case and at random), under each of the six
protocols, whatever response-time analysis with release jitter [Audsley et
al. 1993] proves, the kernel does (no miss, no response from the arrival
above R_i).
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest
from test_analysis import _random_body

from priora.analysis import analyze
from priora.cli.main import main
from priora.errors import ScenarioError
from priora.record import replace
from priora.report.build import build_report
from priora.report.json_document import report_json, schema
from priora.run import native, qemu_run
from priora.run.blob import BlobError, decode, encode
from priora.run.compiled import compile_scenario, exec_spread
from priora.run.simulate import SimResult, simulate
from priora.scenario.loader import load, parse
from priora.scenario.model import NEEDS_PRIORITY_ORDER, PROTOCOLS, Scenario

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sporadic_jitter.toml"
HEAD = '[system]\ntick_hz = 1000\ntime_unit = "tick"\n\n'
# A periodic task that keeps the run going (arrivals are the lab's interrupts).
CLOCK = '[tasks.clock]\npriority = 1\nperiod = 50\nbody = ["compute 1"]\n'


def one_task(keys: str) -> str:
    return HEAD + f'[tasks.T]\npriority = 5\n{keys}\nbody = ["compute 2"]\n\n' + CLOCK


# ---------------------------------------------------------------- refusals


BAD = [
    ("min_interarrival = 5\nperiod = 10", "[tasks.T] min_interarrival: not with period: a task is periodic "
     "(period) or sporadic (min_interarrival), not both"),
    ("min_interarrival = 5\nphase = 3", "[tasks.T] phase: not for a sporadic task: its jobs arrive at its arrivals"),
    ("arrivals = [1, 2]", "[tasks.T] arrivals: only for a sporadic task: give min_interarrival too"),
    ('early_release = "defer"', "[tasks.T] early_release: only for a sporadic task: give min_interarrival too"),
    ("min_interarrival = 5\ndeadline = 6", "[tasks.T] deadline: must be at most min_interarrival (5 ticks) for a "
     "sporadic task, got 6 ticks"),
    ("min_interarrival = 0", "[tasks.T] min_interarrival: must be > 0, got 0"),
    ("min_interarrival = 5\narrivals = 3", "[tasks.T] arrivals: must be an array of times, got an integer (3)"),
    ("min_interarrival = 5\narrivals = [4, 2]", "[tasks.T] arrivals[1]: 2 ticks comes before the arrival "
     "before it (4 ticks)"),
    ("min_interarrival = 5\narrivals = [-1]", "[tasks.T] arrivals[0]: must be >= 0, got -1"),
    ('min_interarrival = 5\nearly_release = "later"', '[tasks.T] early_release: unknown early_release "later" '
     '(expected "refuse" or "defer")'),
    ("period = 10\njitter = 10", "[tasks.T] jitter: 10 ticks must be below the period (10 ticks)"),
    ("period = 10\ndeadline = 4\njitter = 4", "[tasks.T] jitter: 4 ticks must be below the deadline (4 ticks)"),
    ("min_interarrival = 5\njitter = 5", "[tasks.T] jitter: 5 ticks must be below the min_interarrival (5 ticks)"),
    ("period = 10\njitter = -1", "[tasks.T] jitter: must be >= 0, got -1"),
    ("period = 10\noffset = 10", "[tasks.T] offset: 10 ticks must be below the period (10 ticks)"),
    ("period = 10\ndeadline = 5\noffset = 5", "[tasks.T] offset: 5 ticks must be below the deadline (5 ticks)"),
    ("period = 10\noffset = 4\njitter = 6", "[tasks.T] jitter: offset + jitter (10 ticks) must be below the "
     "period (10 ticks)"),
    ("min_interarrival = 5\noffset = 2\njitter = 3", "[tasks.T] jitter: offset + jitter (5 ticks) must be below "
     "the min_interarrival (5 ticks)"),
    ("period = 10\noffset = -1", "[tasks.T] offset: must be >= 0, got -1"),
    ("period = 10\nbcet = 3", "[tasks.T] bcet: 3 ticks exceeds the body's compute total 2 ticks (the worst case)"),
    ("period = 10\nwcet = 3", "[tasks.T] wcet: 3 ticks differs from the body's compute total 2 ticks "
     "(the worst case)"),
    ('period = 10\ndistribution = "uniform"', "[tasks.T] distribution: needs bcet: the execution times are "
     "drawn from bcet to the wcet"),
    ('period = 10\nbcet = 1\ndistribution = "normal"', '[tasks.T] distribution: unknown distribution "normal" '
     '(expected "uniform")'),
    ("period = 10\nseed = -1", "[tasks.T] seed: must be in 0..4294967295 (a 32-bit seed), got -1"),
    ("period = 10\nseed = 4294967296", "[tasks.T] seed: must be in 0..4294967295 (a 32-bit seed), got 4294967296"),
    ('period = 10\nseed = "7"', '[tasks.T] seed: must be an integer, got a string ("7")'),
    ('period = 10\ndeadline_kind = "firm"', '[tasks.T] deadline_kind: unknown deadline_kind "firm" (expected "soft" or '
     '"hard")'),
    ('deadline_kind = "hard"', "[tasks.T] deadline_kind: a hard task needs a deadline (or a period)"),
    ("period = 10\nimportance = -1", "[tasks.T] importance: must be in 0..4294967295, got -1"),
    ("period = 10\nimportance = 1.5", "[tasks.T] importance: must be an integer, got a float (1.5)"),
    ('period = 10\nabort_time = 4\ndeadline_kind = "hard"', "[tasks.T] abort_time: not for a hard task: its "
     "deadline aborts its job"),
    ("period = 10\nabort_time = 11", "[tasks.T] abort_time: 11 ticks exceeds the period (10 ticks)"),
    ("period = 10\nabort_time = 0", "[tasks.T] abort_time: must be > 0, got 0"),
    ("min_interarrival = 5\nstart = 2", "[tasks.T] start: not for a sporadic task: its jobs arrive at its arrivals"),
    ("period = 10\nstart = -2", "[tasks.T] start: must be >= 0, got -2"),
]  # fmt: skip


@pytest.mark.parametrize(("keys", "message"), BAD)
def test_bad_keys(keys: str, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse(one_task(keys), "bad.toml")
    assert str(caught.value) == f"bad.toml: {message}"


def test_arrivals_need_a_periodic_task() -> None:
    text = HEAD + '[tasks.S]\nmin_interarrival = 5\narrivals = [1]\nbody = ["compute 1"]\n'
    with pytest.raises(ScenarioError) as caught:
        parse(text, "alone.toml")
    assert str(caught.value) == (
        "alone.toml: [tasks.S] arrivals: arrivals need a periodic task or a periodic timer in the scenario: "
        "a port ends a run when nothing is ready and no kernel timer is armed"
    )


def test_too_many_arrivals() -> None:
    many = ", ".join(str(5 * i) for i in range(4097))
    with pytest.raises(ScenarioError) as caught:
        parse(one_task(f"min_interarrival = 5\narrivals = [{many}]"), "many.toml")
    assert str(caught.value) == "many.toml: [tasks]: 4097 arrivals in all, the lab has room for 4096"


def test_cli_names_file_field_and_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.toml"
    path.write_text(one_task("period = 10\njitter = 12"))
    assert main(["simulate", str(path)]) != 0
    err = capsys.readouterr().err.strip()
    assert err == f"priora: {path}: [tasks.T] jitter: 12 ticks must be below the period (10 ticks)"


# ---------------------------------------------------------------- the model and the kernel objects


def test_defaults_and_compiled_attributes() -> None:
    s = parse(
        one_task(
            'min_interarrival = 6\narrivals = [0, 3, 12]\nearly_release = "defer"\njitter = 2\nseed = 9'
        ),
        "k.toml",
    )
    t = s.tasks[0]
    assert (t.sporadic, t.deadline, t.arrivals, t.defer_early, t.jitter, t.seed) == (
        True,
        6,
        (0, 3, 12),
        True,
        2,
        9,
    )
    assert t.effective_arrivals() == (0, 6, 12)
    k = compile_scenario(s).tasks[0]
    assert (k.flags, k.min_interarrival, k.jitter, k.jitter_seed, k.deadline, k.period) == (
        native.PR_TASK_SPORADIC | native.PR_TASK_DEFER_EARLY, 6, 2, 9, 6, 0
    )  # fmt: skip
    assert (k.exec_spread, k.exec_seed) == (0, 0)
    # Refused: 3 comes 3 ticks after 0; the default horizon covers the last job.
    refused = parse(one_task("min_interarrival = 6\narrivals = [0, 3, 12]"), "r.toml").tasks[0]
    assert refused.effective_arrivals() == (0, 12)
    assert parse(one_task("min_interarrival = 6\narrivals = [0, 3, 60]"), "h.toml").horizon_ticks() == 66


def test_exec_spread() -> None:
    # ceil(65536 * 1 / 2) = 32768: jobs run 1 to 2 ticks; bcet 0: 0 to 2.
    assert (exec_spread(None, 2), exec_spread(1, 2), exec_spread(0, 2), exec_spread(2, 2)) == (
        0,
        32768,
        65536,
        0,
    )
    assert exec_spread(1, 3) == 65536 - 21846  # ceil(65536 / 3) = 21846
    k = compile_scenario(parse(one_task("period = 10\nbcet = 1\nseed = 5"), "e.toml")).tasks[0]
    assert (k.exec_spread, k.exec_seed) == (32768, 5 ^ 0x9E3779B9)


def test_the_blob_carries_them() -> None:
    # Version 6: each task's flags, minimum interarrival time, jitter and its
    # seed, importance, abort time, offset and execution-time draw; the
    # arrivals after tick 0 as interrupts after the file's, those at 0 as a
    # count (tests/lab/test_qemu_run.py runs them on QEMU, event for event).
    s = load(EXAMPLE)
    kernel = compile_scenario(s)
    data = encode(kernel, 100)
    assert decode(data) == (kernel, 100)
    alarm = kernel.tasks[0]
    assert (alarm.flags, alarm.min_interarrival, alarm.jitter, alarm.arrivals) == (
        native.PR_TASK_SPORADIC, 15, 1, (0, 12, 20, 30, 70)
    )  # fmt: skip
    too_big = replace(kernel, tasks=(replace(alarm, abort_time=2**32),) + kernel.tasks[1:])
    with pytest.raises(BlobError) as caught:
        encode(too_big, 10)
    assert str(caught.value) == "task alarm: an arrival attribute does not fit a blob (0 .. 2^32-1)"


@pytest.mark.parametrize("target", ["qemu-rv32", "qemu-rv64"])
def test_the_example_on_qemu(target: str) -> None:
    # The same arrivals, refusals, jitters and misses as on the host; the
    # responses carry the kernel's costs (a few microseconds).
    s = load(EXAMPLE)
    on_qemu = build_report(qemu_run.run(s, target).result).arrivals
    here = build_report(simulate(s)).arrivals
    assert list(on_qemu) == list(here) == ["alarm", "sensor"]
    for name, row in here.items():
        q = on_qemu[name]
        assert (q.arrivals, q.refused, q.deferred, q.max_jitter, q.hard_misses, q.soft_misses, q.aborted) == (
            row.arrivals, row.refused, row.deferred, row.max_jitter, row.hard_misses, row.soft_misses, row.aborted
        )  # fmt: skip
        assert q.max_response is not None and row.max_response is not None
        assert row.max_response <= q.max_response < row.max_response + 0.01


# ---------------------------------------------------------------- runs worked out by hand


def jobs_of(result: SimResult, task: int) -> list[tuple[int, int, int]]:
    """(release, finish, deadline) of each job of `task`, in ticks (finish -1: unfinished)."""
    rows = []
    for j in result.jobs[result.jobs["task"] == task]:
        finish = -1 if j["finish"] == native.NEVER else int(j["finish"]) // 10**6
        rows.append((int(j["release"]) // 10**6, finish, int(j["deadline"]) // 10**6))
    return rows


def test_sporadic_refused_and_deferred() -> None:
    # S: min interarrival 5, asked for at 0, 2, 9 and 10. Refused: 2 (too
    # early), 10 (9 + 5 > 10). Deferred: 2 -> 5, 9 -> 10, 10 -> 15.
    for early, expected, refused, deferred in (
        ("refuse", [(0, 1, 5), (9, 10, 14)], 2, 0),
        ("defer", [(0, 1, 5), (5, 6, 10), (10, 11, 15), (15, 16, 20)], 0, 3),
    ):
        text = HEAD + (
            f'[tasks.S]\npriority = 5\nmin_interarrival = 5\narrivals = [0, 2, 9, 10]\nearly_release = "{early}"\n'
            'body = ["compute 1"]\n\n[tasks.clock]\npriority = 1\nperiod = 30\nbody = ["compute 1"]\n'
        )
        run = simulate(parse(text, "s.toml"))
        assert jobs_of(run, 0) == expected
        row = build_report(run).arrivals["S"]
        assert (row.arrivals, row.refused, row.deferred, row.max_jitter) == (
            len(expected),
            refused,
            deferred,
            0,
        )
        events = [native.EVENT_NAME[int(e)] for e in run.trace["event"] if int(e) == native.EVENT["ARRIVAL"]]
        assert len(events) == len(expected) + refused + deferred


def test_jitter_deadline_counts_from_the_arrival() -> None:
    # P: period 10, deadline 5, jitter 4, seed 7: the kernel's draws are 3, 0,
    # 2, 0 (tests/kernel/test_sporadic_jitter.c); jobs of 3 ticks. Job 1
    # arrives at 0, is released at 3 and misses its deadline 5.
    text = (
        HEAD
        + '[tasks.P]\npriority = 2\nperiod = 10\ndeadline = 5\njitter = 4\nseed = 7\nbody = ["compute 3"]\n'
    )
    run = simulate(parse(text, "j.toml"), 40)
    assert jobs_of(run, 0) == [(3, 6, 5), (10, 13, 15), (22, 25, 25), (30, 33, 35)]
    assert [bool(m) for m in run.jobs["missed"] == 1] == [True, False, False, False]
    row = build_report(run).arrivals["P"]
    assert (row.arrivals, row.max_jitter, row.max_response) == (4, 3, 6)


def documented_job_lengths(seed: int, spread: int, amount_ns: int, jobs: int) -> list[int]:
    """docs/api.md's rule, written out: the state starts at the seed mixed
    (seed XOR 0x9E3779B9, docs/scenario-format.md), each job advances it
    once (xorshift32) and computes floor(amount * r / 65536), r = 65536 -
    spread + x mod (spread + 1)."""
    x, lengths = (seed ^ 0x9E3779B9) or 1, []
    for _ in range(jobs):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        r = 65536 - spread + x % (spread + 1)
        lengths.append(amount_ns * r // 65536)
    return lengths


def test_execution_times_are_drawn_per_job() -> None:
    # bcet 2 of 4: spread 32768, each job computes floor(4 ms * r / 65536)
    # with r in [32768, 65536], exactly as the documented rule gives them;
    # the same seed, the same jobs; another seed, other jobs.
    text = HEAD + '[tasks.P]\npriority = 2\nperiod = 10\nbcet = 2\nseed = 0\nbody = ["compute 4"]\n'
    run = simulate(parse(text, "e.toml"), 40)
    work = (run.jobs["finish"] - run.jobs["release"]).tolist()
    assert work == documented_job_lengths(0, 32768, 4 * 10**6, 4) == [2562622, 2326477, 2371643, 2588745]
    assert (simulate(parse(text, "e.toml"), 40).jobs == run.jobs).all()
    other = simulate(parse(text.replace("seed = 0", "seed = 1"), "e.toml"), 40)
    assert (other.jobs["finish"] - other.jobs["release"]).tolist() == documented_job_lengths(
        1, 32768, 4 * 10**6, 4
    )


HARD = (
    HEAD
    + """
[tasks.X]
priority = 4
body = ["compute 3"]

[tasks.H]
priority = 3
period = 20
deadline = 3
deadline_kind = "hard"
importance = 5
body = ["compute 2"]

[tasks.L]
priority = 1
period = 20
importance = IMPORTANCE
body = ["compute 5"]

[tasks.S]
priority = 2
period = 10
start = 2
phase = 1
abort_time = 4
body = ["compute 5"]
"""
)


def test_hard_miss_importance_and_abort_time() -> None:
    # X (one job, 3 ticks) delays H (hard, D 3, importance 5): H misses at 3.
    # L (importance 1) is less important: its job is aborted (it runs at 7
    # and ends at once) and H's goes on to 5. S starts at 2 with phase 1:
    # arrivals 3 and 13; each job of 5 ticks is aborted 4 after its arrival.
    # With L as important as H, H's own job is aborted at 3 and L runs 7..12.
    for importance, h, l_finish, aborted in ((1, (0, 5), 7, (0, 1)), (5, (0, 3), 12, (1, 0))):
        run = simulate(parse(HARD.replace("IMPORTANCE", str(importance)), "hard.toml"), 20)
        assert [(r, f) for r, f, _ in jobs_of(run, 1)] == [h]
        assert jobs_of(run, 2)[0][1] == l_finish
        assert jobs_of(run, 3) == [(3, 7, 13), (13, 17, 23)]
        rows = build_report(run).arrivals
        assert list(rows) == ["H", "S"]
        assert (rows["H"].hard_misses, rows["H"].soft_misses, rows["H"].aborted) == (1, 0, aborted[0])
        assert (rows["S"].hard_misses, rows["S"].aborted) == (0, 2)
        assert run.arrivals[2].aborted == aborted[1]
        aborts = [native.EVENT_NAME[int(e)] for e in run.trace["event"]].count("JOB_ABORT")
        assert aborts == 3


OFFSET = (
    HEAD
    + """
[tasks.A]
priority = 2
period = 10
start = 5
offset = 2
deadline = 4
body = ["compute 1"]

[tasks.B]
priority = 1
period = 10
phase = 7
deadline = 4
body = ["compute 1"]
"""
)


def test_a_phase_offset_is_not_a_later_start() -> None:
    # Real-Time Mach's pair [Tokuda-Nakajima 1993]: A starts at 5 and its
    # phase offset 2 makes each job ready 2 ticks into its period (releases
    # 7, 17, 27), due 4 after the period's start (9, 19, 29); B, whose first
    # release is simply 7, is due at 11, 21, 31. B runs after A each time.
    run = simulate(parse(OFFSET, "o.toml"), 30)
    assert jobs_of(run, 0) == [(7, 8, 9), (17, 18, 19), (27, 28, 29)]
    assert jobs_of(run, 1) == [(7, 9, 11), (17, 19, 21), (27, 29, 31)]
    s = parse(OFFSET, "o.toml")
    assert (s.tasks[0].phase, s.tasks[0].offset, s.tasks[1].phase, s.tasks[1].offset) == (5, 2, 7, 0)
    assert compile_scenario(s).tasks[0].offset == 2
    row = build_report(run).arrivals["A"]
    assert (row.arrivals, row.max_jitter, row.max_response) == (3, 0, 3)
    assert list(build_report(run).arrivals) == ["A"]  # B has neither jitter nor an offset
    analysis = analyze(s, ["pip"]).protocols["pip"]
    # A: R = O + C = 3 <= 4; B: C + A's C = 2, from its release (no offset).
    assert {n: (r.response, r.meets_deadline) for n, r in analysis.tasks.items()} == {
        "A": (3, True), "B": (2, True)
    }  # fmt: skip
    assert (
        analysis.tests["liu_layland"].reason
        == "task A has a phase offset, which the utilisation bounds do not cover"
    )


RELEASED = (
    HEAD.rstrip()
    + """
horizon = 18

[tasks.handler]
priority = 5
min_interarrival = 4
early_release = "EARLY"
body = ["compute 1"]

[tasks.clock]
priority = 1
period = 20
body = ["compute 1"]

[interrupts.device]
phase = 1
period = 3
body = ["release handler"]
"""
)


def test_an_interrupt_releases_a_sporadic_task() -> None:
    # The device interrupts at 1, 4, 7, 10, 13 and 16 and releases handler
    # (min interarrival 4). Refused: 4, 10 and 16 (3 after an arrival), each
    # a failed call of the interrupt's body. Deferred: 4 -> 5, 7 -> 9, 10 ->
    # 13, 13 -> 17, 16 -> 21 (still pending when the run stops at 18).
    for early, jobs, refused, deferred in (
        ("refuse", [(1, 2, 5), (7, 8, 11), (13, 14, 17)], 3, 0),
        ("defer", [(1, 2, 5), (5, 6, 9), (9, 10, 13), (13, 14, 17), (17, 18, 21)], 0, 5),
    ):
        s = parse(RELEASED.replace("EARLY", early), "r.toml")
        assert s.interrupts[0].body[0].text() == "release handler"
        assert compile_scenario(s).interrupts[0].actions[0].kind == native.PR_ACT_RELEASE
        run = simulate(s)
        assert jobs_of(run, 0) == jobs
        report = build_report(run)
        row = report.arrivals["handler"]
        assert (row.arrivals, row.refused, row.deferred) == (len(jobs), refused, deferred)
        assert (report.interrupts["device"].runs, report.interrupts["device"].failed_calls) == (6, refused)


def test_a_timer_releases_a_sporadic_task() -> None:
    # The pace timer expires at 2, 7, 12 and 17 and its body, in the timer
    # service task (more urgent: the top level), releases handler: 5 ticks
    # apart, never too early.
    text = RELEASED.replace('early_release = "EARLY"\n', "").replace(
        "[interrupts.device]\nphase = 1\nperiod = 3", "[timers.pace]\nphase = 2\nperiod = 5"
    )
    run = simulate(parse(text, "t.toml"))
    assert jobs_of(run, 0) == [(2, 3, 6), (7, 8, 11), (12, 13, 16), (17, 18, 21)]
    assert build_report(run).arrivals["handler"].refused == 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('"release clock"', "release clock: not a sporadic task (give it min_interarrival)"),
        ('"release nobody"', "release nobody: no task nobody in the file"),
        ('"release"', 'malformed action "release" (expected "release T", T a sporadic task)'),
    ],
)
def test_a_release_names_a_sporadic_task(body: str, message: str) -> None:
    text = RELEASED.replace("EARLY", "refuse").replace('body = ["release handler"]', f"body = [{body}]")
    with pytest.raises(ScenarioError) as caught:
        parse(text, "r.toml")
    assert str(caught.value) == f"r.toml: [interrupts.device] body[0]: {message}"


# ---------------------------------------------------------------- the example


def test_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    s = load(EXAMPLE)
    run = simulate(s)
    report = build_report(run)
    assert [(n, vars(a)) for n, a in report.arrivals.items()] == [
        (
            "alarm",
            {
                "arrivals": 3,
                "refused": 2,
                "deferred": 0,
                "max_jitter": 1,
                "max_response": 2,
                "hard_misses": 0,
                "soft_misses": 0,
                "aborted": 0,
            },
        ),
        (
            "sensor",
            {
                "arrivals": 9,
                "refused": 0,
                "deferred": 0,
                "max_jitter": 2,
                "max_response": 3.372406,
                "hard_misses": 0,
                "soft_misses": 0,
                "aborted": 0,
            },
        ),
    ]
    assert report.system.misses == 0
    document = json.loads(report_json(report))
    jsonschema.validate(document, schema())
    assert report_json(build_report(simulate(s))) == report_json(report)  # same seeds, same bytes
    analysis = analyze(s, ["pip"]).protocols["pip"]
    assert {n: r.response for n, r in analysis.tasks.items()} == {
        "alarm": 2,
        "sensor": 5,
        "logger": 8,
        "filter": 17,
    }
    assert main(["simulate", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert (
        "Arrivals\ntask    arrivals  refused  deferred  max jitter (ms)  max response from arrival (ms)  hard"
        in out
    )
    assert main(["analyze", str(EXAMPLE)]) == 0


# ---------------------------------------------------------------- the property test


PERIODS = (4, 5, 6, 8, 10, 12, 15, 20, 24, 30)  # every hyperperiod divides 120
SETS = 1500


def random_arrival_set(rng: random.Random) -> str:
    """2 to 5 tasks (utilisation 0.3 to 0.9 at their most frequent, UUniFast),
    one to all but one of them periodic with jitter below min(T, D) half the
    time and a phase offset (offset + jitter below min(T, D)) three times in
    ten, the others sporadic with a deadline up to their minimum
    interarrival time, asked for at the worst case (0, T, 2T, ...) or at
    random gaps (some too early: refused or deferred); 1 or 2 mutexes; bcet
    one time in three."""
    n = rng.randint(2, 5)
    mutexes = [f"M{i}" for i in range(rng.randint(1, 2))]
    shares, rest = [], rng.uniform(0.3, 0.9)
    for i in range(1, n):
        following = rest * rng.random() ** (1 / (n - i))
        shares.append(rest - following)
        rest = following
    shares.append(rest)
    priorities = rng.sample(range(1, n + 1), n)
    sporadic = set(rng.sample(range(n), rng.randint(0, n - 1)))
    gaps = [rng.choice(PERIODS) for _ in range(n)]
    horizon = math.lcm(*gaps) * 2
    lines = [f'[system]\ntime_unit = "tick"\nprotocol = "none"\nhorizon = {horizon}']
    lines += [f'[resources.{m}]\nkind = "mutex"' for m in mutexes]
    for i in range(n):
        gap = gaps[i]
        wcet = max(1, round(shares[i] * gap))
        keys = [f"[tasks.T{i}]", f"priority = {priorities[i]}"]
        deadline = rng.randint(wcet, gap) if rng.random() < 0.4 else gap
        keys.append(f"deadline = {deadline}")
        jitter = rng.randint(1, min(gap, deadline) - 1) if rng.random() < 0.5 and deadline > 1 else 0
        if jitter:
            keys.append(f"jitter = {jitter}")
        room = min(gap, deadline) - 1 - jitter  # the release comes before the next arrival and the deadline
        if rng.random() < 0.3 and room > 0:
            keys.append(f"offset = {rng.randint(1, room)}")
        if rng.random() < 0.33:
            keys.append(f"bcet = {rng.randint(0, wcet)}")
        keys.append(f"seed = {rng.randrange(2**32)}")
        if i in sporadic:
            keys.append(f"min_interarrival = {gap}")
            if rng.random() < 0.5:  # the worst case: as often as allowed, from 0
                arrivals = list(range(0, horizon, gap))
            else:
                arrivals, t = [], rng.randrange(gap)
                while t < horizon:
                    arrivals.append(t)
                    t += rng.randint(gap // 2, 2 * gap)  # below gap: too early
                keys.append(f'early_release = "{rng.choice(("refuse", "defer"))}"')
            keys.append(f"arrivals = {arrivals}")
        else:
            keys.append(f"period = {gap}")
        body = _random_body(rng, wcet, mutexes, rng.uniform(0.2, 0.7))
        keys.append("body = [" + ", ".join(f'"{a}"' for a in body) + "]")
        lines.append("\n".join(keys))
    return "\n\n".join(lines) + "\n"


@dataclass
class Coverage:
    sets: int = 0
    tasks: int = 0  # tasks with a finite R, checked job by job
    jittered: int = 0  # ... of which with jitter
    sporadic: int = 0  # ... of which sporadic
    sporadic_jittered: int = 0  # ... of which sporadic with jitter
    offset: int = 0  # ... of which with a phase offset
    tight: int = 0  # ... whose largest response from the arrival equals R
    schedulable: int = 0
    refused: int = 0  # sets in which the kernel refused an early arrival


def check(text: str, protocol: str, coverage: Coverage) -> list[str]:
    s: Scenario = parse(text, "random.toml")
    if protocol in NEEDS_PRIORITY_ORDER and any(r.order == "fifo" for r in s.resources):
        return []
    s = s.with_protocol(protocol)  # type: ignore[arg-type]
    result = analyze(s, [protocol]).protocols[protocol]
    if result.reason is not None:
        return []
    coverage.sets += 1
    coverage.schedulable += result.tests["response_time"].passes is True
    run = simulate(s)
    tick = 10**9 // s.system.tick_hz
    coverage.refused += sum(a.refused for a in run.arrivals) > 0
    problems = []
    for index, t in enumerate(s.tasks):
        r = result.tasks[t.name]
        if r.response is None or t.deadline is None:
            continue
        coverage.tasks += 1
        coverage.jittered += t.jitter > 0
        coverage.sporadic += t.sporadic
        coverage.sporadic_jittered += t.sporadic and t.jitter > 0
        coverage.offset += t.offset > 0
        jobs = run.jobs[run.jobs["task"] == index]
        arrival = jobs["deadline"] - t.deadline * tick  # deadlines count from arrivals
        finished = jobs["finish"] != native.NEVER
        responses = (jobs["finish"][finished] - arrival[finished]).tolist()
        responses += (run.end_ns - arrival[~finished]).tolist()
        if responses and max(responses) == r.response * tick:
            coverage.tight += 1
        late = [x // tick for x in responses if x > r.response * tick]
        if late:
            problems.append(f"{t.name}: R = {r.response} but the kernel took {max(late)} from the arrival")
        if r.meets_deadline and int((jobs["missed"] == 1).sum()):
            problems.append(f"{t.name}: RTA says it meets its deadline, the kernel missed it")
    return problems


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_kernel_agrees_with_the_analysis_with_jitter_and_sporadic_tasks(protocol: str) -> None:
    rng = random.Random(20261125)
    coverage = Coverage()
    for _ in range(SETS):
        text = random_arrival_set(rng)
        problems = check(text, protocol, coverage)
        assert not problems, f"{protocol}: {problems}\n{text}"
    assert coverage.sets > SETS * 0.95  # a few sets have a lock with a timeout of 0...
    assert coverage.tasks > SETS * 2
    assert coverage.jittered > SETS * 0.8 and coverage.sporadic > SETS * 0.8
    assert coverage.sporadic_jittered > SETS * 0.3 and coverage.offset > SETS * 0.3
    assert coverage.tight > SETS * 0.3
    assert coverage.schedulable > SETS * 0.1
    assert coverage.refused > SETS * 0.1

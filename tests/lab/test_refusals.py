"""Calls the kernel refuses inside a scenario (priora.run.refusals): the report's
warnings (text, JSON, schema), the marker of the Gantt chart, the instant of
the Chrome trace, `--strict` on the host and on QEMU, and the walk through
the body that finds each refused call's action, checked against the scenario
interpreter's own counters on random task sets."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from priora.cli.main import main
from priora.pictures import gantt
from priora.report.build import build_report
from priora.report.json_document import report_json, schema
from priora.report.text import report_text
from priora.run import refusals
from priora.run import simulate as simulate_module
from priora.run.simulate import simulate
from priora.scenario.loader import load, parse
from priora.scenario.model import PROTOCOLS, Action, Resource, Scenario, System, Task
from priora.trace import chrome_trace
from priora.trace.timeline import extract

ROOT = Path(__file__).resolve().parents[2]
DEADLOCK = ROOT / "examples" / "deadlock.toml"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# examples/deadlock.toml under pip: L takes A at 0; H preempts at 1 and takes
# B; at 3 H waits for A and L inherits 2; at 4 L locks B, held by H, which
# waits for A, held by L: PR_EDEADLK. L skips body[3..4] (compute 1, unlock
# B), unlocks A (H takes it, runs to 6), and ends at 7.
CAUSE = "L wants B, held by H, which waits for A, held by L"
WARNING = (
    f'L job 1 at 4 ms: body[2] "lock B" refused with PR_EDEADLK: {CAUSE}; '
    "the job skips its critical section (body[3] to body[4])"
)


def test_a_deadlock_is_a_warning_of_the_report() -> None:
    report = build_report(simulate(load(DEADLOCK)))
    text = report_text(report)
    assert text.endswith(f"\n\nWarnings\n  {WARNING}")
    assert "  refused calls        1 (Warnings, below)" in text.splitlines()
    document = json.loads(report_json(report))
    jsonschema.validate(document, schema(), cls=jsonschema.Draft202012Validator)
    assert document["warnings"] == [
        {
            "task": "L", "job": 1, "time": 4, "action": 2, "action_text": "lock B", "error": "PR_EDEADLK",
            "cause": CAUSE,
            "cycle": [
                {"task": "L", "mutex": "B", "holder": "H", "by_ceiling": False},
                {"task": "H", "mutex": "A", "holder": "L", "by_ceiling": False},
            ],
            "base_priority": None, "ceiling": None, "skipped": [3, 4],
        }
    ]  # fmt: skip
    # The same refusal, counted in the job's errors and in the system's.
    assert [(j.task, j.finish, j.errors) for j in report.jobs] == [("L", 7, 1), ("H", 6, 0)]
    assert document["system"]["refused"] == 1


def test_the_chart_marks_the_refusal(tmp_path: Path) -> None:
    result = simulate(load(DEADLOCK))
    timeline = extract(result)
    assert [f.error for t in timeline.tasks for f in t.refusals] == ["PR_EDEADLK"]
    fig = gantt.figure(timeline, "deadlock")
    ax = fig.axes[0]
    # Rows, most urgent at the top: H at 1, L at 0; the refusal at 4 ms on L's row.
    markers = [line for line in ax.lines if line.get_gid() == "refusal"]
    assert [(list(m.get_xdata()), list(m.get_ydata()), m.get_marker()) for m in markers] == [
        ([4.0], [0.0], "D")
    ]
    assert "EDEADLK" in [t.get_text() for t in ax.texts]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "call refused by the kernel (its error)" in labels
    out = tmp_path / "deadlock.png"
    gantt.draw(result, out)
    assert out.read_bytes().startswith(PNG_SIGNATURE)


def test_the_trace_has_an_instant_at_the_refusal() -> None:
    events = chrome_trace.to_events(simulate(load(DEADLOCK)))
    refused = [e for e in events if e.get("cat") == "refusal"]
    assert refused == [
        {
            "name": "refused lock B (PR_EDEADLK)", "cat": "refusal", "ph": "i", "s": "t", "pid": 1,
            "tid": 1,  # L, task 0
            "ts": 4000.0,
            "args": {
                "job": 1, "action": 2, "action_text": "lock B", "error": "PR_EDEADLK", "cause": CAUSE,
                "cycle": [
                    {"task": "L", "mutex": "B", "holder": "H", "by_ceiling": False},
                    {"task": "H", "mutex": "A", "holder": "L", "by_ceiling": False},
                ],
                "base_priority": None, "ceiling": None, "skipped": [3, 4],
            },
        }
    ]  # fmt: skip


# ---------------------------------------------------------------- --strict


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_strict_fails_a_run_with_a_refusal(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(capsys, "simulate", str(DEADLOCK), "--strict")
    assert (status, err) == (1, f"priora: strict: {WARNING}\n")
    assert out.endswith(f"Warnings\n  {WARNING}\n")  # the report first, as without --strict
    # Without --strict, the same run is a success; under pcp nothing is refused.
    assert run_cli(capsys, "simulate", str(DEADLOCK))[0] == 0
    assert run_cli(capsys, "simulate", str(DEADLOCK), "--protocol", "pcp", "--strict")[::2] == (0, "")


# examples/deadlock.toml made periodic (20 ticks), over 60 ticks: the same
# refusal at 4, 24 and 44; and M, whose 12 ticks fit no period of 10 beside
# L and H, misses every deadline.
PERIODIC = """\
[system]
time_unit = "tick"
horizon = 60

[resources.A]
kind = "mutex"

[resources.B]
kind = "mutex"

[tasks.L]
priority = 1
period = 20
body = ["lock A", "compute 2", "lock B", "compute 1", "unlock B", "unlock A", "compute 1"]

[tasks.H]
priority = 2
period = 20
phase = 1
body = ["lock B", "compute 2", "lock A", "compute 1", "unlock A", "unlock B", "compute 1"]

[tasks.M]
priority = 0
period = 30
body = ["compute 25"]
"""


def test_strict_gives_one_line_per_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "periodic.toml"
    path.write_text(PERIODIC)
    status, out, err = run_cli(capsys, "simulate", str(path), "--strict", "--json")
    assert status == 1
    assert len(json.loads(out)["warnings"]) == 3
    assert err.splitlines() == [
        'priora: strict: L job 1 at 4 tick: body[2] "lock B" refused with PR_EDEADLK: L wants B, held by H, '
        "which waits for A, held by L; the job skips its critical section (body[3] to body[4]) "
        "(and 2 more times, the last in job 3 at 44 tick)",
        "priora: strict: M missed 2 deadlines, the first in job 1 at 30 tick",
    ]
    one = tmp_path / "one.toml"
    one.write_text(PERIODIC.replace("horizon = 60", "horizon = 30"))
    status, _, err = run_cli(capsys, "simulate", str(one), "--strict")
    assert (status, err.splitlines()[-1]) == (1, "priora: strict: M job 1 missed its deadline at 30 tick")


def test_strict_on_qemu(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(capsys, "run", str(DEADLOCK), "--target", "qemu-rv32", "--strict")
    assert status == 1
    # The same refusal, at the emulated clock's time (a few us after 4 ms).
    [line] = err.splitlines()
    assert line.startswith("priora: strict: L job 1 at 4.00") and line.endswith(
        f' ms: body[2] "lock B" refused with PR_EDEADLK: {CAUSE}; the job skips its critical section '
        "(body[3] to body[4])"
    )


# ---------------------------------------------------------------- other errors


def test_an_up_beyond_the_max() -> None:
    text = '[resources.C]\nkind = "counting"\nmax = 1\n\n[tasks.P]\npriority = 1\nbody = ["up C", "up C", "compute 1"]\n'
    report = build_report(simulate(parse(text, "up.toml")))
    assert [w.line("tick") for w in report.warnings] == [
        'P job 1 at 0 tick: body[1] "up C" refused with PR_EOVERFLOW: C is at its max already (1); the job goes on'
    ]


def test_a_lock_above_the_ceiling() -> None:
    # The loader refuses a ceiling below a locker's priority; built by hand,
    # the kernel refuses the lock (PR_ECEILING) and says with what.
    s = Scenario(
        "c.toml",
        System(1000, "tick", None, "pcp"),
        (Resource("S", "mutex", "pcp", 1, None, "priority", ceiling=1),),
        (
            Task(
                "T",
                2,
                None,
                0,
                None,
                (Action("lock", "S"), Action("compute", ticks=1), Action("unlock", "S")),
            ),
        ),
    )
    [w] = build_report(simulate(s)).warnings
    assert (w.error, w.cause, w.base_priority, w.ceiling, w.skipped) == (
        "PR_ECEILING", "T's base priority 2 is above the ceiling 1 of S (pcp)", 2, 1, [1, 2],
    )  # fmt: skip


# ---------------------------------------------------------------- following the interpreter


def random_set(rng: random.Random) -> str:
    """2 to 4 periodic tasks, three mutexes locked in any order (deadlocks),
    nested and crossing sections, lock timeouts (skipped sections), a
    counting semaphore with max 1 (ups refused), delays; now and then a
    quantum."""
    lines = ['[system]\ntime_unit = "tick"\n']
    if rng.random() < 0.3:
        lines.append(f"quantum = {rng.randint(1, 3)}\n")
    lines += [f'[resources.{m}]\nkind = "mutex"\n' for m in "MNO"]
    lines.append('[resources.C]\nkind = "counting"\nmax = 1\n')
    for i in range(rng.randint(2, 4)):
        body: list[str] = []
        held: list[str] = []
        for _ in range(rng.randint(1, 6)):
            r = rng.random()
            free = [m for m in "MNO" if m not in held]
            if r < 0.35 and free:
                m = rng.choice(free)
                body.append(f"lock {m}{rng.choice(['', '', ' timeout 0', ' timeout 1', ' timeout 3'])}")
                held.append(m)
            elif r < 0.6 and held:
                body.append(f"unlock {held.pop(rng.randrange(len(held)))}")  # crossing sections too
            elif r < 0.62 and rng.random() < 0.2:
                body.append(rng.choice(["up C", "down C timeout 0"]))
            elif r < 0.67:
                body.append(f"delay {rng.randint(0, 2)}")
            else:
                body.append(f"compute {rng.randint(1, 3)}")
        while held:
            body.append(f"unlock {held.pop(rng.randrange(len(held)))}")
        body.append("compute 1")
        lines.append(
            f"[tasks.T{i}]\npriority = {rng.randint(1, 4)}\nperiod = {rng.choice([6, 8, 10, 12, 15, 20])}\n"
            f"phase = {rng.randint(0, 3)}\nbody = {json.dumps(body)}\n"
        )
    return "\n".join(lines)


def test_every_call_is_followed_to_its_action(monkeypatch: pytest.MonkeyPatch) -> None:
    # The interpreter keeps, per task, its count of errors and the action of
    # the last one (pr_script_t): the refusals found from the trace must give
    # the same, and every DOWN and UP record must match an action.
    scripts: list[Any] = []
    counters = simulate_module.script_counters

    def spy(script: Any) -> Any:
        scripts.append((int(script.errors), int(script.last_error_action)))
        return counters(script)

    monkeypatch.setattr(simulate_module, "script_counters", spy)
    rng = random.Random(7)
    seen = {"runs": 0, "refusals": 0, "deadlocks": 0, "skipped": 0, "aborts": 0}
    for k in range(200):
        s = parse(random_set(rng), f"r{k}.toml")
        for protocol in PROTOCOLS:
            scripts.clear()
            result = simulate(s.with_protocol(protocol), 120)
            assert refusals.unfollowed_calls(result) == 0, (k, protocol)
            found = refusals.find(result)
            assert len(found) == int(result.jobs["errors"].sum()), (k, protocol)  # the job accounting's
            for task, (errors, last) in enumerate(scripts):
                mine = [f for f in found if f.task == task]
                assert len(mine) == errors, (k, protocol, task)
                assert not mine or mine[-1].action == last, (k, protocol, task)
            assert all(f.cycle for f in found if f.error == "PR_EDEADLK"), (k, protocol)
            seen["runs"] += 1
            seen["refusals"] += len(found)
            seen["deadlocks"] += sum(f.error == "PR_EDEADLK" for f in found)
            seen["skipped"] += int(result.jobs["timeouts"].sum())
            seen["aborts"] += int(result.jobs["aborts"].sum())
    # What the sets exercised: refusals of both kinds, skipped sections, rcs restarts.
    assert seen["runs"] == 1200 and seen["refusals"] > 100 and seen["deadlocks"] >= 30, seen
    assert seen["skipped"] > 100 and seen["aborts"] > 100, seen

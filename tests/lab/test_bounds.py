"""Every input bounded (docs/lab.md, "Limits"): the work of a run estimated
and refused above --max-jobs / --max-ticks, idle stretches skipped, cost
models that cannot make progress refused, only regular files of bounded
size read, numbers in ASCII digits only, outputs never written over an input
and never left half written. Each refusal is one line and exit status 2."""

from __future__ import annotations

import errno
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from priora import outputs
from priora.cli.main import main
from priora.scenario import bounds
from priora.scenario.loader import parse

HEADER = '[system]\ntick_hz = 1000\ntime_unit = "ms"\n'
PERIOD_1 = HEADER + '\n[tasks.A]\npriority = 1\nperiod = 1\nbody = ["compute 1"]\n'
INVERSION = (
    HEADER
    + '\n[resources.S]\nkind = "mutex"\n'
    + '\n[tasks.L]\npriority = 1\nbody = ["lock S", "compute 4", "unlock S", "compute 1"]\n'
    + '\n[tasks.H]\npriority = 3\nphase = 1\nbody = ["compute 1", "lock S", "compute 1", "unlock S"]\n'
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one line of a refusal (status 2, nothing on stdout, no traceback)."""
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, ""), err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err.rstrip("\n")


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# ---------------------------------------------------------------- the work estimate


@pytest.mark.parametrize(
    ("text", "horizon", "jobs", "busy", "actions"),
    [
        # period 1, compute 1: 2 ticks a job (its compute, +1 for one that starts within a
        # tick), capped at the horizon
        (PERIOD_1, 1000, 1000, 1000, 1000),
        # releases at 3, 13, 23, ... < 100: 10 jobs of 2 ticks (+1 each)
        (HEADER + '[tasks.A]\npriority = 1\nperiod = 10\nphase = 3\nbody = ["compute 2"]\n', 100, 10, 31, 10),
        # a phase at or beyond the horizon releases nothing
        (HEADER + '[tasks.A]\npriority = 1\nperiod = 10\nphase = 100\nbody = ["compute 2"]\n', 100, 0, 1, 0),
        # one-shot tasks: one job each (5 + 1 and 2 + 1 ticks); no horizon, no cap
        (INVERSION, None, 2, 10, 8),
    ],
)
def test_the_estimate(text: str, horizon: int | None, jobs: int, busy: int, actions: int) -> None:
    scenario = parse(text, "w.toml")
    if horizon is not None:
        scenario = scenario.with_horizon(horizon)
    assert bounds.estimate(scenario) == bounds.Work(jobs, busy, actions)


def test_the_busy_ticks_stretch_with_the_tick_cost_and_stop_at_the_horizon() -> None:
    # A tick costing half the tick period halves the progress of a compute:
    # the 10 + 1 ticks of one job are 22 ticks of wall.
    text = HEADER + 'cost_model = { tick_ns = 500000 }\n[tasks.A]\npriority = 1\nbody = ["compute 10"]\n'
    assert bounds.estimate(parse(text, "w.toml")).busy_ticks == 23
    # Never more ticks than the horizon.
    assert bounds.estimate(parse(PERIOD_1, "w.toml").with_horizon(7)).busy_ticks == 7


def test_too_many_jobs_is_one_line_with_the_option_that_lifts_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 1.3 KB or more per job: 10^7 jobs would be killed for memory, silently.
    path = write(tmp_path, "p1.toml", PERIOD_1)
    assert refused(capsys, "simulate", str(path), "--horizon", "10000000") == (
        f"priora: {path}: the run would release 10000000 jobs (about 20.8 GB of memory), more than "
        "--max-jobs 1000000: give --max-jobs 10000000 to run it anyway, or a shorter --horizon"
    )
    assert refused(capsys, "simulate", str(path), "--horizon", "2000", "--max-jobs", "1999") == (
        f"priora: {path}: the run would release 2000 jobs (about 4 MB of memory), more than "
        "--max-jobs 1999: give --max-jobs 2000 to run it anyway, or a shorter --horizon"
    )
    status, out, _ = run(capsys, "simulate", str(path), "--horizon", "2000", "--max-jobs", "2000", "--json")
    assert status == 0
    assert json.loads(out)["system"]["jobs"] == 2000


def test_too_many_actions_is_one_line_with_the_option_that_lifts_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Locks and unlocks take no time, yet each writes trace records.
    body = ", ".join(['"lock S"', '"unlock S"'] * 500 + ['"compute 1"'])
    text = HEADER + f'[resources.S]\nkind = "mutex"\n[tasks.A]\npriority = 1\nperiod = 10\nbody = [{body}]\n'
    path = write(tmp_path, "acts.toml", text)
    assert refused(capsys, "simulate", str(path), "--horizon", "100000") == (
        f"priora: {path}: the run would run 10010000 actions (about 821 MB of memory), more than "
        "--max-actions 10000000: give --max-actions 10010000 to run it anyway, or a shorter --horizon"
    )
    status, out, _ = run(capsys, "simulate", str(path), "--horizon", "20", "--max-actions", "2002", "--json")
    assert status == 0
    assert json.loads(out)["system"]["jobs"] == 2


def test_too_many_ticks_is_one_line_with_the_option_that_lifts_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = '[system]\ntick_hz = 1000000\ntime_unit = "tick"\n[tasks.A]\npriority = 1\nbody = ["compute 4000000000000"]\n'
    path = write(tmp_path, "busy.toml", text)
    assert refused(capsys, "simulate", str(path)) == (
        f"priora: {path}: the run would compute for up to 4000000000002 ticks, more than --max-ticks "
        "1000000000: give --max-ticks 4000000000002 to run it anyway, or a shorter --horizon"
    )
    status, out, _ = run(capsys, "simulate", str(path), "--horizon", "3000", "--json")
    assert status == 0
    assert json.loads(out)["system"]["horizon"] == 3000


def test_breakdown_refuses_a_run_beyond_max_ticks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = HEADER + '[tasks.A]\npriority = 1\nperiod = 10\nbody = ["compute 1"]\n'
    path = write(tmp_path, "bd.toml", text)
    assert refused(capsys, "breakdown", str(path), "--vary", "A.wcet", "--max-ticks", "5") == (
        "priora: --vary A.wcet: at 1 ms one run computes for up to 7 ticks, more than 5: "
        "give [system] horizon in the file, or --max-ticks 7"
    )


# ---------------------------------------------------------------- idle stretches


def test_a_far_phase_is_skipped_not_stepped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 4 * 10^12 ticks of idle at 1 MHz: a tick at a time, days; skipped, at once.
    text = (
        '[system]\ntick_hz = 1000000\ntime_unit = "tick"\n'
        '[tasks.A]\npriority = 1\nphase = 4000000000000\nbody = ["compute 1", "delay 4294967294", "compute 1"]\n'
    )
    status, out, err = run(capsys, "simulate", str(write(tmp_path, "far.toml", text)), "--json")
    assert (status, err) == (0, "")
    job = json.loads(out)["jobs"][0]
    assert (job["release"], job["start"], job["finish"]) == (4000000000000, 4000000000000, 4004294967296)


# ---------------------------------------------------------------- cost models


@pytest.mark.parametrize(
    ("system", "line"),
    [
        (
            "cost_model = { tick_ns = 1000000 }",
            "[system.cost_model] tick_ns: the tick costs 1000000 ns, not less than the tick period "
            "(1000000 ns at tick_hz 1000)",
        ),
        (
            'cost_model = "measured"\ncpu_hz = 50000',
            "[system] cpu_hz: the tick costs 1840000 ns, not less than the tick period (1000000 ns at tick_hz 1000)",
        ),
    ],
)
def test_a_cost_model_that_cannot_progress_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], system: str, line: str
) -> None:
    path = write(tmp_path, "c.toml", HEADER + system + '\n[tasks.A]\npriority = 1\nbody = ["compute 1"]\n')
    assert refused(capsys, "simulate", str(path)) == (
        f"priora: {path}: {line}: the tick interrupt would take all the time and nothing else would ever run"
    )


def test_breakdown_refuses_a_cpu_hz_that_cannot_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "bd.toml", HEADER + '[tasks.A]\npriority = 1\nperiod = 10\nbody = ["compute 1"]\n')
    assert refused(
        capsys, "breakdown", str(path), "--vary", "A.wcet", "--cost-model", "measured", "--cpu-hz", "50000"
    ) == (
        "priora: --cpu-hz: 50000: the tick costs 1840000 ns, not less than the tick period (1000000 ns at "
        "tick_hz 1000): the tick interrupt would take all the time and nothing else would ever run"
    )


# ---------------------------------------------------------------- files read


def test_only_regular_files_of_bounded_size_are_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)  # no writer: opening it for reading would wait for one
    big = tmp_path / "big.toml"
    with big.open("wb") as f:
        f.truncate(16 * 2**20 + 1)
    cases = [
        (["simulate", "/dev/zero"], "priora: /dev/zero: not a regular file (a character device)"),
        (["analyze", str(tmp_path)], f"priora: {tmp_path}: not a regular file (a directory)"),
        (["simulate", str(fifo)], f"priora: {fifo}: not a regular file (a FIFO)"),
        (["simulate", str(big)], f"priora: {big}: longer than the limit of 16777216 bytes (16 MiB)"),
        (
            ["generate", "/dev/zero", "--out", str(tmp_path / "g")],
            "priora: /dev/zero: not a regular file (a character device)",
        ),
        (["campaign", "/dev/zero"], "priora: /dev/zero: not a regular file (a character device)"),
        (
            ["experiments", "--bench", "/dev/zero"],
            "priora: --bench: /dev/zero: not a regular file (a character device)",
        ),
    ]
    for argv, line in cases:
        assert refused(capsys, *argv) == line


# ---------------------------------------------------------------- numbers


def test_numbers_are_ascii_digits_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "i.toml", INVERSION)
    arabic = "\u0661\u0662"  # 12 in Arabic-Indic digits: int() and Decimal() take it
    body = write(tmp_path, "b.toml", HEADER + f'[tasks.A]\npriority = 1\nbody = ["compute {arabic}"]\n')
    cases = [
        (
            ["simulate", str(path), "--horizon", arabic],
            'priora: --horizon: must be a number, got "\\u0661\\u0662"',
        ),
        (
            ["simulate", str(body)],
            f'priora: {body}: [tasks.A] body[0]: compute time must be a number, got "\\u0661\\u0662"',
        ),
        (
            ["simulate", str(path), "--max-jobs", arabic],
            'priora: --max-jobs: must be a whole number in ASCII digits, got "\\u0661\\u0662"',
        ),
        (
            ["generate", "--out", str(tmp_path), "--count", arabic],
            'priora: --count: must be a whole number in ASCII digits, got "\\u0661\\u0662"',
        ),
        (
            ["generate", "--out", str(tmp_path), "--seed", "1.5"],
            'priora: --seed: must be a whole number in ASCII digits, got "1.5"',
        ),
        (
            ["breakdown", str(path), "--vary", f"L.body[{arabic[0]}]"],
            'priora: --vary L.body[\u0661]: unknown field "body[\u0661]" (expected wcet, period, deadline, '
            "section.MUTEX, body[i])",
        ),
        (
            ["campaign", "spec.toml", "--jobs", arabic],
            'priora: --jobs: must be a whole number in ASCII digits, got "\\u0661\\u0662"',
        ),
        (
            ["campaign", "rerun", "x.sqlite", arabic],
            'priora: ROW: must be a whole number in ASCII digits, got "\\u0661\\u0662"',
        ),
    ]
    for argv, line in cases:
        assert refused(capsys, *argv) == line


@pytest.mark.parametrize(
    ("value", "line"),
    [
        ("inf", 'priora: --timeout: must be a finite number of seconds in ASCII digits, got "inf"'),
        ("nan", 'priora: --timeout: must be a finite number of seconds in ASCII digits, got "nan"'),
        ("1e400", "priora: --timeout: must be a finite number of seconds, got 1e400"),
        ("-2", "priora: --timeout: must be > 0 seconds, got -2"),
        ("\u0661", 'priora: --timeout: must be a finite number of seconds in ASCII digits, got "\\u0661"'),
    ],
)
def test_run_timeout_is_a_finite_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, line: str
) -> None:
    path = write(tmp_path, "i.toml", INVERSION)
    assert refused(capsys, "run", str(path), "--target", "qemu-rv32", "--timeout", value) == line


# ---------------------------------------------------------------- outputs


def test_an_output_is_never_an_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "i.toml", INVERSION)
    (tmp_path / "link.json").symlink_to(path)
    os.link(path, tmp_path / "hard.svg")
    for option, out in (("--trace", "link.json"), ("--gantt", "hard.svg")):
        target = tmp_path / out
        assert refused(capsys, "simulate", str(path), option, str(target)) == (
            f"priora: {option}: {target} is the input file {path}: refusing to write over it"
        )
    assert path.read_text() == INVERSION

    spec = write(tmp_path, "set-0000.toml", "[generator]\ntasks = 3\n")
    assert refused(capsys, "generate", str(spec), "--out", str(tmp_path)) == (
        f"priora: --out: {spec} is the input file {spec}: refusing to write over it"
    )
    bench = write(tmp_path, "experiments.json", "{}")
    assert refused(capsys, "experiments", "--bench", str(bench), "--out", str(tmp_path)) == (
        f"priora: --out: {bench} is the input file {bench}: refusing to write over it"
    )
    campaign = write(tmp_path, "c.sqlite", "[generator]\n")
    assert refused(capsys, "campaign", str(campaign), "--db", str(campaign)) == (
        f"priora: --db: {campaign} is the input file {campaign}: refusing to write over it"
    )


def test_a_full_disk_leaves_no_partial_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from priora.trace import chrome_trace

    def half_then_enospc(result: Any, path: Path, **options: Any) -> None:
        path.write_text('{"traceEvents": [')
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(chrome_trace, "write", half_then_enospc)
    path = write(tmp_path, "i.toml", INVERSION)
    out = tmp_path / "out.json"
    assert refused(capsys, "simulate", str(path), "--trace", str(out)) == (
        f"priora: --trace: cannot write {out}: No space left on device"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["i.toml"]  # no out.json, no temporary file
    out.write_text("before")
    refused(capsys, "simulate", str(path), "--trace", str(out))
    assert out.read_text() == "before"


def test_replacing_keeps_a_symlink_and_gives_the_usual_mode(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    outputs.write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask


# ---------------------------------------------------------------- bench and experiments


def test_bench_json_is_relative_to_the_callers_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[list[str]] = []

    class Child:
        def __init__(self, argv: list[str], **kwargs: Any) -> None:
            seen.append(argv)
            self.stderr = iter(["== rv32 trace off\n"])

        def wait(self) -> int:
            return 0

    monkeypatch.setattr(subprocess, "Popen", Child)
    monkeypatch.chdir(tmp_path)
    status, _, err = run(capsys, "bench", "--arch", "rv32", "--json", "b.json", "--json=c.json")
    assert (status, err) == (0, "== rv32 trace off\n")
    assert seen[0][1:] == [
        "--arch",
        "rv32",
        "--json",
        str(tmp_path / "b.json"),
        f"--json={tmp_path / 'c.json'}",
    ]


def bench_py() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "riscv" / "bench.py"
    spec = importlib.util.spec_from_file_location("bench_py", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_py"] = module
    spec.loader.exec_module(module)
    return module


def test_bench_no_build_names_the_missing_image(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = bench_py()
    monkeypatch.setattr(bench, "ROOT", tmp_path)
    with pytest.raises(RuntimeError) as err:
        bench.measure(bench.Build("rv32", False), False)
    assert str(err.value) == (
        f"--no-build: {tmp_path}/build/riscv/bench/rv32-trace0/bench_sem.elf is missing (13 of 13 images of "
        "rv32 trace off): build them first with scripts/bench.sh --arch rv32 --trace off (without --no-build)"
    )


@pytest.mark.parametrize(
    ("doc", "where"),
    [
        ([1], "the document: must be a JSON object of builds"),
        ({"rv64 trace on": {}}, '"rv32 trace on": missing: the default build\'s figures'),
        ({"rv32 trace on": {}}, '"rv32 trace on" figures: missing, or not an object'),
        (
            {"rv32 trace on": {"figures": {"yield_switch": {"per_op": 1}}}},
            '"rv32 trace on" figures yield_alone per_op: missing, or not a number',
        ),
        (
            {"x": {}, "rv32 trace on": {"figures": {}}},
            '"x": not a build (expected "rv32 trace on", "rv64 trace off", ...)',
        ),
    ],
)
def test_experiments_bench_names_the_missing_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: object, where: str
) -> None:
    path = write(tmp_path, "b.json", json.dumps(doc))
    assert refused(capsys, "experiments", "--bench", str(path), "--quick") == (
        f"priora: --bench: {path}: {where} (expected the output of scripts/bench.sh --json)"
    )


# ---------------------------------------------------------------- analyze on long bodies


def test_analyze_of_a_long_body() -> None:
    """4,000 sections a body (12,000 actions): linear now, where the rcs
    abort cost walked the whole body for each lock of each section. Each of
    H's locks may wait for L's recovery (2); L's interference by H adds the
    section H aborts (1) and that wait, per section."""
    from priora.analysis import analyze

    n = 4_000
    body = ", ".join(['"lock S"', '"compute 1"', '"unlock S"'] * n)
    text = (
        HEADER
        + 'protocol = "rcs"\n[resources.S]\nkind = "mutex"\nrecovery = 2\n'
        + f"[tasks.H]\npriority = 2\nperiod = 1000000\nbody = [{body}]\n"
        + f"[tasks.L]\npriority = 1\nperiod = 2000000\nbody = [{body}]\n"
    )
    result = analyze(parse(text, "long.toml"), ["pip", "rcs"])
    figures = {
        p: {name: (t.blocking, t.response) for name, t in r.tasks.items()}
        for p, r in result.protocols.items()
    }
    assert figures == {
        "pip": {"H": (1, n + 1), "L": (0, 2 * n)},
        "rcs": {"H": (2 * n, 3 * n), "L": (0, n + n + 2 * n + n)},
    }


def test_tables_and_ctf_never_over_the_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--csv DIR and --ctf DIR write files of their own names: never over FILE."""
    tables = tmp_path / "tables"
    tables.mkdir()
    path = write(tables, "tasks.csv", INVERSION)  # a scenario file that happens to be named so
    assert refused(capsys, "simulate", str(path), "--csv", str(tables)) == (
        f"priora: --csv: {path} is the input file {path}: refusing to write over it"
    )
    stream = write(tmp_path, "stream", INVERSION)
    assert refused(capsys, "simulate", str(stream), "--ctf", str(tmp_path)) == (
        f"priora: --ctf: {stream} is the input file {stream}: refusing to write over it"
    )
    assert (path.read_text(), stream.read_text()) == (INVERSION, INVERSION)

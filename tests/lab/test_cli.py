"""The `priora` command: run in process through main(argv), and once through
the installed console script in a child process.

The scenario is the classic inversion (see test_report.py for the schedule
worked out tick by tick): H's response is 11 ms without inheritance and 6 ms
with it.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import types
from pathlib import Path

import jsonschema
import pytest

import priora
from priora.cli import main as cli_main
from priora.cli.commands.simulate import horizon_ticks
from priora.cli.main import main
from priora.cli.options import plain_arguments
from priora.errors import PrioraError
from priora.report.json_document import schema
from priora.run.simulate import SimResult
from priora.scenario.model import Scenario

INVERSION = """\
[system]
tick_hz = 1000
time_unit = "ms"
protocol = "pip"

[resources.S]
kind = "mutex"

[tasks.L]
priority = 1
body = ["lock S", "compute 4", "unlock S", "compute 1"]

[tasks.H]
priority = 3
phase = 1
body = ["compute 1", "lock S", "compute 1", "unlock S", "compute 1"]

[tasks.M]
priority = 2
phase = 2
body = ["compute 5"]
"""


@pytest.fixture
def inversion(tmp_path: Path) -> Path:
    path = tmp_path / "inversion.toml"
    path.write_text(INVERSION)
    return path


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text('[system]\ntick_hz = 1000\ntime_unit = "ms"\n[tasks.H\npriority = 1\n')
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def one_line_error(err: str) -> str:
    """The single `priora: ...` line a user error prints, no traceback."""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("priora: ")
    return lines[0]


def job_of(document: dict[str, object], task: str) -> dict[str, object]:
    jobs = document["jobs"]
    assert isinstance(jobs, list)
    return next(j for j in jobs if j["task"] == task)


# ---------------------------------------------------------------- simulate


def test_simulate_prints_the_text_report(capsys: pytest.CaptureFixture[str], inversion: Path) -> None:
    status, out, err = run(capsys, "simulate", str(inversion))
    assert (status, err) == (0, "")
    assert out.startswith("Jobs\n")
    for title in ("\nTasks\n", "\nResources\n", "\nSystem\n"):
        assert title in out
    # H (file protocol pip): release 1, start 1, finish 7, response 6, blocked 3, inverted 3
    assert ["H", "1", "1", "1", "7", "6", "-", "no", "3", "3", "0", "0"] in [
        line.split() for line in out.splitlines()
    ]


def test_simulate_json_validates(capsys: pytest.CaptureFixture[str], inversion: Path) -> None:
    status, out, err = run(capsys, "simulate", str(inversion), "--json")
    assert (status, err) == (0, "")
    document = json.loads(out)
    jsonschema.validate(document, schema(), cls=jsonschema.Draft202012Validator)
    h = job_of(document, "H")
    assert (h["response"], h["blocked"], h["inverted"], h["missed"]) == (6, 3, 3, False)
    assert document["system"]["protocol"] == "pip"
    assert document["resources"]["S"]["longest_hold"] == 5


@pytest.mark.parametrize(
    ("protocol", "response", "inverted", "hold"),
    [("none", 11, 8, 10), ("pip", 6, 3, 5)],
)
def test_protocol_overrides_the_file(
    capsys: pytest.CaptureFixture[str],
    inversion: Path,
    protocol: str,
    response: int,
    inverted: int,
    hold: int,
) -> None:
    status, out, _ = run(capsys, "simulate", str(inversion), "--json", "--protocol", protocol)
    assert status == 0
    document = json.loads(out)
    h = job_of(document, "H")
    assert (h["response"], h["inverted"]) == (response, inverted)
    assert document["resources"]["S"]["protocol"] == protocol
    assert document["resources"]["S"]["longest_hold"] == hold
    assert document["system"]["protocol"] == protocol


def test_horizon_cuts_the_run(capsys: pytest.CaptureFixture[str], inversion: Path) -> None:
    # Without --horizon the run goes on until nothing can happen (13 ms).
    _, out, _ = run(capsys, "simulate", str(inversion), "--json")
    system = json.loads(out)["system"]
    assert (system["horizon"], system["stopped"]) == (13, "quiescent")
    # Cut at 6 ms: H (5..7) is unfinished, M (released at 2) never ran.
    status, out, _ = run(capsys, "simulate", str(inversion), "--json", "--horizon", "6")
    assert status == 0
    document = json.loads(out)
    assert (document["system"]["horizon"], document["system"]["stopped"]) == (
        6,
        "horizon",
    )
    assert job_of(document, "H")["finish"] is None
    assert job_of(document, "M")["start"] is None
    jsonschema.validate(document, schema())


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("0", "must be > 0"),
        ("-3", "must be > 0"),
        (
            "0.5",
            "0.5 ms is not representable in ticks (a tick is 1 ms at tick_hz 1000)",
        ),
        ("abc", "must be a number"),
        ("nan", "must be a number"),
        ("1/2", "must be a number"),
        ("", "must be a number"),
        ("1e30", "1e30 ms (1000000000000000000000000000000 ticks) exceeds the limit of 4611686018427 ticks"),
        ("1e99", "out of range"),
    ],
)
def test_bad_horizon_is_a_user_error(
    capsys: pytest.CaptureFixture[str], inversion: Path, value: str, reason: str
) -> None:
    status, out, err = run(capsys, "simulate", str(inversion), "--horizon", value)
    assert (status, out) == (2, "")
    line = one_line_error(err)
    assert line.startswith("priora: --horizon: ") and reason in line


@pytest.mark.parametrize("value", ["0", "-3", "0.5", "5000000000000", "7.25"])
def test_horizon_is_refused_as_in_the_file(
    capsys: pytest.CaptureFixture[str], inversion: Path, tmp_path: Path, value: str
) -> None:
    # --horizon T and [system] horizon = T give the same reason (one parser, scenario.parse_time).
    status, _, err = run(capsys, "simulate", str(inversion), "--horizon", value)
    assert status == 2
    in_file = tmp_path / "horizon.toml"
    in_file.write_text(INVERSION.replace("[system]\n", f"[system]\nhorizon = {value}\n"))
    file_status, _, file_err = run(capsys, "simulate", str(in_file))
    assert file_status == 2
    prefix = f"priora: {in_file}: [system] horizon: "
    assert one_line_error(file_err).startswith(prefix)
    assert one_line_error(err) == "priora: --horizon: " + one_line_error(file_err)[len(prefix) :]


def test_horizon_in_ticks_is_exact(inversion: Path) -> None:
    from priora.scenario.loader import load

    scenario: Scenario = load(inversion)
    assert horizon_ticks(scenario, "6") == 6
    assert horizon_ticks(scenario, "1e1") == 10
    assert horizon_ticks(scenario.with_horizon(1), "2.000") == 2
    fine = Scenario(
        scenario.source,
        type(scenario.system)(10_000, "ms", None, "pip"),
        scenario.resources,
        scenario.tasks,
    )
    assert horizon_ticks(fine, "0.1") == 1  # 0.1 ms at 10 kHz: one tick, exactly
    assert horizon_ticks(fine, "2.5") == 25
    with pytest.raises(PrioraError, match=r"a tick is 0\.1 ms at tick_hz 10000"):
        horizon_ticks(fine, "0.05")


def test_protocol_pip_on_a_fifo_mutex_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "fifo.toml"
    path.write_text(
        INVERSION.replace('protocol = "pip"', 'protocol = "none"').replace(
            'kind = "mutex"', 'kind = "mutex"\norder = "fifo"'
        )
    )
    assert run(capsys, "simulate", str(path))[0] == 0
    status, out, err = run(capsys, "simulate", str(path), "--protocol", "pip")
    assert (status, out) == (2, "")
    assert one_line_error(err).startswith(f"priora: {path}: [resources.S] order: ")
    for protocol in ("pcp", "ipcp", "rcs"):
        status, out, err = run(capsys, "simulate", str(path), "--protocol", protocol)
        assert (status, out) == (2, "")
        assert one_line_error(err) == (
            f'priora: {path}: [resources.S] order: protocol "{protocol}" needs order "priority" '
            "(the kernel refuses it on a FIFO mutex)"
        )
    for protocol in ("none", "npcs"):  # FIFO waiters are fine there
        assert run(capsys, "simulate", str(path), "--protocol", protocol)[0] == 0


PROTOCOLS_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "protocols.toml"


@pytest.mark.parametrize(
    ("protocol", "h_response", "ceiling"),
    [("none", 8, None), ("pip", 7, None), ("pcp", 5, 4), ("ipcp", 4, 4), ("npcs", 4, 255), ("rcs", 3, None)],
)
def test_every_protocol_from_the_command_line(
    capsys: pytest.CaptureFixture[str], protocol: str, h_response: int, ceiling: int | None
) -> None:
    # examples/protocols.toml (tests/lab/test_examples.py works each run out).
    status, out, err = run(capsys, "simulate", str(PROTOCOLS_EXAMPLE), "--json", "--protocol", protocol)
    assert (status, err) == (0, "")
    document = json.loads(out)
    assert job_of(document, "H")["response"] == h_response
    assert [r["ceiling"] for r in document["resources"].values()] == [ceiling, ceiling]
    assert document["system"]["protocol"] == protocol
    assert document["system"]["aborts"] == (2 if protocol == "rcs" else 0)


def test_a_ceiling_below_a_locker_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "ceiling.toml"
    path.write_text(INVERSION.replace('kind = "mutex"', 'kind = "mutex"\nceiling = 2'))
    status, out, err = run(capsys, "simulate", str(path), "--protocol", "pcp")
    assert (status, out) == (2, "")
    assert one_line_error(err) == (
        f"priora: {path}: [resources.S] ceiling: 2 is below the priority 3 of task H, which locks S: "
        "the kernel would refuse H's lock with PR_ECEILING; give at least 3, or no ceiling to have it computed"
    )


PRIMES = (4294967291, 4294967279, 4294967231)  # hyperperiod: their product, about 2^96 ticks


@pytest.fixture
def huge_hyperperiod(tmp_path: Path) -> Path:
    path = tmp_path / "primes.toml"
    path.write_text(
        "".join(f'[tasks.T{i}]\nperiod = {p}\nbody = ["compute 1"]\n' for i, p in enumerate(PRIMES))
    )
    return path


def test_default_horizon_beyond_the_clock(capsys: pytest.CaptureFixture[str], huge_hyperperiod: Path) -> None:
    # Was an OverflowError traceback from the kernel call; now the file is refused.
    status, out, err = run(capsys, "simulate", str(huge_hyperperiod))
    assert (status, out) == (2, "")
    assert one_line_error(err) == (
        f"priora: {huge_hyperperiod}: [system] horizon: the default horizon (the hyperperiod "
        f"{PRIMES[0] * PRIMES[1] * PRIMES[2]} ticks plus the largest phase 0) exceeds the limit "
        "of 4611686018427 ticks: give a horizon"
    )


def test_horizon_option_stands_for_the_default_horizon(
    capsys: pytest.CaptureFixture[str], huge_hyperperiod: Path, tmp_path: Path
) -> None:
    # With --horizon (or a horizon in the file), the default one is never used.
    status, out, err = run(capsys, "simulate", str(huge_hyperperiod), "--json", "--horizon", "10")
    assert (status, err) == (0, "")
    assert json.loads(out)["system"]["horizon"] == 10
    in_file = tmp_path / "with_horizon.toml"
    in_file.write_text("[system]\nhorizon = 10\n" + huge_hyperperiod.read_text())
    status, out, err = run(capsys, "simulate", str(in_file), "--json")
    assert (status, err) == (0, "")
    assert json.loads(out)["system"]["horizon"] == 10


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[system]\ntick_hz = 2000000\n[tasks.T]\npriority = 1\nbody = ["compute 1"]\n',
            "[system] tick_hz: must be at most 1000000 (the kernel's range is 1..1000000), got 2000000",
        ),
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", "malformed TOML: nested too deeply"),
    ],
    ids=["tick_hz_beyond_the_kernel", "nested_too_deeply"],
)
def test_file_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str
) -> None:
    # Were: "the kernel refused tick_hz 2000000: PR_EINVAL" (no file, no field),
    # and a RecursionError traceback from tomllib.
    path = tmp_path / "refused.toml"
    path.write_text(text)
    status, out, err = run(capsys, "simulate", str(path))
    assert (status, out) == (2, "")
    assert one_line_error(err) == f"priora: {path}: {message}"


def test_bad_file_one_line_naming_it(capsys: pytest.CaptureFixture[str], bad: Path) -> None:
    status, out, err = run(capsys, "simulate", str(bad))
    assert (status, out) == (2, "")
    assert str(bad) in one_line_error(err)


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    status, _, err = run(capsys, "simulate", str(missing))
    assert status == 2
    assert str(missing) in one_line_error(err)


@pytest.mark.parametrize(
    ("option", "name", "reason"),
    [
        ("--gantt", "chart.gif", "must end with .png or .svg or .pdf"),
        ("--gantt", "chart", "must end with .png or .svg or .pdf"),
        ("--trace", "trace.txt", "must end with .json"),
        ("--gantt", "no/such/dir/chart.png", "does not exist"),
        ("--trace", "no/such/dir/trace.json", "does not exist"),
    ],
)
def test_bad_output_is_refused_before_running(
    capsys: pytest.CaptureFixture[str],
    inversion: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    option: str,
    name: str,
    reason: str,
) -> None:
    ran: list[object] = []
    monkeypatch.setattr("priora.run.simulate.simulate", lambda *a: ran.append(a))
    status, out, err = run(capsys, "simulate", str(inversion), option, str(tmp_path / name))
    assert (status, out, ran) == (2, "", [])
    line = one_line_error(err)
    assert line.startswith(f"priora: {option}: ") and reason in line


def fake_writer(monkeypatch: pytest.MonkeyPatch, module: str, function: str, calls: list[Path]) -> None:
    """Replaces priora.<module> by a stand-in whose <function>(result, path)
    writes a marker, so the CLI's wiring is tested apart from the drawing."""

    def write(result: SimResult, path: Path, **options: object) -> None:
        assert isinstance(result, SimResult)
        calls.append(path)
        path.write_text("written")

    fake = types.ModuleType(f"priora.{module}")
    setattr(fake, function, write)
    monkeypatch.setitem(sys.modules, f"priora.{module}", fake)
    package, name = module.rsplit(".", 1)
    monkeypatch.setattr(importlib.import_module(f"priora.{package}"), name, fake, raising=False)


def test_gantt_and_trace_are_written(
    capsys: pytest.CaptureFixture[str],
    inversion: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[Path] = []
    fake_writer(monkeypatch, "pictures.gantt", "draw", calls)
    fake_writer(monkeypatch, "trace.chrome_trace", "write", calls)
    chart, trace = tmp_path / "chart.SVG", tmp_path / "trace.json"
    status, out, _ = run(
        capsys,
        "simulate",
        str(inversion),
        "--json",
        "--gantt",
        str(chart),
        "--trace",
        str(trace),
    )
    assert status == 0
    # Each written to a temporary file beside it, with its suffix, then renamed (priora.outputs).
    assert [
        (p.parent, p.name.startswith(f".{want.name}."), p.suffix)
        for p, want in zip(calls, (chart, trace), strict=True)
    ] == [
        (tmp_path, True, ".SVG"),
        (tmp_path, True, ".json"),
    ]
    assert (chart.read_text(), trace.read_text()) == ("written", "written")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chart.SVG", "inversion.toml", "trace.json"]
    assert json.loads(out)["system"]["jobs"] == 3  # the report is still printed


def test_unwritable_output_is_a_user_error(
    capsys: pytest.CaptureFixture[str],
    inversion: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(result: SimResult, path: Path, **options: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    fake = types.ModuleType("priora.trace.chrome_trace")
    fake.write = refuse  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "priora.trace.chrome_trace", fake)
    monkeypatch.setattr(importlib.import_module("priora.trace"), "chrome_trace", fake, raising=False)
    status, out, err = run(capsys, "simulate", str(inversion), "--trace", str(tmp_path / "t.json"))
    assert (status, out) == (2, "")
    assert "cannot write" in one_line_error(err)


def test_missing_matplotlib_hurts_only_gantt(
    capsys: pytest.CaptureFixture[str],
    inversion: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails
    monkeypatch.setitem(sys.modules, "priora.pictures.gantt", None)
    monkeypatch.delattr(importlib.import_module("priora.pictures"), "gantt", raising=False)
    status, _, err = run(capsys, "simulate", str(inversion), "--gantt", str(tmp_path / "g.png"))
    assert status == 2
    assert one_line_error(err).startswith("priora: --gantt: ")
    assert run(capsys, "simulate", str(inversion))[0] == 0


def test_matplotlib_missing_at_drawing_time(
    capsys: pytest.CaptureFixture[str],
    inversion: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def draw(result: SimResult, path: Path) -> None:
        raise ModuleNotFoundError("No module named 'matplotlib'", name="matplotlib")

    fake = types.ModuleType("priora.pictures.gantt")
    fake.draw = draw  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "priora.pictures.gantt", fake)
    monkeypatch.setattr(importlib.import_module("priora.pictures"), "gantt", fake, raising=False)
    status, out, err = run(capsys, "simulate", str(inversion), "--gantt", str(tmp_path / "g.svg"))
    assert (status, out) == (2, "")
    assert one_line_error(err) == "priora: --gantt needs matplotlib: No module named 'matplotlib'"


def test_real_gantt_and_trace(capsys: pytest.CaptureFixture[str], inversion: Path, tmp_path: Path) -> None:
    pytest.importorskip("priora.pictures.gantt")
    pytest.importorskip("priora.trace.chrome_trace")
    chart, trace = tmp_path / "chart.png", tmp_path / "trace.json"
    status, _, err = run(capsys, "simulate", str(inversion), "--gantt", str(chart), "--trace", str(trace))
    assert (status, err) == (0, "")
    assert chart.stat().st_size > 0
    json.loads(trace.read_text())


# ---------------------------------------------------------------- demo


def test_demo_prints_what_run_returns(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[Path] = []

    def fake_run(out_dir: Path) -> str:
        seen.append(out_dir)
        return "side by side\n"

    fake = types.ModuleType("priora.cli.demo")
    fake.run = fake_run  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "priora.cli.demo", fake)
    monkeypatch.setattr(importlib.import_module("priora.cli"), "demo", fake, raising=False)
    assert run(capsys, "demo", "--out", str(tmp_path / "d")) == (
        0,
        "side by side\n",
        "",
    )
    assert run(capsys, "demo") == (0, "side by side\n", "")
    assert seen == [tmp_path / "d", Path("priora-demo")]


def test_demo_error_is_one_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(out_dir: Path) -> str:
        raise priora.NativeError("native kernel library not found at /x.so")

    fake = types.ModuleType("priora.cli.demo")
    fake.run = fail  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "priora.cli.demo", fake)
    monkeypatch.setattr(importlib.import_module("priora.cli"), "demo", fake, raising=False)
    status, _, err = run(capsys, "demo")
    assert status == 2
    assert one_line_error(err) == "priora: native kernel library not found at /x.so"


def test_demo_without_matplotlib(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def run_demo(out_dir: Path) -> str:
        raise ModuleNotFoundError("No module named 'matplotlib'", name="matplotlib")

    fake = types.ModuleType("priora.cli.demo")
    fake.run = run_demo  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "priora.cli.demo", fake)
    monkeypatch.setattr(importlib.import_module("priora.cli"), "demo", fake, raising=False)
    status, _, err = run(capsys, "demo")
    assert status == 2
    assert one_line_error(err) == "priora: demo needs matplotlib: No module named 'matplotlib'"


# ---------------------------------------------------------------- usage


@pytest.mark.parametrize(
    "argv",
    [
        ["frobnicate"],
        [],
        ["simulate"],
        ["simulate", "x.toml", "--protocol", "srp"],
        ["simulate", "x.toml", "--bogus"],
    ],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert "usage: priora" in err and "Traceback" not in err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "simulate", "--help")
    assert status == 0
    for option in ("--protocol", "--json", "--gantt", "--trace", "--horizon"):
        assert option in out


# ---------------------------------------------------------------- child processes


def console_script() -> Path:
    # scripts/setup.sh installs the package into the venv the tests run in, so
    # the command must be there: a missing one is an install failure.
    script = Path(sys.executable).parent / "priora"
    assert script.exists(), f"the priora console script is not installed at {script}"
    return script


def test_console_script(inversion: Path, bad: Path) -> None:
    priora_bin = console_script()
    ok = subprocess.run(
        [priora_bin, "simulate", inversion, "--json", "--protocol", "none"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (ok.returncode, ok.stderr) == (0, "")
    assert job_of(json.loads(ok.stdout), "H")["response"] == 11
    failed = subprocess.run([priora_bin, "simulate", bad], capture_output=True, text=True, check=False)
    assert (failed.returncode, failed.stdout) == (2, "")
    assert str(bad) in one_line_error(failed.stderr)
    usage = subprocess.run([priora_bin, "nonsense"], capture_output=True, text=True, check=False)
    assert usage.returncode == 2 and "Traceback" not in usage.stderr


# The program's end (priora.cli.main.run_command): Python's exit less the
# modules' teardown, or Python's own exit when a thread may be running.
END_OF = """
import atexit, sys
atexit.register(lambda: print("atexit ran", file=sys.stderr))
if sys.argv[1] == "threading":
    import threading
sys.argv[1:] = sys.argv[2:]
from priora.cli.main import run_command
run_command()
"""


@pytest.mark.parametrize("threads", ["none", "threading"])
def test_the_program_ends_as_pythons_exit_would(
    capsys: pytest.CaptureFixture[str], inversion: Path, bad: Path, threads: str
) -> None:
    def program(*argv: str | Path) -> tuple[int, str, str]:
        child = subprocess.run(
            [sys.executable, "-c", END_OF, threads, *map(str, argv)],
            capture_output=True,
            text=True,
            check=False,
        )
        return child.returncode, child.stdout, child.stderr

    report = run(capsys, "simulate", str(inversion))[1]
    # The whole report through a pipe (the buffered output flushed), the atexit handlers run.
    assert program("simulate", inversion) == (0, report, "atexit ran\n")
    assert program("--version") == (0, f"priora {priora.__version__}\n", "atexit ran\n")
    status, out, err = program("simulate", bad)
    assert (status, out) == (2, "") and err.endswith("\natexit ran\n") and str(bad) in err
    deadlock = Path(__file__).resolve().parents[2] / "examples" / "deadlock.toml"
    status, out, err = program("simulate", deadlock, "--strict")
    assert (status, out.startswith("Jobs\n")) == (1, True)
    assert "\npriora: strict: " in "\n" + err and err.endswith("\natexit ran\n")


# A command line of positionals alone is read without argparse
# (priora.cli.options.plain_arguments): exactly as argparse reads it.
@pytest.mark.parametrize("command", sorted(set(cli_main.COMMANDS) - set(cli_main.PASSED_ON)))
@pytest.mark.parametrize("given", [[], ["f.toml"], ["f.toml", "g.toml"], ["--json", "f.toml"], ["-"]])
def test_a_plain_command_line_is_read_as_argparse_reads_it(command: str, given: list[str]) -> None:
    options, handler = cli_main._module(command).arguments(command)
    plain = plain_arguments(command, options, handler, given)
    try:
        parsed: dict[str, object] | None = vars(cli_main._parser(command).parse_args([command, *given]))
    except SystemExit:  # a usage error, or a line argparse reads another way
        parsed = None
    if plain is None:
        return  # argparse's, with its messages
    assert parsed is not None and vars(plain) == parsed


def test_plain_command_lines_take_the_plain_path() -> None:
    """The lines users type most are read without argparse."""
    for command, given in (
        ("simulate", ["f.toml"]),
        ("analyze", ["f.toml"]),
        ("trace", ["x.log"]),
        ("demo", []),
    ):
        options, handler = cli_main._module(command).arguments(command)
        assert plain_arguments(command, options, handler, given) is not None
    options, handler = cli_main._module("simulate").arguments("simulate")
    for given in (["f.toml", "--json"], ["--help"], [], ["-f.toml"]):
        assert plain_arguments("simulate", options, handler, given) is None


def test_python_dash_m(inversion: Path) -> None:
    child = subprocess.run(
        [sys.executable, "-m", "priora", "simulate", inversion],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (child.returncode, child.stderr) == (0, "")
    assert child.stdout.startswith("Jobs\n")


def test_the_commands_names_are_the_modules_names() -> None:
    """The CLI spells these out so that it starts without importing their
    modules (benchmarks/cli_startup.py): they must stay the same."""
    from priora.analysis import blocking
    from priora.breakdown import search as breakdown
    from priora.cli import options as cli
    from priora.cli.commands import breakdown as breakdown_command
    from priora.costs import model as costs
    from priora.scenario import bounds, model

    assert cli.PROTOCOLS == model.PROTOCOLS
    assert cli.ANALYSIS_PROTOCOLS == blocking.PROTOCOLS
    assert (cli.DEFAULT_MAX_JOBS, cli.DEFAULT_MAX_TICKS, cli.DEFAULT_MAX_ACTIONS) == (
        bounds.DEFAULT_MAX_JOBS,
        bounds.DEFAULT_MAX_TICKS,
        bounds.DEFAULT_MAX_ACTIONS,
    )
    assert breakdown_command.BREAKDOWN_MAX_JOBS == breakdown.MAX_JOBS_PER_RUN
    assert breakdown_command.COST_MODELS == tuple(costs.NAMES)

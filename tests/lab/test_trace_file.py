"""`priora trace FILE`: the trace of a real C program read back into the
lab's report and outputs: a host program built by CMake
(examples/trace_dump.c, pr_host_trace_dump) and a RISC-V image on QEMU
(tests/riscv/smoke_inversion.c's UART log); bad files give one line."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from priora.cli import main as cli
from priora.errors import NativeError
from priora.run import native, qemu_run, trace_decode, uart_trace

ROOT = Path(__file__).resolve().parents[2]
TRACE_DUMP = ROOT / "build" / "examples" / "trace_dump"  # scripts/build.sh builds it


def dump(tmp_path: Path, protocol: str) -> Path:
    """examples/trace_dump's dump of the inversion under `protocol`."""
    done = subprocess.run([str(TRACE_DUMP), protocol], capture_output=True, text=True, timeout=30, check=True)
    path = tmp_path / f"{protocol}.trace"
    path.write_text(done.stdout)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(["trace", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def report(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    status, out, err = run(capsys, *argv, "--json")
    assert (status, err) == (0, "")
    document: dict[str, Any] = json.loads(out)
    return document


def rows(document: dict[str, Any]) -> list[tuple[Any, ...]]:
    keys = ("task", "job", "release", "start", "finish", "deadline", "missed", "blocked", "inverted")
    return [tuple(j[k] for k in keys) for j in document["jobs"]]


# ---------------------------------------------------------------- a host program


def test_a_host_dump_without_inheritance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = report(capsys, str(dump(tmp_path, "none")))
    # H's deadline (6 ticks after its release) comes from the dump's N T line;
    # the others have none. M runs while H waits for L: H misses.
    assert rows(document) == [
        ("L", 1, 0, 0, 13, None, False, 0, 0),
        ("H", 1, 1, 1, 12, 7, True, 8, 8),
        ("M", 1, 2, 2, 7, None, False, 0, 0),
    ]
    assert document["resources"]["S"] == {
        "kind": "mutex", "protocol": "none", "downs": 2, "ups": 2, "most_waiters": 1, "longest_hold": 10,
        "ceiling": None, "aborts": 0,
    }  # fmt: skip
    system = document["system"]
    assert (system["context_switches"], system["priority_changes"], system["jobs"], system["misses"]) == (
        8,
        0,
        3,
        1,
    )
    assert document["provenance"]["target"] == "trace"


def test_a_host_dump_with_inheritance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = report(capsys, str(dump(tmp_path, "pip")))
    assert rows(document) == [
        ("L", 1, 0, 0, 13, None, False, 0, 0),
        ("H", 1, 1, 1, 7, 7, False, 3, 3),
        ("M", 1, 2, 7, 12, None, False, 0, 3),
    ]
    assert document["resources"]["S"]["protocol"] == "pip"
    assert document["resources"]["S"]["longest_hold"] == 5
    assert document["system"]["priority_changes"] == 2


def test_the_listing_is_the_host_ports_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, str(dump(tmp_path, "pip")), "--list", "--summary")
    assert (status, err) == (0, "")
    listing = out.split("\nTasks\n")[0].splitlines()
    assert listing == [
        "0 SEM_ALLOC - S ok", "0 TASK_CREATE L", "0 RELEASE L job=1", "0 TASK_CREATE H", "0 TASK_CREATE M",
        "0 SWITCH L<-idle", "0 DOWN L S ok value=0", "1 RELEASE H job=1", "1 SWITCH H<-L", "2 BLOCK H S ok",
        "2 PRIO L 1->3 inherit S", "2 SWITCH L<-H", "2 RELEASE M job=1", "5 PRIO L 3->1 release S",
        "5 WAKE H S ok", "5 UP L S ok value=0", "5 SWITCH H<-L", "5 DOWN H S ok value=0", "6 UP H S ok value=1",
        "7 JOB_DONE H job=1", "7 TASK_EXIT H", "7 SWITCH M<-H", "12 JOB_DONE M job=1", "12 TASK_EXIT M",
        "12 SWITCH L<-M", "13 JOB_DONE L job=1", "13 TASK_EXIT L", "13 SWITCH idle<-L",
    ]  # fmt: skip
    counts = Counter(line.split()[1] for line in listing)
    assert (counts["SWITCH"], counts["PRIO"], counts["DOWN"], counts["UP"], counts["BLOCK"]) == (
        7,
        2,
        2,
        2,
        1,
    )


def test_the_outputs_are_simulates_and_deterministic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = dump(tmp_path, "pip")
    written = []
    out = tmp_path / "out"
    out.mkdir()
    for _ in (1, 2):
        status, _, err = run(
            capsys, str(source), "--gantt", str(out / "g.svg"), "--trace", str(out / "t.json"),
            "--ctf", str(out / "ctf"), "--html", str(out / "r.html"),
        )  # fmt: skip
        assert (status, err) == (0, "")
        written.append([(out / name).read_bytes() for name in ("g.svg", "t.json", "ctf/stream", "r.html")])
    assert written[0] == written[1]
    perfetto = json.loads(written[0][1])
    names = {e["args"]["name"] for e in perfetto["traceEvents"] if e.get("name") == "thread_name"}
    assert names == {"CPU", "H (p3)", "M (p2)", "L (p1)", "mutex S"}
    assert b"a recorded trace (priora trace)" in written[0][0]


def test_a_scenario_file_gives_its_units_and_checks_the_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = dump(tmp_path, "pip")
    document = report(capsys, str(source), "--scenario", str(ROOT / "examples" / "inversion.toml"))
    assert document["system"]["time_unit"] == "ms"
    assert [j["finish"] for j in document["jobs"]] == [13, 7, 12]
    other = tmp_path / "other.toml"
    other.write_text((ROOT / "examples" / "inversion.toml").read_text().replace("tasks.H]", "tasks.X]"))
    status, out, err = run(capsys, str(source), "--scenario", str(other))
    assert (status, out) == (2, "")
    assert err == f"priora: --scenario: {other}: task 1 is X, the trace's is H\n"


# ---------------------------------------------------------------- a RISC-V image on QEMU


def smoke_log(tmp_path: Path) -> Path:
    """tests/riscv/smoke_inversion.c on QEMU RV32: the inversion with pip,
    then without; its UART names the objects and nothing else."""
    t = qemu_run.target("qemu-rv32")
    image = tmp_path / "images" / "smoke_inversion.elf"
    qemu_run._make(t.arch, image)
    flags = ["-machine", "virt", "-bios", "none", "-nographic", "-icount", "shift=0,sleep=off"]
    done = subprocess.run(
        [t.qemu, *flags, "-kernel", str(image)], capture_output=True, timeout=60, check=True
    )
    log = tmp_path / "uart.log"
    log.write_bytes(done.stdout)
    return log


def test_a_qemu_uart_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = smoke_log(tmp_path)
    status, out, err = run(capsys, str(log))
    assert (status, out) == (2, "")
    assert err == f"priora: {log}: 2 runs in it (pip, none): choose one with --run\n"
    by_protocol = {}
    for label in ("pip", "none"):
        document = report(capsys, str(log), "--run", label)
        # Times are QEMU's (instructions): the ticks they fall in are the host's.
        by_protocol[label] = [
            (j["task"], j["deadline"], j["missed"], int(j["finish"]), int(j["blocked"]))
            for j in document["jobs"]
        ]
        # No attributes on the UART: the mutex and its protocol are read from the records.
        assert document["resources"]["S"]["kind"] == "mutex"
        assert document["resources"]["S"]["protocol"] == label
    assert by_protocol == {
        "pip": [("L", None, False, 13, 0), ("H", None, False, 7, 3), ("M", None, False, 12, 0)],
        "none": [("L", None, False, 13, 0), ("H", None, False, 12, 8), ("M", None, False, 7, 0)],
    }
    run_pip = uart_trace.parse(log.read_text())[0]
    assert Counter(native.EVENT_NAME[e] for e in run_pip.records["event"].tolist()) == Counter(
        {"SWITCH": 7, "TASK_CREATE": 3, "RELEASE": 3, "JOB_DONE": 3, "TASK_EXIT": 3, "DOWN": 2, "UP": 2,
         "PRIO": 2, "SEM_ALLOC": 1, "BLOCK": 1, "WAKE": 1}
    )  # fmt: skip


# ---------------------------------------------------------------- bad files


@pytest.fixture
def good(tmp_path: Path) -> str:
    return dump(tmp_path, "pip").read_text()


def record_line(good: str, n: int) -> tuple[int, str]:
    """The line number (1-based) and text of record n's T line."""
    lines = good.splitlines()
    numbers = [i for i, line in enumerate(lines, 1) if line.startswith("T ")]
    return numbers[n], lines[numbers[n] - 1]


def bad(tmp_path: Path, good: str, case: str) -> tuple[Path, str]:
    path = tmp_path / "bad.trace"
    lines = good.splitlines()
    if case == "not a trace":
        path.write_text((ROOT / "examples" / "inversion.toml").read_text())
        return path, f"{path}: not a trace: no PRIORA-TRACE BEGIN ... END frame in it"
    if case == "truncated":
        path.write_text("\n".join(lines[:10]) + "\n")
        return (
            path,
            f"{path}: run pip: no END line (the image stopped in the middle of it): from line 1 to the end, line 10",
        )
    if case == "unknown event":
        number, line = record_line(good, 4)
        lines[number - 1] = line[:34] + "63" + line[36:]  # the event byte (offset 16)
        path.write_text("\n".join(lines) + "\n")
        return path, f"{path}: line {number}: unknown event code 99"
    if case == "malformed":
        number, line = record_line(good, 2)
        lines[number - 1] = line[:-2]
        path.write_text("\n".join(lines) + "\n")
        return path, f"{path}: line {number}: malformed trace line: {line[:-2]!r}"
    if case == "missing record":
        number, _ = record_line(good, 3)
        del lines[number - 1]
        path.write_text("\n".join(lines).replace("records=28", "records=27") + "\n")
        return (
            path,
            f"{path}: line {number}: record number 4, expected 3 (records are missing or out of order)",
        )
    if case == "attribute":
        number = next(i for i, line in enumerate(lines, 1) if line.startswith("N S 0 "))
        path.write_text(good.replace("kind=mutex", "kind=weird"))
        return path, f"{path}: line {number}: N S 0: kind=weird: expected mutex, counting, binary"
    assert case == "count"
    path.write_text(good.replace("records=28", "records=29"))
    return path, f"{path}: line 1: run pip: 28 records in it, its END line says 29"


@pytest.mark.parametrize(
    "case", ["not a trace", "truncated", "unknown event", "malformed", "missing record", "count", "attribute"]
)
def test_a_bad_file_is_one_line(
    tmp_path: Path, good: str, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path, message = bad(tmp_path, good, case)
    status, out, err = run(capsys, str(path))
    assert (status, out, err) == (2, "", f"priora: {message}\n")


def test_list_is_not_with_json(tmp_path: Path, good: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.trace"
    path.write_text(good)
    status, out, err = run(capsys, str(path), "--list", "--json")
    assert (status, out, err) == (
        2,
        "",
        "priora: --list: not with --json (the JSON document is the whole output)\n",
    )


# ---------------------------------------------------------------- the binding's constants and formatter


def test_a_constant_that_differs_from_the_library_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    lib = native.lib()
    path = native.library_path()
    native.check_constants(path, lib)  # as loaded
    monkeypatch.setitem(native.EVENT, "SWITCH", 5)
    with pytest.raises(NativeError) as error:
        native.check_constants(path, lib)
    assert str(error.value) == f"{path}: event SWITCH is 4 in C, 5 in priora/run/native.py: {native.REBUILD}"
    monkeypatch.setitem(native.EVENT, "SWITCH", 4)
    monkeypatch.setattr(native, "PR_EAGAIN", -7)
    with pytest.raises(NativeError) as error:
        native.check_constants(path, lib)
    assert (
        str(error.value)
        == f"{path}: error PR_EAGAIN is -6 in C, -7 in priora/run/native.py: {native.REBUILD}"
    )
    monkeypatch.setattr(native, "PR_EAGAIN", -6)
    monkeypatch.delitem(native.CAUSE_NAME, 8)
    with pytest.raises(NativeError) as error:
        native.check_constants(path, lib)
    assert (
        str(error.value)
        == f"{path}: cause message is 8 in C, missing in priora/run/native.py: {native.REBUILD}"
    )


def test_the_decoder_describes_every_event_as_the_host_does() -> None:
    """ABORT, CEILING and the condition variables' records, which the old
    Python decoder did not know, in the host port's words."""
    cases = [
        ((native.EVENT["ABORT"], 0, 0, 0, 1, 0, 0), "ABORT L S by=H"),
        ((native.EVENT["CEILING"], 1, 0, 0, 3, 0, 0), "CEILING H S ceiling=3 holder=L"),
        ((native.EVENT["COND_WAIT"], 1, 2, 0, 0, 0, 0), "COND_WAIT H C2 S ok"),
        ((native.EVENT["COND_SIGNAL"], 0, 2, 0, 1, 0, 2), "COND_BROADCAST L C2 ok woken=2"),
        ((native.EVENT["RECOVER"], 0, 0, 0, 1, 0, 0), "RECOVER L S for=H"),
        ((native.EVENT["SWITCH"], 0xFF, 1, 0, 2, 0, 0), "SWITCH idle<-H"),
    ]
    for key, text in cases:
        assert trace_decode.describe(key, {0: "L", 1: "H"}, {0: "S"}) == text


def test_a_time_prints_in_ticks_as_the_host_prints_it() -> None:
    record = np.zeros(1, dtype=native.TRACE_DTYPE)[0]
    record["event"], record["task"], record["object"] = native.EVENT["SWITCH"], 0, 0xFF
    for ns, hz, text in ((2_930_664_062, 1024, "3001"), (2_500_000, 1000, "2.5"), (2_250_000, 1000, "2.250")):
        record["time"] = ns
        assert native.format_record(record, hz) == f"{text} SWITCH T0<-idle"


def test_a_refused_call_is_a_warning_and_fails_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A trace with a refused lock (examples/deadlock.toml's records, dumped
    as a frame with names only): the report's warning, without the body."""
    from priora.run.simulate import simulate
    from priora.scenario.loader import load

    scenario = load(ROOT / "examples" / "deadlock.toml")
    result = simulate(scenario)
    lines = [f"PRIORA-TRACE BEGIN dl tick_hz={scenario.system.tick_hz}"]
    lines += ["T " + record.tobytes().hex() for record in result.trace]
    lines += [f"N T {i} {t.name}" for i, t in enumerate(scenario.tasks)]
    lines += [f"N S {i} {r.name}" for i, r in enumerate(scenario.resources)]
    lines += [f"PRIORA-TRACE END dl records={len(result.trace)} lost=0 end_ns={result.end_ns}"]
    path = tmp_path / "deadlock.trace"
    path.write_text("\n".join(lines) + "\n")
    status, out, err = run(capsys, str(path), "--strict", "--summary")
    warning = (
        'L job 1 at 4 tick: an action not found in the body: "lock B" refused with PR_EDEADLK: '
        "L wants B, held by H, which waits for A, held by L; the job goes on"
    )
    assert status == 1
    assert out.endswith(f"Warnings\n  {warning}\n")
    assert err == f"priora: strict: {warning}\n"


def test_a_kernel_test_programs_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """tests/kernel/test_rcs --trace (built by CMake): one run per case; an rcs
    abort read from a frame that names its objects and nothing more."""
    done = subprocess.run(
        [str(ROOT / "build" / "tests" / "kernel" / "test_rcs"), "--trace"],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    log = tmp_path / "test_rcs.log"
    log.write_text(done.stdout)
    document = report(capsys, str(log), "--run", "abort_then_recovery_then_retry.0")
    jobs = [(j["task"], j["finish"], j["errors"], j["aborts"], j["lost"]) for j in document["jobs"]]
    assert jobs == [("H", 8.005, 1, 1, 2.0005), ("U", 3.002, 0, 0, 0)]
    assert document["resources"]["S0"]["protocol"] == "rcs"
    assert (document["resources"]["S0"]["aborts"], document["resources"]["S0"]["longest_hold"]) == (1, 5.0025)

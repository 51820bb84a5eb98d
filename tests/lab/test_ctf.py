"""`--ctf DIR`: the kernel trace as CTF 1.8, read back by the real babeltrace2
(Debian's package, installed by the test command).

The scenario is examples/inversion.toml under pip, whose schedule its
comment works out: H (priority 3) blocks on S at 2 ms while L (priority 1)
holds it; L runs at 3 from 2 ms until it unlocks S at 5 ms.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from priora.cli.main import main
from priora.run import native
from priora.run.simulate import simulate
from priora.scenario.loader import load

ROOT = Path(__file__).resolve().parents[2]
INVERSION = ROOT / "examples" / "inversion.toml"
LINE = re.compile(r"^\[(\d+\.\d{9})\] \(\+[?.\d]+\) (\w+): \{ (.*) \}$")


def babeltrace2(*args: str) -> str:
    program = shutil.which("babeltrace2")
    assert program is not None, "babeltrace2 is not installed: scripts/install-packages.sh test babeltrace2"
    done = subprocess.run([program, *args], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def events(directory: Path) -> list[tuple[str, str, dict[str, int]]]:
    """(time in s, event name, fields) of every event babeltrace2 prints."""
    out = []
    for line in babeltrace2("--clock-seconds", str(directory)).splitlines():
        match = LINE.match(line)
        assert match is not None, line
        fields = {k: int(v) for k, v in (f.split(" = ") for f in match.group(3).split(", "))}
        out.append((match.group(1), match.group(2), fields))
    return out


def test_babeltrace2_reads_every_record_with_its_fields(tmp_path: Path) -> None:
    directory = tmp_path / "ctf"
    assert main(["simulate", str(INVERSION), "--ctf", str(directory)]) == 0
    read = events(directory)
    trace = simulate(load(INVERSION)).trace
    assert len(read) == len(trace) == 28
    assert [name for _, name, _ in read] == [native.EVENT_NAME[int(r["event"])] for r in trace]
    # L (task 0) inherits H's 3 at 2 ms through S (resource 0), cause inherit
    # (2), and drops back to 1 at 5 ms when it unlocks S, cause release (3).
    prio = [(t, f) for t, name, f in read if name == "PRIO"]
    assert prio == [
        ("0.002000000", {"task": 0, "via": 0, "result": 0, "old": 1, "new": 3, "cause": 2}),
        ("0.005000000", {"task": 0, "via": 0, "result": 0, "old": 3, "new": 1, "cause": 3}),
    ]
    # H (task 1) is switched in at 1 ms in place of L, which stays ready (1).
    assert ("0.001000000", "SWITCH", {"next_task": 1, "prev_task": 0, "result": 0, "prev_state": 1,
                                      "arg1": 0, "value": 0}) in read  # fmt: skip


def test_the_metadata_names_the_tasks_and_every_event_class(tmp_path: Path) -> None:
    directory = tmp_path / "ctf"
    assert main(["simulate", str(INVERSION), "--protocol", "none", "--ctf", str(directory)]) == 0
    text = babeltrace2("--output-format=ctf-metadata", str(directory))
    assert 'task_0 = "L";' in text and 'task_1 = "H";' in text and 'task_2 = "M";' in text
    assert 'resource_0 = "S";' in text and 'scenario = "inversion.toml";' in text
    for name, code in native.EVENT.items():
        assert f"name = {name};" in text and f"id = {code};" in text


def test_ctf_refuses_a_file_for_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "file"
    file.write_text("x")
    assert main(["simulate", str(INVERSION), "--ctf", str(file)]) == 2
    assert capsys.readouterr().err == f"priora: --ctf: {file}: not a directory\n"
    missing = tmp_path / "no" / "ctf"
    assert main(["simulate", str(INVERSION), "--ctf", str(missing)]) == 2
    assert capsys.readouterr().err == f"priora: --ctf: {missing}: directory {missing.parent} does not exist\n"
    assert file.read_text() == "x"

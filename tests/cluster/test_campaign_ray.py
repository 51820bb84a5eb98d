"""priora campaign --ray ADDRESS on a real Ray cluster: a head node with two
worker CPUs started by the test on this machine, the same campaign run
locally and through the cluster, the two databases compared row by row.

The cluster is started in a session of its own and stopped by killing that
session's processes, by id: `ray stop` would stop every Ray cluster of this
user on the machine, another test run's included. Every wait is bounded.

Ray binds its services to the machine's own network address, not to
loopback, whatever --node-ip-address says: so this file runs in a network
namespace whose only interface is loopback (scripts/test.sh:
`unshare --net sh -c 'ip link set lo up && pytest tests/cluster'`), where
the machine's address is loopback and no traffic leaves it. Run elsewhere,
it fails at once and says so.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from priora.run import native


def interfaces() -> list[str]:
    """The network interfaces of this process's network namespace."""
    return sorted(name for _, name in socket.if_nameindex())


if interfaces() != ["lo"]:
    pytest.fail(
        "tests/cluster runs Ray in a network namespace with loopback only (interfaces here: "
        f"{', '.join(interfaces()) or 'none'}): unshare --net sh -c "
        "'ip link set lo up && .venv/bin/pytest tests/cluster' (scripts/test.sh does it)",
        pytrace=False,
    )

ROOT = Path(__file__).resolve().parents[2]
RAY = Path(sys.executable).with_name("ray")
START_TIMEOUT = 120.0  # s: the head node up (a loaded machine takes tens of seconds)
RUN_TIMEOUT = 300.0  # s: a campaign through the cluster
STOP_GRACE = 10.0  # s between SIGTERM and SIGKILL

# 2 points x 3 sets x 3 protocols: every verdict kind, a few seconds of work.
SPEC = """\
[campaign]
seed = 11
sets = 3
protocols = ["none", "pip", "pcp"]

[campaign.axis]
parameter = "utilisation"
points = [0.6, 0.9]

[generator]
tasks = 4
periods = [10, 20, 25, 50]
mutexes = 2
section_length = [0.1, 0.3]
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def session_processes(session: int) -> list[int]:
    """The live processes of session `session` (field 6 of /proc/PID/stat;
    a zombie, state Z, has ended)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        # The command name, in parentheses, may hold spaces: count after it.
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[3]) == session and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def stop_session(session: int) -> list[int]:
    """SIGTERM to every process of the session, SIGKILL to those left after
    STOP_GRACE; returns those still there after that (none, normally)."""
    for sig, grace in ((signal.SIGTERM, STOP_GRACE), (signal.SIGKILL, 5.0)):
        for pid in session_processes(session):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + grace
        while session_processes(session) and time.monotonic() < deadline:
            time.sleep(0.2)
    return session_processes(session)


def cluster_env() -> dict[str, str]:
    """The head node's environment. Its workers would load a library that
    does not exist: the campaign works only if the driver's PRIORA_NATIVE_LIB
    reaches them (Ray's runtime_env), which is what the first test shows."""
    env = dict(os.environ)
    env["PRIORA_NATIVE_LIB"] = "/nonexistent/libpriora_lab.so"
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    return env


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """The address of a running head node with 2 CPUs, stopped at the end."""
    temp = tempfile.mkdtemp(prefix="priora-ray-")  # short: Ray's socket paths must fit 107 bytes
    port = free_port()
    log = Path(temp) / "ray-start.log"
    command = [
        str(RAY), "start", "--head", "--block", "--num-cpus", "2",
        "--node-ip-address", "127.0.0.1", "--port", str(port),
        "--dashboard-agent-listen-port", str(free_port()),
        "--object-store-memory", str(100 * 2**20),  # the least Ray takes: the rows are small
        "--include-dashboard", "false", "--disable-usage-stats", "--temp-dir", temp,
    ]  # fmt: skip
    with log.open("w") as out:
        head = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env=cluster_env(), start_new_session=True
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while "Ray runtime started" not in log.read_text():
            if head.poll() is not None:
                pytest.fail(f"ray start exited with status {head.returncode}:\n{log.read_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"ray start: not up after {START_TIMEOUT:g} s:\n{log.read_text()}")
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        left = stop_session(head.pid)
        head.wait(timeout=5)
        shutil.rmtree(temp, ignore_errors=True)
        assert not left, f"Ray processes left running: {left}"


def campaign(
    spec: Path, database: Path, *options: str, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "priora", "campaign", str(spec), "--db", str(database), *options]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=RUN_TIMEOUT, check=False)


def content(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as con:
        return con.execute("SELECT * FROM results ORDER BY row").fetchall()


def test_a_campaign_through_ray_fills_the_same_rows_as_on_local_processes(
    cluster: str, tmp_path: Path
) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    env = dict(os.environ, PRIORA_NATIVE_LIB=str(native.library_path()))
    local = campaign(spec, tmp_path / "local.sqlite", "--jobs", "2", env=env)
    assert local.returncode == 0, local.stderr
    ray = campaign(spec, tmp_path / "ray.sqlite", "--ray", cluster, env=env)
    assert ray.returncode == 0, ray.stderr
    rows = content(tmp_path / "ray.sqlite")
    assert len(rows) == 2 * 3 * 3
    assert rows == content(tmp_path / "local.sqlite")
    assert ray.stdout == local.stdout.replace("local.sqlite", "ray.sqlite")


def test_a_set_failing_on_a_worker_is_one_line(cluster: str, tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    env = {k: v for k, v in os.environ.items() if k != "PRIORA_NATIVE_LIB"}
    done = campaign(spec, tmp_path / "ray.sqlite", "--ray", cluster, env=env)
    assert done.returncode == 2
    # Ray's core may log its own warnings while it is imported (its search for
    # this machine's address, before any setting of the lab's applies): they
    # are its lines, "[date ...] file.cc:line: ...". The command's are one line.
    lines = [line for line in done.stderr.splitlines() if not re.match(r"\[\d{4}-\d\d-\d\d ", line)]
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert re.fullmatch(
        f"priora: --ray {cluster}: point [01] set [012] failed on a worker: native kernel library not found "
        r"at /nonexistent/libpriora_lab.so \(PRIORA_NATIVE_LIB\): fix or unset it",
        lines[0],
    ), lines[0]


def test_an_address_nobody_listens_on_is_one_line_at_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from priora.cli.main import main

    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    address = f"127.0.0.1:{free_port()}"
    assert main(["campaign", str(spec), "--db", str(tmp_path / "a.sqlite"), "--ray", address]) == 2
    assert capsys.readouterr().err == f"priora: --ray {address}: cannot connect: Connection refused\n"

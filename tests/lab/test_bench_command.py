"""`priora bench`: scripts/bench.sh of the source tree, its options passed through."""

from __future__ import annotations

import subprocess
import sys


def priora(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "priora", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_options_go_to_bench_py() -> None:
    done = priora("bench", "--help")
    assert done.returncode == 0
    assert done.stdout.startswith(
        "usage: bench.py [-h] [--arch ARCH] [--trace TRACE] [--no-build] [--json OUT]"
    )


def test_a_bad_option_is_one_line_and_status_2() -> None:
    done = priora("bench", "--arch", "rv99")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "priora: bench: bench.sh --arch rv99 failed with status 2: --arch takes rv32 and rv64, --trace off and on"
    )

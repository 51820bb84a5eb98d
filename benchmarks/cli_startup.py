"""Benchmark (not a test): how long the `priora` command takes to start.

Side by side, interleaved round by round so that a busy machine slows each
alike, the wall time of:

  python -c "import json"                  the interpreter's own start-up
  python -c "import numpy"                 numpy's import, which `simulate` needs
  priora --version                         the command, nothing run
  priora simulate examples/inversion.toml  the command with a run
  the run itself                           `simulate` inside a process that has
                                           already run it once: the kernel run, the
                                           report and its printing, no import

and, from the least time of each, the start-up of `simulate` (its time
less the run's) as a multiple of the interpreter's. The lab's goal is at most 1.5 times the interpreter
(docs/packaging.md). `python` is the interpreter of the `priora` command's
environment; Python writes its bytecode caches here, as it does for a user
(PYTHONDONTWRITEBYTECODE is dropped), and each command runs once first.

    .venv/bin/python benchmarks/cli_startup.py [--rounds N] [--priora PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "inversion.toml"

# Runs `priora simulate EXAMPLE` once (imports, kernel load), then times it
# RUNS more times in the same process and prints the best, in seconds.
WARM_RUN = """
import contextlib, io, sys, time
from priora.cli.main import main
argv = ["simulate", sys.argv[1]]
with contextlib.redirect_stdout(io.StringIO()):
    main(argv)
    best = float("inf")
    for _ in range(int(sys.argv[2])):
        start = time.perf_counter()
        main(argv)
        best = min(best, time.perf_counter() - start)
print(best)
"""


def wall(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=20, help="runs of each command (default: 20)")
    parser.add_argument(
        "--priora",
        type=Path,
        default=Path(sys.executable).with_name("priora"),
        help="the command to time (default: the one beside this interpreter)",
    )
    args = parser.parse_args()
    python = str(args.priora.with_name("python"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    commands = {
        'python -c "import json"': [python, "-c", "import json"],
        'python -c "import numpy"': [python, "-c", "import numpy"],
        "priora --version": [str(args.priora), "--version"],
        f"priora simulate {EXAMPLE.relative_to(ROOT)}": [str(args.priora), "simulate", str(EXAMPLE)],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():  # bytecode caches written, files in the page cache
        wall(command, env)
    for _ in range(args.rounds):
        for name, command in commands.items():
            times[name].append(wall(command, env))
    warm = subprocess.run(
        [python, "-c", WARM_RUN, str(EXAMPLE), str(args.rounds)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    run = float(warm.stdout)

    print(f"priora CLI start-up: {args.priora}, {args.rounds} rounds, wall time in ms")
    print(f"{'command':48} {'min':>7} {'median':>7}")
    for name, values in times.items():
        print(f"{name:48} {1e3 * min(values):7.1f} {1e3 * statistics.median(values):7.1f}")
    print(f"{'the run itself (in a warm process, best)':48} {1e3 * run:7.1f}")

    # The least of each: other work on the machine only ever adds time.
    def best(name: str) -> float:
        return min(times[name])

    baseline = best('python -c "import json"')
    simulate = best(f"priora simulate {EXAMPLE.relative_to(ROOT)}")
    numpy = best('python -c "import numpy"') - baseline
    print('\nminima as multiples of python -c "import json":')
    print(f"  priora --version                     {best('priora --version') / baseline:5.2f}x")
    print(f"  priora simulate                      {simulate / baseline:5.2f}x")
    print(f"  priora simulate less the run         {(simulate - run) / baseline:5.2f}x  (goal: 1.5x)")
    print(f"  ... and less numpy's import          {(simulate - run - numpy) / baseline:5.2f}x")
    print(f"  numpy's import alone                 {numpy / baseline:5.2f}x")


if __name__ == "__main__":
    main()

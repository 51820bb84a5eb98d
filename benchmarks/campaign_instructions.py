"""Benchmark (not a test): the reference campaign set's cost in instructions.

On a shared machine the sets per second of benchmarks/campaign_speed.py move
by a fifth from one round to the next; the instructions a set takes do not.
This runs `priora.campaign.evaluate` on the reference set (campaign_speed.py's
SPEC) under valgrind's callgrind, once for one set and once for SETS + 1, and
prints the difference per set: the whole evaluation (generation, the loader,
the six-protocol analysis, the six kernel runs and their verdicts), Python
and C alike, with the imports and the first set's warm-up left out. Each
run takes about ten seconds.

    .venv/bin/python benchmarks/campaign_instructions.py [--sets N] [--lab DIR --library SO]

--lab and --library measure another tree (its lab/ and its libpriora_lab.so,
built as scripts/setup.sh builds them), for a side-by-side count.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The same addresses each run (objects' default hashes are their addresses,
# and set orders follow them), when util-linux's setarch is there.
NO_RANDOM_ADDRESSES = ["setarch", os.uname().machine, "-R"] if shutil.which("setarch") else []

EVALUATE = """
import importlib, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from campaign_speed import SPEC
from priora.campaign import load
evaluation = importlib.import_module("priora.campaign.evaluate")
spec = Path(tempfile.gettempdir()) / "priora-campaign-instructions" / "spec.toml"  # the same path each run
spec.parent.mkdir(exist_ok=True)
spec.write_text(SPEC)
campaign = load(spec)
for index in range(int(sys.argv[2]) + 1):  # set 0 warms up: the first call's imports and loads
    evaluation.evaluate(campaign, 0, index)
"""


def instructions(sets: int, env: dict[str, str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [
                *NO_RANDOM_ADDRESSES,
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={tmp}/out",
                sys.executable,
                "-c",
                EVALUATE,
                str(ROOT / "benchmarks"),
                str(sets),
            ],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        sys.exit(f"campaign_instructions.py: callgrind failed: {done.stderr.strip()[-400:]}")
    return int(found[1].replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sets", type=int, default=4, help="sets counted (default: 4)")
    parser.add_argument("--lab", type=Path, default=ROOT / "lab", help="the lab/ directory to measure")
    parser.add_argument(
        "--library",
        type=Path,
        default=ROOT / "build" / "lab" / "libpriora_lab.so",
        help="its native library (default: this checkout's build/lab/libpriora_lab.so)",
    )
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("campaign_instructions.py: valgrind is not installed (apt-get install valgrind)")
    if args.sets < 1:
        sys.exit(f"campaign_instructions.py: --sets: must be >= 1, got {args.sets}")
    # The same hash seed, addresses and spec path each time: dict and set
    # layouts, and so the interpreter's instructions, are then the same from
    # run to run.
    env = {**os.environ, "PYTHONPATH": str(args.lab), "PRIORA_NATIVE_LIB": str(args.library)}
    env["PYTHONHASHSEED"] = "0"
    # numpy's BLAS threads spin between calls, and callgrind counts their
    # spinning: one thread (a campaign's worker uses one core anyway).
    env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = "1"
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # Once without valgrind: the bytecode caches written, which a first run
    # would count (the other tree's are new).
    subprocess.run([sys.executable, "-c", EVALUATE, str(ROOT / "benchmarks"), "0"], env=env, check=True)
    one = instructions(1, env)
    many = instructions(args.sets + 1, env)
    print(f"reference campaign set, {args.lab} with {args.library}")
    print(f"instructions per set: {(many - one) / args.sets / 1e6:.1f} million ({args.sets} sets counted)")


if __name__ == "__main__":
    main()

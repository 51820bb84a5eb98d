"""Benchmark (not a test): how many campaign sets one core evaluates per second.

The reference set: 10 tasks and 3 mutexes from `priora generate`
(UUniFast-Discard at U = 0.7, periods from {10, 20, 25, 50, 100} ms, 1 or 2
sections per job of 5-20% of C, nesting depth 2), evaluated as `priora
campaign` evaluates a set: the response-time analysis under the six
protocols and six kernel runs of 10 s (about 27,000 jobs in all). The
benchmark evaluates SETS such sets (set indices 1..SETS of the same point,
after one warm-up set), one process, and prints the rate and where the time
goes (analysis, kernel runs, the rest), from the least of ROUNDS rounds, in
wall time or (--cpu) in the process's CPU time.

    .venv/bin/python benchmarks/campaign_speed.py [--sets N] [--rounds N] [--cpu]
"""

from __future__ import annotations

import argparse
import importlib
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from priora.campaign import load

evaluation = importlib.import_module("priora.campaign.evaluate")  # the module, not its function

SPEC = """
[campaign]
title = "reference set: 10 tasks, 3 mutexes, six protocols, 10 s"
seed = 7
sets = 100
protocols = ["none", "pip", "pcp", "ipcp", "npcs", "rcs"]
run = ["analysis", "simulation"]
horizon = 10000

[campaign.axis]
parameter = "utilisation"
points = [0.7]

[generator]
tasks = 10
utilisation_method = "uunifast-discard"
task_utilisation_max = 0.5
periods = [10, 20, 25, 50, 100]
deadlines = "implicit"
priorities = "rm"
mutexes = 3
sections_per_job = [1, 2]
section_length = [0.05, 0.2]
nesting_depth = 2
sharing = "all"
"""


def timed(spent: dict[str, float], key: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = CLOCK()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[key] += CLOCK() - start

    return wrapper


CLOCK = time.perf_counter  # --cpu: time.process_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sets", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="the process's CPU time instead of wall time (steadier on a machine shared with other work)",
    )
    args = parser.parse_args()
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "reference.toml"
        spec.write_text(SPEC)
        campaign = load(spec)
    spent = {"analysis": 0.0, "simulation": 0.0}
    evaluation._analysis = timed(spent, "analysis", evaluation._analysis)  # type: ignore[method-assign]
    evaluation._simulation = timed(spent, "simulation", evaluation._simulation)  # type: ignore[method-assign]
    evaluation.evaluate(campaign, 0, 0)  # warm-up: imports, the kernel library
    best: tuple[float, dict[str, float], int] | None = None
    for _ in range(args.rounds):
        for key in spent:
            spent[key] = 0.0
        jobs = 0
        start = CLOCK()
        for index in range(1, args.sets + 1):
            jobs += sum(int(row.get("jobs") or 0) for row in evaluation.evaluate(campaign, 0, index))
        total = CLOCK() - start
        if best is None or total < best[0]:
            best = (total, dict(spent), jobs)
    assert best is not None
    total, parts, jobs = best
    rest = total - parts["analysis"] - parts["simulation"]
    clock = "CPU time" if args.cpu else "wall time"
    print(f"sets: {args.sets}, jobs per set: {jobs / args.sets:,.0f}, best of {args.rounds} rounds, {clock}")
    print(f"sets per second (one core): {args.sets / total:.1f}")
    for key, value in (("analysis", parts["analysis"]), ("kernel runs", parts["simulation"]), ("rest", rest)):
        print(f"  {key:<12} {1000 * value / args.sets:7.1f} ms per set ({100 * value / total:4.1f}%)")


if __name__ == "__main__":
    main()

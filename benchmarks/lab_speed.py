"""Benchmark (not a test): simulated jobs per second through the lab's Python API.

A ten-task periodic set without resources (periods 10..100 ms, total
utilisation 0.70, rate-monotonic priorities) goes from a validated model to
per-task results: `simulate` (the kernel on the host port, its trace, the C job
accounting) then per-task maximum response, blocking, inversion and misses
computed from the job rows. It prints jobs and trace events per second of wall
time, best of a few runs, for a short and a long horizon.

    .venv/bin/python benchmarks/lab_speed.py
"""

from __future__ import annotations

import time

import numpy as np

from priora import native
from priora.model import Action, Scenario, System, Task
from priora.simulate import SimResult, simulate

PERIODS = (10, 20, 25, 40, 50, 50, 80, 100, 100, 100)  # ms


def task_set() -> Scenario:
    tasks = tuple(
        Task(
            name=f"T{i}",
            priority=31 - i,
            period=p,
            phase=0,
            deadline=p,
            body=(Action("compute", ticks=max(1, round(p * 0.07))),),
        )
        for i, p in enumerate(PERIODS)
    )
    return Scenario("benchmark", System(1000, "ms", None, "pip"), (), tasks)


def per_task(result: SimResult) -> dict[int, tuple[int, int, int, int]]:
    """(max response, max blocked, max inverted, misses) per task, in ns."""
    jobs = result.jobs
    done = jobs[jobs["finish"] != native.NEVER]
    out = {}
    for t in range(len(result.scenario.tasks)):
        mine, finished = jobs[jobs["task"] == t], done[done["task"] == t]
        response = int(np.max(finished["finish"] - finished["release"])) if len(finished) else 0
        out[t] = (
            response,
            int(np.max(mine["blocked"], initial=0)),
            int(np.max(mine["inverted"], initial=0)),
            int(np.count_nonzero(mine["missed"] == 1)),
        )
    return out


def measure(scenario: Scenario, horizon_ticks: int, runs: int) -> tuple[float, int, int]:
    best = float("inf")
    jobs = events = 0
    for _ in range(runs):
        start = time.perf_counter()
        result = simulate(scenario, horizon_ticks)
        per_task(result)
        best = min(best, time.perf_counter() - start)
        jobs, events = len(result.jobs), len(result.trace)
    return best, jobs, events


def main() -> None:
    scenario = task_set()
    simulate(scenario, 100)  # load the library once, outside the timing
    print("lab simulation speed: 10 periodic tasks, U = 0.70, end to end through priora.simulate")
    print(
        f"{'horizon (ms)':>14} {'jobs':>10} {'events':>10} {'wall (s)':>10} {'jobs/s':>12} {'events/s':>12}"
    )
    for horizon, runs in ((2_000, 20), (200_000, 5), (2_000_000, 3)):
        wall, jobs, events = measure(scenario, horizon, runs)
        print(
            f"{horizon:>14} {jobs:>10} {events:>10} {wall:>10.4f} {jobs / wall:>12.0f} {events / wall:>12.0f}"
        )


if __name__ == "__main__":
    main()

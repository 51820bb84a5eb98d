"""Benchmark (not a test): simulated jobs per second through the lab's Python API.

A ten-task periodic set without resources (periods 10..100 ms, total
utilisation 0.70, rate-monotonic priorities) goes from a validated model to
its report, the path of the lab's speed requirement (at least 500,000
simulated jobs per second, docs/performance.md):

  model to report   `simulate` (the kernel on the host port, its trace, the C
                    job accounting) then `build_report` (every job, task,
                    resource and system figure in the file's unit), timed as
                    one; its `simulate` part is shown too
  report_json       the JSON document of that report (`priora simulate
                    --json` prints it), timed on its own

It prints jobs per second of wall time for each (and kernel trace events per
second from model to report), best of a few runs, for a short, a medium and a
long horizon (the long one: 595,000 jobs).

    .venv/bin/python benchmarks/lab_speed.py
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from priora.report.build import build_report
from priora.run.simulate import simulate
from priora.scenario.model import Action, Scenario, System, Task

try:
    from priora.report.json_document import report_json
except ImportError:  # a commit from before the JSON document had its module (side_by_side.py)
    from priora.report.build import report_json  # type: ignore[attr-defined,no-redef]

PERIODS = (10, 20, 25, 40, 50, 50, 80, 100, 100, 100)  # ms
HORIZONS = ((2_000, 20), (200_000, 5), (2_000_000, 3))  # (ms, runs)


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


@dataclass
class Timing:
    jobs: int = 0
    events: int = 0
    simulate: float = float("inf")  # best of the runs, s
    to_report: float = float("inf")  # simulate + build_report, best of the runs
    json: float = float("inf")  # report_json alone, best of the runs


def measure(scenario: Scenario, horizon_ticks: int, runs: int) -> Timing:
    best = Timing()
    for _ in range(runs):
        start = time.perf_counter()
        result = simulate(scenario, horizon_ticks)
        simulated = time.perf_counter()
        report = build_report(result)
        reported = time.perf_counter()
        report_json(report)
        done = time.perf_counter()
        best.simulate = min(best.simulate, simulated - start)
        best.to_report = min(best.to_report, reported - start)
        best.json = min(best.json, done - reported)
        best.jobs, best.events = len(result.jobs), len(result.trace)
    return best


def main() -> None:
    scenario = task_set()
    report_json(build_report(simulate(scenario, 100)))  # load the library once, outside the timing
    print("lab speed: 10 periodic tasks, U = 0.70, through the Python API (best of several runs)")
    print("  model to report = simulate + build_report; report_json timed on its own")
    print(
        f"{'horizon (ms)':>12} {'jobs':>9} {'events':>9} {'simulate (s)':>12} {'to report (s)':>13}"
        f" {'jobs/s':>10} {'events/s':>10} {'json (s)':>9} {'json jobs/s':>11}"
    )
    for horizon, runs in HORIZONS:
        t = measure(scenario, horizon, runs)
        print(
            f"{horizon:>12} {t.jobs:>9} {t.events:>9} {t.simulate:>12.4f} {t.to_report:>13.4f}"
            f" {t.jobs / t.to_report:>10.0f} {t.events / t.to_report:>10.0f}"
            f" {t.json:>9.4f} {t.jobs / t.json:>11.0f}"
        )


if __name__ == "__main__":
    main()

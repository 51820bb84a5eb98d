"""Benchmark (not a test): `priora analyze` against the length of the bodies.

Two periodic tasks share one mutex; each body repeats `lock S`, `compute 1`,
`unlock S` until it has N actions. The benchmark times the analysis of every
protocol (`priora.analysis.analyze`, what `priora analyze FILE` runs after
reading the file), best of a few runs, and prints the time per action, which
stays flat when the analysis is linear in the body's length
(docs/performance.md, "Analysis: body length").

    .venv/bin/python benchmarks/analyze_body_length.py
"""

from __future__ import annotations

import time

from priora.analysis import analyze
from priora.scenario.model import Action, Resource, Scenario, System, Task

LENGTHS = ((1_200, 5), (12_000, 3), (120_000, 1))  # (actions per body, runs)


def task_set(actions: int) -> Scenario:
    section = (Action("lock", resource="S"), Action("compute", ticks=1), Action("unlock", resource="S"))
    body = section * (actions // len(section))
    return Scenario(
        source="analyze_body_length",
        system=System(tick_hz=1000, time_unit="ms", horizon=None, protocol="pip"),
        resources=(Resource(name="S", kind="mutex", protocol="pip", initial=1, max=1, order="priority"),),
        tasks=(
            Task(name="A", priority=2, period=10_000_000, phase=0, deadline=10_000_000, body=body),
            Task(name="B", priority=1, period=20_000_000, phase=0, deadline=20_000_000, body=body),
        ),
    )


def main() -> None:
    print("| actions per body | analyze, every protocol (s) | us per action |")
    print("| ---: | ---: | ---: |")
    for actions, runs in LENGTHS:
        scenario = task_set(actions)
        best = float("inf")
        for _ in range(runs):
            start = time.perf_counter()
            analyze(scenario)
            best = min(best, time.perf_counter() - start)
        print(f"| {actions:,} | {best:.2f} | {best / (2 * actions) * 1e6:.1f} |")


if __name__ == "__main__":
    main()

"""Benchmark (not a test): the time of a Gantt chart of about ten thousand jobs.

Three periodic tasks sharing a mutex under pip (periods 5, 7 and 11 ms, 96%
of the CPU, so the least urgent task misses now and then) run for 23.06 s of
virtual time: 9,999 jobs. The benchmark times, best of a few runs:

  run and report   `simulate` then `build_report` and `report_text` (what
                   `priora simulate FILE` does before printing)
  chart            `gantt.draw` of that run to PNG, SVG and PDF (the whole
                   run: aggregated), and to PNG over `--window miss` (a
                   detailed window around the first miss); each includes
                   reading the timeline from the trace and the plan of the
                   chart, also timed on their own

and prints each one's wall and CPU time with the file's size. With --out DIR it keeps the
charts there (docs/gantt-10000-jobs.png is the PNG of the whole run).

    .venv/bin/python benchmarks/chart_speed.py [--out DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from priora.pictures import gantt
from priora.pictures.gantt_model import AXIS_SHARE, DPI, Window, default_size, plan
from priora.report.build import build_report
from priora.report.text import report_text
from priora.run.simulate import SimResult, simulate
from priora.scenario.model import Action, Resource, Scenario, System, Task
from priora.trace.timeline import extract

HORIZON_MS = 23_060
RUNS = 3


def scenario() -> Scenario:
    def body(*text: str) -> tuple[Action, ...]:
        actions = []
        for item in text:
            word, arg = item.split()
            actions.append(Action("compute", ticks=int(arg)) if word == "compute" else Action(word, arg))
        return tuple(actions)

    tasks = (
        Task("A", 3, 5, 0, None, body("compute 1", "lock S", "compute 1", "unlock S")),
        Task("B", 2, 7, 0, None, body("compute 2")),
        Task("C", 1, 11, 0, None, body("lock S", "compute 2", "unlock S", "compute 1")),
    )
    mutex = Resource("S", "mutex", "pip", 1, None, "priority")
    return Scenario("chart_speed.toml", System(1000, "ms", HORIZON_MS, "pip"), (mutex,), tasks)


def best(step: Callable[[], object]) -> str:
    """The best wall time and the best CPU time of RUNS runs (on a loaded
    machine the CPU time is the steadier)."""
    wall, cpu = [], []
    for _ in range(RUNS):
        start, start_cpu = time.perf_counter(), time.process_time()
        step()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return f"{min(wall):>8.3f} {min(cpu):>8.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, help="keep the charts in this directory")
    args = parser.parse_args()
    model = scenario()
    result: SimResult = simulate(model)

    def run_and_report() -> None:
        report_text(build_report(simulate(model)))

    jobs = len(result.jobs)
    misses = int(result.jobs["missed"].sum())
    print(f"{jobs} jobs, {misses} missed, {len(result.trace)} trace records, best of {RUNS} runs")
    print(f"{'step':<28} {'wall (s)':>8} {'CPU (s)':>8} {'file (KB)':>10}")
    print(f"{'run and report':<28} {best(run_and_report)}")
    timeline = extract(result)
    print(f"{'  timeline (in each chart)':<28} {best(partial(extract, result))}")
    axis = AXIS_SHARE * default_size(timeline, 0, timeline.end, 0)[0] * DPI
    print(f"{'  plan (in each chart)':<28} {best(partial(plan, timeline, axis_pixels=axis, dpi=DPI))}")
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        charts: list[tuple[str, str, Window | None]] = [
            ("chart PNG (whole run)", "gantt-10000-jobs.png", None),
            ("chart SVG (whole run)", "gantt-10000-jobs.svg", None),
            ("chart PDF (whole run)", "gantt-10000-jobs.pdf", None),
            ("chart PNG (--window miss)", "gantt-10000-jobs-miss.png", "miss"),
        ]
        for name, file, window in charts:
            path = out / file
            seconds = best(partial(gantt.draw, result, path, window=window))
            print(f"{name:<28} {seconds} {path.stat().st_size / 1000:>10.0f}")


if __name__ == "__main__":
    main()

"""Benchmark (not a test): this checkout against another commit, side by side.

Three figures of docs/performance.md, measured for both trees in one run,
round after round (the two trees alternate, so that a busy machine slows
each alike), each measurement in a fresh process:

  campaign   sets per second of the reference campaign set (10 tasks, 3
             mutexes, six-protocol analysis and six 10 s runs:
             benchmarks/campaign_speed.py's SPEC), one core
  report     simulate + build_report + report_json of the 595,000-job set
             (benchmarks/lab_speed.py's task set over 2,000,000 ms), jobs
             per second, and each step's time
  start-up   `priora simulate examples/inversion.toml`, the interpreter
             alone (`python -c "import json"`), wall time of the process, and
             the run itself (benchmarks/cli_startup.py's warm run: the
             command again in a process that ran it once)

Wall time and the process's CPU time are both given: on a machine shared
with other work, the CPU times vary much less from round to round.

The other tree is `git archive REV` (default: the commit this branch left
main at, `git merge-base HEAD main`) in a temporary
directory, its lab library built there with CMake (target priora_lab) and
its priora/_native_ffi.py written as a wheel's build writes it; each tree
runs with its own lab on PYTHONPATH and its own library
(PRIORA_NATIVE_LIB). Prints the best and the median of the rounds.

    .venv/bin/python benchmarks/side_by_side.py [--base REV] [--rounds N] [--only campaign,report,startup]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"

CAMPAIGN = """
import importlib, json, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from campaign_speed import SPEC
from priora.campaign import load
evaluation = importlib.import_module("priora.campaign.evaluate")
with tempfile.TemporaryDirectory() as tmp:
    spec = Path(tmp) / "reference.toml"
    spec.write_text(SPEC)
    campaign = load(spec)
evaluation.evaluate(campaign, 0, 0)
sets = int(sys.argv[2])
start, cpu = time.perf_counter(), time.process_time()
for index in range(1, sets + 1):
    evaluation.evaluate(campaign, 0, index)
print(json.dumps({
    "campaign sets per second (wall)": sets / (time.perf_counter() - start),
    "campaign sets per second (CPU)": sets / (time.process_time() - cpu),
}))
"""

# The `priora` program of either tree: the console script's code, which is
# run_command() since the program ends without the interpreter's teardown,
# main() before.
PROGRAM = """
import sys
import priora.cli.main as cli
run = getattr(cli, "run_command", None)
sys.exit(run() if run is not None else cli.main())
"""

REPORT = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from lab_speed import task_set
from priora.report.build import build_report
try:
    from priora.report.json_document import report_json
except ImportError:  # a commit from before the JSON document had its module
    from priora.report.build import report_json
from priora.run.simulate import simulate
scenario = task_set()
report_json(build_report(simulate(scenario, 100)))
def now():
    return time.perf_counter(), time.process_time()
start = now()
result = simulate(scenario, 2_000_000)
simulated = now()
report = build_report(result)
built = now()
document = report_json(report)
done = now()
jobs = len(result.jobs)
figures = {"jobs": jobs, "bytes": len(document)}
for k, clock in enumerate(("wall", "CPU")):
    figures |= {
        f"simulate ({clock}, s)": simulated[k] - start[k],
        f"build_report ({clock}, s)": built[k] - simulated[k],
        f"report_json ({clock}, s)": done[k] - built[k], f"the three ({clock}, s)": done[k] - start[k],
        f"jobs per second ({clock})": jobs / (done[k] - start[k]),
    }
print(json.dumps(figures))
"""


INTERPRETER = 'python -c "import json" (ms)'


def run_json(command: list[str], env: dict[str, str]) -> dict[str, float]:
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=env, cwd=ROOT).stdout
    values: dict[str, float] = json.loads(out.splitlines()[-1])
    return values


def wall(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env, cwd=ROOT)
    return time.perf_counter() - start


def build_base(rev: str, where: Path) -> Path:
    """`git archive rev` in `where`, its lab library and _native_ffi.py built."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    build = where / "build"
    quiet = {"stdout": subprocess.DEVNULL, "check": True}
    subprocess.run(["cmake", "-S", str(where), "-B", str(build), "-G", "Ninja"], **quiet)  # type: ignore[call-overload]
    subprocess.run(["cmake", "--build", str(build), "--target", "priora_lab"], **quiet)  # type: ignore[call-overload]
    write_ffi = (
        "import importlib.util, sys; from pathlib import Path; "
        "spec = importlib.util.spec_from_file_location('lab_setup', sys.argv[1] + '/lab/setup.py'); "
        "setup = importlib.util.module_from_spec(spec); spec.loader.exec_module(setup); "
        "setup.write_ffi_module(setup.read_cdef(Path(sys.argv[1]) / 'lab/priora/run/native.py'), "
        "Path(sys.argv[1]) / 'lab/priora/_native_ffi.py')"
    )
    subprocess.run([sys.executable, "-c", write_ffi, str(where)], **quiet)  # type: ignore[call-overload]
    return where


def environment(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree / "lab")
    env["PRIORA_NATIVE_LIB"] = str(tree / "build" / "lab" / "libpriora_lab.so")
    return env


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--base",
        help="the commit to compare with (default: where this branch left main, git merge-base HEAD main)",
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sets", type=int, default=20, help="campaign sets per measurement (default: 20)")
    parser.add_argument("--only", default="campaign,report,startup")
    args = parser.parse_args()
    if args.base is None:
        args.base = subprocess.run(
            ["git", "-C", str(ROOT), "merge-base", "HEAD", "main"], check=True, capture_output=True, text=True
        ).stdout.strip()
    wanted = set(args.only.split(","))
    python = sys.executable
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    base_rev = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", args.base],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {f"{base_rev}": build_base(args.base, Path(tmp)), f"this tree ({head}+)": ROOT}
        results: dict[str, dict[str, list[float]]] = {name: {} for name in trees}
        example = str(ROOT / "examples" / "inversion.toml")
        for tree in trees.values():  # bytecode caches written, libraries in the page cache
            wall([python, "-c", PROGRAM, "simulate", example], environment(tree))
        for _ in range(args.rounds):
            for name, tree in trees.items():
                env = environment(tree)
                figures: dict[str, float] = {}
                if "campaign" in wanted:
                    figures |= run_json([python, "-c", CAMPAIGN, str(BENCHMARKS), str(args.sets)], env)
                if "report" in wanted:
                    figures |= run_json([python, "-c", REPORT, str(BENCHMARKS)], env)
                if "startup" in wanted:
                    figures[INTERPRETER] = 1e3 * wall([python, "-c", "import json"], env)
                    figures["priora simulate examples/inversion.toml (ms)"] = 1e3 * wall(
                        [python, "-c", PROGRAM, "simulate", example], env
                    )
                    warm = [python, "-c", f"import sys; sys.path.insert(0, {str(BENCHMARKS)!r}); "
                            "from cli_startup import WARM_RUN; exec(WARM_RUN)", example, "5"]  # fmt: skip
                    out = subprocess.run(warm, check=True, capture_output=True, text=True, env=env, cwd=ROOT)
                    figures["the run itself (ms)"] = 1e3 * float(out.stdout)
                for key, value in figures.items():
                    results[name].setdefault(key, []).append(value)
    names = list(trees)
    print(f"side by side, {args.rounds} rounds, alternating; best and median of each")
    print(f"{'figure':48} " + " ".join(f"{n:>30}" for n in names))
    for key in results[names[0]]:
        higher = "per second" in key or key in ("jobs", "bytes")
        cells = []
        for n in names:
            values = results[n][key]
            best = max(values) if higher else min(values)
            cells.append(f"{best:>14,.4g} / {statistics.median(values):>13,.4g}")
        print(f"{key:48} " + " ".join(cells))
    if "startup" in wanted:
        print(
            '\nstart-up less the run, in interpreters (python -c "import json"), from the medians; goal 1.5:'
        )
        for n in names:
            median = {key: statistics.median(values) for key, values in results[n].items()}
            extra = median["priora simulate examples/inversion.toml (ms)"] - median["the run itself (ms)"]
            interpreter = median[INTERPRETER]
            print(f"  {n:30} {extra / interpreter:5.2f}")


if __name__ == "__main__":
    main()

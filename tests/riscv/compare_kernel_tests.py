"""The kernel's test programs on QEMU, compared with the host port, ignoring times.

Each program of tests/kernel (built for the host by CMake, and for QEMU by
`make -C ports/riscv ARCH=... ktests`, over tests/riscv/kernel/host_shim.c) runs
in trace mode (tests/kernel/harness.h): it prints the whole kernel trace of
every test case, one frame per kernel init. On the host the port charges a cost
for each switch and tick (pr_host_set_costs), as the hardware spends time
there, so that events at a tick's instant come in the hardware's order.

For every program and ISA this script checks that both runs exit with 0, that
every frame is well formed (no record lost, sequence numbers 0, 1, 2, ...), that
both give the same frames, and that each frame holds the same sequence of
events (event, task, object, result, arg0, arg1, value: everything but the
times). The first difference of a frame is printed with both listings around it.

    compare_kernel_tests.py --host build/tests/kernel --arch rv32 rv64 [--only test_chain]

Exit status: 0 if every program gives the same events on every ISA, 1 if not,
2 on a usage error (a missing program).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from decode_trace import Run, TraceError, describe, parse, problems, records, ticks

ROOT = Path(__file__).resolve().parents[2]
QEMU_FLAGS = ["-machine", "virt", "-bios", "none", "-nographic", "-icount", "shift=0,sleep=off"]
QEMU = {"rv32": "qemu-system-riscv32", "rv64": "qemu-system-riscv64"}
TIMEOUT_S = 60
CONTEXT = 4  # records shown before a difference


@dataclass(frozen=True)
class Outcome:
    program: str
    arch: str
    frames: int
    events: int
    failures: list[str]


def run_program(argv: list[str]) -> tuple[int, str]:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return 124, ""
    return done.returncode, done.stdout


def frames_of(text: str, where: str, failures: list[str]) -> dict[str, Run]:
    try:
        runs = parse(text)
    except TraceError as e:
        failures.append(f"{where}: {e}")
        return {}
    for run in runs:
        failures.extend(f"{where}: frame {run.label}: {p}" for p in problems(run, None))
    return {run.label: run for run in runs}


def first_difference(host: Run, qemu: Run) -> str:
    hk = [r.key() for r in records(host)]
    qk = [r.key() for r in records(qemu)]
    at = next((i for i, (a, b) in enumerate(zip(hk, qk, strict=False)) if a != b), min(len(hk), len(qk)))
    lo = max(0, at - CONTEXT)
    lines = [f"frame {host.label}: differs at event {at} ({len(hk)} events on the host, {len(qk)} on QEMU)"]
    for name, run in (("host", host), ("qemu", qemu)):
        lines.append(f"  {name}:")
        for r in records(run)[lo : at + CONTEXT]:
            lines.append(f"    {ticks(r.time, run.tick_hz):>9}  {describe(r.key(), run.tasks, run.sems)}")
    return "\n".join(lines)


def compare(program: str, arch: str, host_dir: Path, qemu_dir: Path) -> Outcome:
    failures: list[str] = []
    status, host_out = run_program([str(host_dir / program), "--trace"])
    if status != 0:
        failures.append(f"host: {program} --trace exited with {status}")
    elf = qemu_dir / f"{program}.elf"
    status, qemu_out = run_program([QEMU[arch], *QEMU_FLAGS, "-kernel", str(elf)])
    if status != 0:
        failures.append(f"qemu: {elf.name} exited with {status} (124 = timeout)")
    host = frames_of(host_out, "host", failures)
    qemu = frames_of(qemu_out, "qemu", failures)
    if list(host) != list(qemu):
        failures.append(f"frames differ: host {list(host)}, qemu {list(qemu)}")
    for label in host.keys() & qemu.keys():
        if [r.key() for r in records(host[label])] != [r.key() for r in records(qemu[label])]:
            failures.append(first_difference(host[label], qemu[label]))
    events = sum(len(r.records) for r in qemu.values())
    return Outcome(program, arch, len(qemu), events, failures)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--host", type=Path, default=ROOT / "build/tests/kernel", help="the host test programs"
    )
    parser.add_argument("--arch", nargs="+", choices=sorted(QEMU), default=sorted(QEMU))
    parser.add_argument("--only", nargs="+", metavar="PROGRAM", help="these programs only (default: all)")
    args = parser.parse_args(argv)

    programs = args.only or sorted(p.stem for p in (ROOT / "tests/kernel").glob("test_*.c"))
    jobs = [(p, a) for a in args.arch for p in programs]
    for program, arch in jobs:
        for path in (args.host / program, ROOT / f"build/riscv/{arch}/ktest/{program}.elf"):
            if not path.exists():
                print(f"compare_kernel_tests: {path}: no such program (build it first)", file=sys.stderr)
                return 2

    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(
            pool.map(
                lambda job: compare(job[0], job[1], args.host, ROOT / f"build/riscv/{job[1]}/ktest"), jobs
            )
        )
    failed = 0
    for o in outcomes:
        verdict = "same events" if not o.failures else "DIFFERENT"
        print(f"{o.arch}  {o.program:<22} {o.frames:>3} frames {o.events:>6} events  {verdict}")
        for f in o.failures:
            print("    " + f.replace("\n", "\n    "))
        failed += bool(o.failures)
    print(
        f"compare_kernel_tests: {len(outcomes) - failed} of {len(outcomes)} program runs give the host's events"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

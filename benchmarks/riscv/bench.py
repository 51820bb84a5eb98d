"""Builds and runs Priora's RISC-V microbenchmarks on QEMU and prints the tables.

Every benchmark is a bare-metal program, benchmarks/riscv/bench_*.c, built by
ports/riscv/Makefile and run under ``qemu-system-riscv32/64 -machine virt -bios none
-icount shift=0,sleep=off``, where minstret counts instructions: every figure is an
exact count of instructions (bench.h gives the method). Each program prints
``BENCH <name> key=value ...`` lines over the UART; this script collects them for each
ISA (rv32, rv64) and each build (tracing compiled out, ``PR_CONFIG_TRACE=0``, and
in), and prints the tables of docs/performance.md beside FreeRTOS's figures measured
the same way (shared/research/freertos-on-qemu.md).

    python3 benchmarks/riscv/bench.py                 # everything (scripts/bench.sh)
    python3 benchmarks/riscv/bench.py --arch rv32 --trace off
    python3 benchmarks/riscv/bench.py --json out.json

Standard library only (with the lab's own priora.tables and priora.provenance, which are
too). ``main(argv)`` returns the exit status (0: every program ran
and reported; 1: a build or a run failed). Benchmarks print; they never assert a
figure (the targets are shown beside the figures, not checked).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = (
    "bench_sem",
    "bench_pingpong",
    "bench_prodcons",
    "bench_inherit",
    "bench_chain",
    "bench_switch",
    "bench_tick",
    "bench_latency",
    "bench_protocols",
    "bench_msgq",
    "bench_events",
    "bench_swtimer",
)
# bench_wakeup needs 64 waiters besides two other tasks: its own build.
WAKEUP = "bench_wakeup"
WAKEUP_MAX_TASKS = 66
ARCHS = ("rv32", "rv64")
QEMU = {"rv32": "qemu-system-riscv32", "rv64": "qemu-system-riscv64"}
QEMU_FLAGS = ("-machine", "virt", "-bios", "none", "-nographic", "-icount", "shift=0,sleep=off")
TIMEOUT_S = 120

# FreeRTOS V11.3.0 on the same QEMU, GCC and flags, release configuration, tick masked
# in the timed windows (shared/research/freertos-on-qemu.md, section 1): RV32, RV64.
FREERTOS: dict[str, tuple[float, float]] = {
    "mutex_pair": (137, 137),
    "counting_pair": (106, 106),
    "pingpong_round": (798, 864),
    "pi_path": (863, 929),
    "nopi_path": (692, 758),
    "yield_switch": (128, 161),
    "tick": (131, 124),
}
# Queues, event groups and software timers, measured the same way (section 9 of the same
# note; common case of each figure): RV32, RV64.
FREERTOS_SERVICES: dict[str, tuple[float, float]] = {
    "msgq_pair": (172, 172),
    "msgq_pingpong": (926, 992),
    "msgq_isr": (348, 381),
    "events_pair": (181, 181),
    "events_wake": (635, 705),
    "timer_start": (944, 1130),
    "timer_callback": (394, 420),
}
# Their targets: at most 0.6 times FreeRTOS's RV32 figure, tracing compiled out.
SERVICE_TARGET_RATIO = 0.6
# The port's cost targets, on RV32 with tracing compiled out: at most this many instructions.
# With tracing compiled in: 0.6 times FreeRTOS's RV32 figure, rounded (TRACE_ON_TARGET).
TRACE_ON_TARGET = 0.6
TARGETS: dict[str, float] = {
    "mutex_pair": 50,
    "counting_pair": 45,
    "pingpong_round": 400,
    "pi_path": 450,
    "yield_switch": 80,
    "tick": 100,
}


@dataclass(frozen=True)
class Build:
    """One ISA with tracing compiled out or in."""

    arch: str
    trace: bool

    @property
    def label(self) -> str:
        return f"{self.arch} trace {'on' if self.trace else 'off'}"

    def directory(self, suffix: str = "") -> Path:
        return ROOT / "build" / "riscv" / "bench" / f"{self.arch}-trace{int(self.trace)}{suffix}"


@dataclass
class Results:
    """The BENCH lines of one build: name -> key -> value; series keep every line."""

    figures: dict[str, dict[str, str]] = field(default_factory=dict)
    series: dict[str, list[dict[str, str]]] = field(default_factory=dict)

    def add(self, name: str, values: dict[str, str]) -> None:
        self.figures[name] = values
        self.series.setdefault(name, []).append(values)

    def number(self, name: str, key: str = "per_op") -> float | None:
        value = self.figures.get(name, {}).get(key)
        return float(value) if value is not None else None


def parse(lines: Iterable[str]) -> Results:
    """The figures of ``BENCH name key=value ...`` lines; other lines are ignored."""
    results = Results()
    for line in lines:
        words = line.split()
        if len(words) < 2 or words[0] != "BENCH":
            continue
        values = dict(word.split("=", 1) for word in words[2:] if "=" in word)
        results.add(words[1], values)
    return results


def make(build: Build, targets: Sequence[str], suffix: str = "", extra: str = "") -> None:
    directory = build.directory(suffix)
    cflags = f"-DPR_CONFIG_TRACE={int(build.trace)} {extra}".strip()
    command = [
        "make",
        "-s",
        "-C",
        str(ROOT / "ports" / "riscv"),
        f"ARCH={build.arch}",
        f"BUILD={directory}",
        f"EXTRA_CFLAGS={cflags}",
        *(str(directory / f"{t}.elf") for t in targets),
    ]
    subprocess.run(command, check=True)


def run(build: Build, program: str, suffix: str = "") -> list[str]:
    image = build.directory(suffix) / f"{program}.elf"
    command = [QEMU[build.arch], *QEMU_FLAGS, "-kernel", str(image)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    lines = done.stdout.splitlines()
    if done.returncode != 0 or f"BENCH-END {program}" not in lines:
        tail = "\n".join(lines[-5:])
        raise RuntimeError(f"{program} ({build.label}) failed with status {done.returncode}:\n{tail}")
    return lines


def measure(build: Build, build_first: bool) -> Results:
    if build_first:
        make(build, PROGRAMS)
        make(build, (WAKEUP,), "-wakeup", f"-DPR_CONFIG_MAX_TASKS={WAKEUP_MAX_TASKS}")
    else:
        images = [build.directory() / f"{p}.elf" for p in PROGRAMS]
        images.append(build.directory("-wakeup") / f"{WAKEUP}.elf")
        missing = [image for image in images if not image.is_file()]
        if missing:
            trace = "on" if build.trace else "off"
            raise RuntimeError(
                f"--no-build: {missing[0]} is missing ({len(missing)} of {len(images)} images of "
                f"{build.label}): build them first with scripts/bench.sh --arch {build.arch} --trace {trace} "
                "(without --no-build)"
            )
    lines: list[str] = []
    for program in PROGRAMS:
        lines += run(build, program)
    lines += run(build, WAKEUP, "-wakeup")
    return parse(lines)


# ---- tables ----


def fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}" if value == int(value) else f"{value:,.2f}"


def _lab() -> None:
    """Makes the lab's modules importable: priora.tables and priora.provenance
    use the standard library only, so the system's python3 runs them too."""
    if str(ROOT / "lab") not in sys.path:
        sys.path.insert(0, str(ROOT / "lab"))


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table (the lab's priora.tables): the first column left-aligned, the others right."""
    _lab()
    from priora.tables import markdown_table

    columns = [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in header]
    return markdown_table(header, columns)


def fit(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares line y = slope * x + intercept."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    sxy = sum((x - mx) * (y - my) for x, y in points)
    slope = sxy / sxx if sxx else 0.0
    return slope, my - slope * mx


HEADLINE = (
    ("mutex_pair", "mutex down + up, uncontended (pip)"),
    ("counting_pair", "counting up + down, uncontended"),
    ("pingpong_round", "producer/consumer round: 2 downs, 2 ups, 2 switches"),
    ("pi_path", "inheritance path: HIGH blocks -> owns the mutex"),
    ("yield_switch", "switch, yield between equal priorities"),
    ("tick", "tick interrupt, no switch"),
)

OTHERS = (
    ("mutex_down", "per_op", "mutex down alone"),
    ("mutex_up", "per_op", "mutex up alone"),
    ("mutex_pair_none", "per_op", "mutex down + up, protocol none"),
    ("trydown_fail", "per_op", "failing try-down (PR_EAGAIN)"),
    ("alloc_free", "per_op", "alloc + free (counting semaphore)"),
    ("pingpong_round", "per_pair", "producer/consumer: per down-up pair (round / 2)"),
    ("nopi_path", "per_op", "the same path without inheritance (none)"),
    ("pi_split", "a", "inheritance path, part A: block, inherit, switch"),
    ("pi_split", "b", "inheritance path, part B: release, unboost, hand-off, switch"),
    ("pi_cost", "per_op", "what inheritance adds to the path"),
    ("yield_alone", "per_op", "yield with no other task at its priority"),
    ("tick_rr", "per_op", "tick interrupt, round robin on (quantum charged)"),
    ("tick_ts", "min", "tick interrupt, a time-sharing task running (usage charged, level kept)"),
    ("tick_ts", "max", "the same, the tick that moves its level"),
    ("irq_sem", "per_op", "interrupt to task: an interrupt ups a semaphore"),
    ("irq_tick", "per_op", "interrupt to task: the tick releases a periodic task"),
)


SERVICES = (
    ("msgq_pair", "queue send + receive, uncontended (4-byte message)"),
    ("msgq_pingpong", "queue ping-pong round: 2 sends, 2 receives, 2 switches"),
    ("msgq_isr", "interrupt's send wakes a task: trap -> its code after the receive"),
    ("events_pair", "event set + wait (any, clear on exit), uncontended"),
    ("events_wake", "event set waking a blocked waiter, per round"),
    ("timer_start", "start a one-shot timer that is not armed, from a task"),
    ("timer_callback", "tick at which a one-shot timer expires -> its action"),
)

SERVICE_OTHERS = (
    ("msgq_send", "queue send alone"),
    ("msgq_receive", "queue receive alone"),
    ("msgq_isr_round", "interrupt round trip: the store ... the task waits again ... back"),
    ("memcpy4", "the port's memcpy of 4 aligned bytes, call included"),
    ("events_set", "event set alone (nobody waits)"),
    ("events_wait", "event wait alone (satisfied at once)"),
    ("timer_stop", "stop an armed timer"),
    ("timer_start_stop", "start + stop"),
)


def services_table(results: dict[Build, Results]) -> str:
    """Queues, event flags and software timers beside FreeRTOS's queues, event groups
    and timers (section 9 of the FreeRTOS note)."""
    builds = list(results)
    header = [
        "operation (instructions)",
        *(b.label for b in builds),
        "FreeRTOS rv32",
        "FreeRTOS rv64",
        "target rv32",
    ]
    rows = []
    for name, what in SERVICES:
        free = FREERTOS_SERVICES[name]
        rows.append(
            [
                what,
                *(fmt(results[b].number(name)) for b in builds),
                fmt(free[0]),
                fmt(free[1]),
                f"<= {fmt(float(int(free[0] * SERVICE_TARGET_RATIO)))}",
            ]
        )
    others = [[what, *(fmt(results[b].number(name)) for b in builds)] for name, what in SERVICE_OTHERS]
    return "\n".join(
        [
            "Queues, event flags and software timers against FreeRTOS's queues, event groups and timers",
            "(target: at most 0.6 times FreeRTOS's RV32 figure)",
            "",
            table(header, rows),
            "",
            table(["operation (instructions)", *(b.label for b in builds)], others),
        ]
    )


# The names of the protocols in Table 2 of [Tokuda-Nakajima 1993], and Priora's beside them.
PROTOCOL_ROWS = (
    ("none", "BP"), ("npcs", "KM"), ("pip", "BPI"), ("pcp", "PCP"), ("ipcp", "-"), ("rcs", "RCS"),
)  # fmt: skip


def protocol_table(results: dict[Build, Results]) -> str:
    """The layout of Table 2 of [Tokuda-Nakajima 1993]: lock (acquired), lock (not acquired),
    unlock, per protocol."""

    def by_protocol(r: Results, name: str) -> dict[str, float]:
        return {v["protocol"]: float(v["per_op"]) for v in r.series.get(name, []) if "protocol" in v}

    header = ["protocol (paper's name)"]
    for b in results:
        header += [f"{b.label}: lock, acquired", "lock, not acquired", "unlock"]
    rows = []
    for protocol, paper_name in PROTOCOL_ROWS:
        row = [f"{protocol} ({paper_name})"]
        for r in results.values():
            taken = by_protocol(r, "lock_taken_over").get(protocol)
            waited = by_protocol(r, "lock_not_acquired").get(protocol)
            row += [
                fmt(by_protocol(r, "lock_acquired").get(protocol)),
                f"{fmt(taken)} (taken over)" if taken is not None else fmt(waited),
                fmt(by_protocol(r, "unlock").get(protocol)),
            ]
        rows.append(row)
    return "\n".join(
        [
            "Table 2 layout of [Tokuda-Nakajima 1993]: the locking primitives per protocol",
            "(instructions; benchmarks/riscv/bench_protocols.c).",
            "Not acquired = the requester's down up to the holder running again; '-' under ipcp and npcs,",
            "where a more urgent task never runs while a less urgent one holds the mutex.",
            "",
            table(header, rows),
        ]
    )


def report(results: dict[Build, Results]) -> str:
    builds = list(results)
    out: list[str] = []

    header = [
        "operation (instructions)",
        *(b.label for b in builds),
        "FreeRTOS rv32",
        "FreeRTOS rv64",
        "target rv32 trace off",
        "target rv32 trace on",
    ]
    rows = []
    for name, what in HEADLINE:
        free = FREERTOS.get(name)
        rows.append(
            [
                what,
                *(fmt(results[b].number(name)) for b in builds),
                fmt(free[0]) if free else "-",
                fmt(free[1]) if free else "-",
                f"<= {fmt(TARGETS[name])}",
                f"<= {fmt(round(free[0] * TRACE_ON_TARGET))}" if free else "-",
            ]
        )
    out += ["Against FreeRTOS V11.3.0 (same QEMU, GCC 12.2, -O2, tick masked in the windows)", ""]
    out += [table(header, rows), ""]

    rows = [[what, *(fmt(results[b].number(name, key)) for b in builds)] for name, key, what in OTHERS]
    out += ["Other operations", "", table(["operation (instructions)", *(b.label for b in builds)], rows), ""]

    tests = [
        ("prodcons_test1", "TEST1"),
        ("prodcons_test2", "TEST2"),
        ("prodcons_test3", "TEST3"),
        ("prodcons_test4", "TEST4"),
    ]
    rows = [[b.label, *(fmt(results[b].number(name, "per_pair")) for name, _ in tests)] for b in builds]
    out += [
        "Table 2 layout of [Pessolani]: instructions per down-up pair (round / 4), 10000 rounds",
        "(TEST1 no timeout, no BPIP; TEST2 timeout; TEST3 BPIP; TEST4 timeout and BPIP;",
        "all priority-ordered)",
        "",
        table(["build", *(t for _, t in tests)], rows),
        "",
    ]
    rows = [[b.label, *(fmt(results[b].number(name, "per_round")) for name, _ in tests)] for b in builds]
    out += [
        "The same per round (4 downs, 4 ups, 2 switches)",
        "",
        table(["build", *(t for _, t in tests)], rows),
        "",
    ]

    depths = sorted({int(v["depth"]) for b in builds for v in results[b].series.get("chain", [])})
    rows = []
    for b in builds:
        points = [(float(v["depth"]), float(v["instr"])) for v in results[b].series.get("chain", [])]
        by_depth = {int(x): y for x, y in points}
        slope, intercept = fit(points) if len(points) >= 2 else (0.0, 0.0)
        rows.append([b.label, *(fmt(by_depth.get(d)) for d in depths), f"{slope:.2f}", f"{intercept:.2f}"])
    out += [
        "Inheritance chain: HIGH blocks on a chain of d holders (block, cycle check, walk, switch)",
        "",
        table(["build", *(f"d={d}" for d in depths), "slope", "intercept"], rows),
        "",
    ]

    series = (
        ("wakeup_block", "block as the k-th waiter"),
        ("wakeup_wake", "up waking one of k"),
        ("wakeup_prio", "priority change of a waiter (pip)"),
    )
    shown = (1, 2, 8, 16, 32, 64)
    rows = []
    for b in builds:
        for name, what in series:
            by_k = {int(v["k"]): float(v["instr"]) for v in results[b].series.get(name, [])}
            values = list(by_k.values())
            spread = f"{fmt(min(values))}..{fmt(max(values))}" if values else "-"
            rows.append([f"{b.label}: {what}", *(fmt(by_k.get(k)) for k in shown), spread])
    out += [
        "Against the number of waiters k (all at one priority)",
        "",
        table(["series", *(f"k={k}" for k in shown), "min..max"], rows),
        "",
    ]
    out += [protocol_table(results), ""]
    out += [services_table(results), ""]
    counters = [
        f"{b.label}: {results[b].figures.get('counters', {}).get('instret', '-')} and "
        f"{results[b].figures.get('counters', {}).get('cycle', '-')}"
        for b in builds
    ]
    out += ["minstret and mcycle over the same loop (they must agree): " + "; ".join(counters), ""]
    return "\n".join(out)


def write_whole(path: Path, text: str) -> None:
    """`text` into `path` through a temporary file in its directory, renamed
    over it: a full disk leaves `path` as it was, never half written."""
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(name, 0o644)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.py", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--arch", default="rv32,rv64", help="rv32, rv64 or both (default: rv32,rv64)")
    parser.add_argument("--trace", default="off,on", help="off, on or both (default: off,on)")
    parser.add_argument("--no-build", action="store_true", help="run the images already built")
    parser.add_argument("--json", metavar="OUT", help="also write every figure as JSON")
    args = parser.parse_args(argv)

    archs = [a for a in args.arch.split(",") if a]
    traces = [t for t in args.trace.split(",") if t]
    if any(a not in ARCHS for a in archs) or any(t not in ("off", "on") for t in traces):
        parser.error("--arch takes rv32 and rv64, --trace off and on")
    builds = [Build(a, t == "on") for a in archs for t in traces]

    results: dict[Build, Results] = {}
    try:
        for b in builds:
            print(f"== {b.label}", file=sys.stderr, flush=True)
            results[b] = measure(b, not args.no_build)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, RuntimeError, OSError) as e:
        print(f"bench.py: {e}", file=sys.stderr)
        return 1

    print(report(results))
    if args.json:
        try:
            write_whole(Path(args.json), json.dumps(document(results, argv), indent=2) + "\n")
        except OSError as e:
            print(f"bench.py: --json: cannot write {args.json}: {e.strerror or e}", file=sys.stderr)
            return 1
    return 0


def document(results: dict[Build, Results], argv: Sequence[str]) -> dict[str, object]:
    """The --json document (lab/priora/bench.schema.json): the lab's provenance
    block (lab/priora/provenance.py, standard library only), then every
    figure and series of each build, keyed by its label."""
    _lab()
    from priora.provenance import provenance

    targets = list(dict.fromkeys(f"qemu-{b.arch}" for b in results))
    return {
        "provenance": provenance("bench", ["benchmarks/riscv/bench.py", *argv], target=targets),
        "builds": {b.label: {"figures": r.figures, "series": r.series} for b, r in results.items()},
    }


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main(sys.argv[1:]))

"""MINIX4RT's semaphore test ([Pessolani], section 7, Tables 1 and 2) beside
Priora's on QEMU (benchmarks/riscv/bench_prodcons.c, scripts/bench.sh)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from priora.experiments.rtmach import markdown

TESTS = ("TEST1", "TEST2", "TEST3", "TEST4")
# [Pessolani], Table 1: the setups (all with priority-ordered lists).
TIMEOUT = {"TEST1": False, "TEST2": True, "TEST3": False, "TEST4": True}
BPIP = {"TEST1": False, "TEST2": False, "TEST3": True, "TEST4": True}
# [Pessolani], Table 2: down-up pair times in us, per load (IBM 370C, Intel DX4 75 MHz).
PAPER: dict[str, tuple[float, float, float, float]] = {
    "NOLoad": (53.42, 56.25, 53.52, 55.75),
    "CPUload": (54.02, 55.67, 53.57, 55.67),
    "HDload": (54.05, 55.65, 53.57, 55.57),
    "RSload": (54.45, 56.42, 54.32, 56.45),
}
PAPER_CPU_HZ = 75_000_000
BUILDS = ("rv32-trace-off", "rv32-trace-on", "rv64-trace-off", "rv64-trace-on")


def _fmt(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".") if x != int(x) else str(int(x))


def figures(doc: Mapping[str, Any]) -> dict[str, tuple[float, ...]]:
    """Instructions per down-up pair, per build (measured_costs.json's layout)."""
    return {
        b: tuple(float(doc["builds"][b][f"prodcons_{t.lower()}"]) for t in TESTS)
        for b in BUILDS
        if b in doc["builds"]
    }


def table(doc: Mapping[str, Any]) -> str:
    ours = figures(doc)
    rows = [
        ["timeout", *("yes" if TIMEOUT[t] else "no" for t in TESTS)],
        ["inheritance (BPIP)", *("yes" if BPIP[t] else "no" for t in TESTS)],
    ]
    for load, paper in PAPER.items():
        rows.append([f"MINIX4RT, {load} (us)", *(f"{v:.2f}" for v in paper)])
    for build, values in ours.items():
        rows.append([f"Priora {build} (instructions)", *(_fmt(v) for v in values)])
    if "rv32-trace-off" in ours:
        at = [v * 1_000_000 / PAPER_CPU_HZ for v in ours["rv32-trace-off"]]
        rows.append(["Priora rv32-trace-off at 75 MHz, 1 instr/cycle (us)", *(f"{v:.2f}" for v in at)])
    base = PAPER["NOLoad"][0]
    rows.append(["MINIX4RT NOLoad, relative to TEST1", *(f"{v / base:.3f}" for v in PAPER["NOLoad"])])
    for build, counts in ours.items():
        rows.append([f"Priora {build}, relative to TEST1", *(f"{v / counts[0]:.3f}" for v in counts)])
    return markdown(["down-up pair", *TESTS], rows)


def as_dict(doc: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "paper_us": {load: dict(zip(TESTS, v, strict=True)) for load, v in PAPER.items()},
        "priora_instructions": {b: dict(zip(TESTS, v, strict=True)) for b, v in figures(doc).items()},
        "source": doc.get("source"),
    }

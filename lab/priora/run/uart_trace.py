"""The kernel trace that a RISC-V image prints over the UART, read back into
the same records as the host port's (priora.run.native.TRACE_DTYPE).

Each run is framed (ports/riscv/trace_sink.c, docs/riscv-port.md):

    PRIORA-TRACE BEGIN <label> tick_hz=<hz>
    T <48 hex digits>            one pr_trace_record_t, its 24 bytes in memory order
    N T <id> <name> [key=value ...]   a task's name (N S: a semaphore's)
    PRIORA-TRACE END <label> records=<n> lost=<n> [end_ns=<ns>]

A host program's trace dump (pr_host_trace_dump, ports/host) is the same
frame; its N lines add what the records do not say (a task's priority,
period, phase and deadline; a semaphore's kind, protocol, ceiling, order,
initial value and max) and its END line the time the run ended
(docs/trace-format.md, "The trace dump").

Lines outside the frames (the program's own messages) are ignored.
priora.run.trace_decode (tests/riscv/decode_trace.py, the smoke test's checker),
priora.run.trace_file (`priora trace`) and priora.run.qemu_run (`priora run`) read
frames through this module.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from priora.errors import PrioraError
from priora.record import field, record
from priora.run import native

BEGIN = re.compile(r"PRIORA-TRACE BEGIN (\S+) tick_hz=(\d+)$")
END = re.compile(r"PRIORA-TRACE END (\S+) records=(\d+) lost=(\d+)(?: end_ns=(\d+))?$")
NAME = re.compile(r"N ([TS]) (\d+) (\S+)((?: [a-z_]+=\S+)*)$")
HEX = re.compile(r"T ([0-9a-f]{48})$")

Records = np.ndarray[Any, np.dtype[np.void]]


class UartTraceError(PrioraError):
    """A UART log whose trace frames are broken."""


@record
class UartRun:
    """One framed run: its records in order, and the names of its objects."""

    label: str
    tick_hz: int
    records: Records = field(default_factory=lambda: np.zeros(0, dtype=native.TRACE_DTYPE))
    tasks: dict[int, str] = field(default_factory=dict)
    sems: dict[int, str] = field(default_factory=dict)
    declared: int | None = None  # records=, from the END line
    lost: int | None = None  # lost=, from the END line
    end_ns: int | None = None  # end_ns=, from a dump's END line: when the run ended
    task_attrs: dict[int, dict[str, str]] = field(default_factory=dict)  # a dump's N T key=value
    sem_attrs: dict[int, dict[str, str]] = field(default_factory=dict)  # a dump's N S key=value
    first_line: int = 0  # the BEGIN line's number
    record_lines: list[int] = field(default_factory=list)  # the T line of each record
    name_lines: dict[tuple[str, int], int] = field(default_factory=dict)  # ("T" or "S", id): its N line


def _records(hexes: list[str]) -> Records:
    raw = bytes.fromhex("".join(hexes))
    return np.frombuffer(raw, dtype=native.TRACE_DTYPE).copy()


def parse(text: str) -> list[UartRun]:
    """The runs in a UART log, in order."""
    runs: list[UartRun] = []
    run: UartRun | None = None
    hexes: list[str] = []
    lines: list[int] = []
    number = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if m := BEGIN.match(line):
            if run is not None:
                raise UartTraceError(f"line {number}: BEGIN {m[1]} inside run {run.label}")
            run, hexes, lines = UartRun(m[1], int(m[2]), first_line=number), [], []
        elif run is None:
            continue
        elif m := HEX.match(line):
            hexes.append(m[1])
            lines.append(number)
        elif m := NAME.match(line):
            (run.tasks if m[1] == "T" else run.sems)[int(m[2])] = m[3]
            attrs = dict(pair.split("=", 1) for pair in m[4].split())
            (run.task_attrs if m[1] == "T" else run.sem_attrs)[int(m[2])] = attrs
            run.name_lines[(m[1], int(m[2]))] = number
        elif m := END.match(line):
            if m[1] != run.label:
                raise UartTraceError(f"line {number}: END {m[1]} closes run {run.label}")
            run.records = _records(hexes)
            run.record_lines = lines
            run.declared, run.lost = int(m[2]), int(m[3])
            run.end_ns = int(m[4]) if m[4] is not None else None
            runs.append(run)
            run = None
        elif line.startswith(("T ", "N ", "PRIORA-TRACE")):
            raise UartTraceError(f"line {number}: malformed trace line: {line!r}")
    if run is not None:
        raise UartTraceError(
            f"run {run.label}: no END line (the image stopped in the middle of it): "
            f"from line {run.first_line} to the end, line {number}"
        )
    return runs


def count(run: UartRun, event: str) -> int:
    return int(np.count_nonzero(run.records["event"] == native.EVENT[event]))


def problems(run: UartRun, jobs: int | None = None) -> list[str]:
    """What is wrong with a run's trace (empty: well formed): records missing,
    lost, out of sequence or going back in time, unknown events, and with
    `jobs`, not that many jobs released and completed."""
    found = []
    records = run.records
    if run.declared != len(records):
        found.append(f"{len(records)} records received, the image printed {run.declared}")
    if run.lost:
        found.append(f"the kernel lost {run.lost} records")
    if not np.array_equal(records["seq"], np.arange(len(records))):
        found.append("sequence numbers are not 0, 1, 2, ...")
    if np.any(np.diff(records["time"].astype(np.int64)) < 0):
        found.append("times go backwards")
    if unknown := sorted(set(records["event"].tolist()) - set(native.EVENT_NAME)):
        found.append(f"unknown event codes {unknown}")
    if jobs is not None:
        for event in ("RELEASE", "JOB_DONE"):
            if (n := count(run, event)) != jobs:
                found.append(f"{n} {event} records, expected {jobs}")
    return found

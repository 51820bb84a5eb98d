"""Decodes the Priora trace that a RISC-V image prints over the UART (or
that a host program dumps: the same frames, docs/trace-format.md).

The image prints, per run (ports/riscv/trace_sink.c, docs/riscv-port.md):

    PRIORA-TRACE BEGIN <label> tick_hz=<hz>
    T <48 hex digits>            one pr_trace_record_t, its 24 bytes in memory order
    N T <id> <name>              a task's name (N S: a semaphore's)
    PRIORA-TRACE END <label> records=<n> lost=<n>

This script lists each run's events, checks that each trace is well formed
(every record arrived, in sequence, none lost, the expected number of jobs
released and completed), and with --compare runs the same scenario file on
the host port (the lab's priora.run.simulate, protocol = the run's label) and
reports where the two event sequences differ, ignoring timestamps.

    tests/riscv/decode_trace.py UART.log [--jobs N] [--compare examples/inversion.toml]
    python -m priora.run.trace_decode UART.log ...       (the same)

Exit status: 0 if every run is well formed, 1 if not. A difference from the
host port is information, not a failure. Each record is described by the
host port's own formatter (pr_trace_format, ports/host/trace_format.c,
through the lab's binding), so every event prints as the host prints it.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

import numpy as np

from priora.errors import PrioraError
from priora.record import record
from priora.run import native, uart_trace
from priora.run.simulate import simulate
from priora.run.uart_trace import UartRun, UartTraceError
from priora.scenario.loader import load

# The frames are read by priora.run.uart_trace; the records' codes are the
# binding's (priora.run.native, checked against the library at load).
NONE_ID = native.TRACE_NONE
EVENTS = native.EVENT_NAME
CAUSES = native.CAUSE_NAME

Key = tuple[int, int, int, int, int, int, int]
Run = UartRun
TraceError = UartTraceError
parse = uart_trace.parse
count = uart_trace.count
problems = uart_trace.problems


@record(frozen=True)
class Record:
    time: int  # ns
    seq: int
    value: int
    event: int
    task: int
    obj: int
    result: int
    arg0: int
    arg1: int
    reserved: int  # 0

    def key(self) -> Key:
        """Everything but the time, the sequence number and the reserved field."""
        return (self.event, self.task, self.obj, self.result, self.arg0, self.arg1, self.value)


def records(run: Run) -> list[Record]:
    return [Record(*(int(v) for v in row)) for row in run.records.tolist()]


def ticks(ns: int, hz: int) -> str:
    """ns as ticks with 3 decimals ("2.000"), as read on the tick clock."""
    return f"{ns * hz / 1e9:.3f}"


def describe(key: Key, tasks: dict[int, str], sems: dict[int, str]) -> str:
    """One record without its time, in the host port's words (pr_trace_format)."""
    event, task, obj, result, arg0, arg1, value = key
    record = np.array([(0, 0, value, event, task, obj, result, arg0, arg1, 0)], dtype=native.TRACE_DTYPE)
    line = native.format_record(record[0], 1000, {"task": tasks, "sem": sems})
    return line.split(" ", 1)[1]  # without its time (0)


def listing(run: Run) -> list[str]:
    """Each record: its time in ticks (3 decimals), then the host port's line
    without its own time."""
    lines = native.format_records(run.records, run.tick_hz, {"task": run.tasks, "sem": run.sems})
    times = run.records["time"].tolist()
    return [
        f"{ticks(t, run.tick_hz):>8}  {line.split(' ', 1)[1]}" for t, line in zip(times, lines, strict=True)
    ]


@record(frozen=True)
class HostRun:
    keys: list[Key]
    times: list[int]
    tick_hz: int
    tasks: dict[int, str]
    sems: dict[int, str]


def host_run(scenario_path: Path, protocol: str) -> HostRun:
    """The same scenario on the host port, through the lab (priora.run.simulate)."""
    if protocol not in ("none", "pip"):
        raise TraceError(f"run label {protocol!r} is not a protocol of the lab")
    try:
        scenario = load(scenario_path).with_protocol("pip" if protocol == "pip" else "none")
        result = simulate(scenario)
    except PrioraError as e:
        raise TraceError(str(e)) from e
    keys: list[Key] = []
    times: list[int] = []
    for r in result.trace:
        keys.append(
            (int(r["event"]), int(r["task"]), int(r["object"]), int(r["result"]), int(r["arg0"]),
             int(r["arg1"]), int(r["value"]))
        )  # fmt: skip
        times.append(int(r["time"]))
    return HostRun(
        keys,
        times,
        scenario.system.tick_hz,
        {i: t.name for i, t in enumerate(scenario.tasks)},
        {i: r.name for i, r in enumerate(scenario.resources)},
    )


def span(first: int, end: int) -> str:
    """Records first..end-1 as "#3", "#3-#5" or "none"."""
    if end <= first:
        return "none"
    return f"#{first}" if end == first + 1 else f"#{first}-#{end - 1}"


def differences(run: Run, host: HostRun) -> list[str]:
    """Where the run's events differ from the host's, ignoring times: one
    block per difference, each side with its own times for context."""
    theirs = records(run)
    mine = [r.key() for r in theirs]
    out: list[str] = []
    matcher = difflib.SequenceMatcher(a=host.keys, b=mine, autojunk=False)
    for tag, h0, h1, m0, m1 in matcher.get_opcodes():
        if tag == "equal":
            continue
        out.append(f"  host records {span(h0, h1)}, riscv records {span(m0, m1)}:")
        for i in range(h0, h1):
            text = describe(host.keys[i], host.tasks, host.sems)
            out.append(f"    host  {ticks(host.times[i], host.tick_hz):>8}  {text}")
        for i in range(m0, m1):
            text = describe(mine[i], run.tasks, run.sems)
            out.append(f"    riscv {ticks(theirs[i].time, run.tick_hz):>8}  {text}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("log", type=Path, help="the image's UART output")
    parser.add_argument("--jobs", type=int, help="jobs each run must release and complete")
    parser.add_argument("--runs", help="comma-separated labels of the runs that must be there")
    parser.add_argument("--compare", type=Path, help="scenario file to run on the host port")
    parser.add_argument("--quiet", action="store_true", help="no event listing")
    args = parser.parse_args(argv)

    try:
        runs = parse(args.log.read_text(errors="replace"))
    except TraceError as e:
        print(f"decode_trace: {args.log}: {e}", file=sys.stderr)
        return 1
    ok = True
    if args.runs is not None:
        wanted, got = args.runs.split(","), [r.label for r in runs]
        if wanted != got:
            print(f"decode_trace: {args.log}: runs {got}, expected {wanted}", file=sys.stderr)
            ok = False
    for run in runs:
        print(f"== run {run.label}: {len(run.records)} records, tick {run.tick_hz} Hz (times in ticks)")
        if not args.quiet:
            print("\n".join(listing(run)))
        if found := problems(run, args.jobs):
            ok = False
            for p in found:
                print(f"decode_trace: run {run.label}: {p}", file=sys.stderr)
        if args.compare is not None:
            try:
                diff = differences(run, host_run(args.compare, run.label))
            except TraceError as e:
                print(f"-- {run.label}: no comparison with the host port: {e}")
                continue
            if diff:
                print(f"-- {run.label}: event sequence vs the host port (times ignored): differs")
                print("\n".join(diff))
            else:
                print(f"-- {run.label}: event sequence identical to the host port's (times ignored)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

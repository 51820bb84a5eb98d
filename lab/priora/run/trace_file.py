"""`priora trace FILE`: the kernel trace of any program linked with Priora,
read back into the lab's SimResult, so that the report, the Gantt chart,
Perfetto, CTF and HTML are those `priora simulate` gives.

FILE is a host program's trace dump (pr_host_trace_dump, ports/host) or a
RISC-V image's UART log (ports/riscv/trace_sink.c): both hold framed runs
(priora.run.uart_trace, docs/trace-format.md "The trace dump"). The run read is
the only one, or the one --run LABEL names.

Without --scenario the lab knows only what the frame says:
  tasks        kernel ids 0 .. the largest one seen; each named by its N T
               line (else T<id>), its base priority from its TASK_CREATE
               record (else the N T line's priority=); period, phase and
               deadline from a dump's N T line, else unknown: its jobs then
               have no deadline, and a miss is the kernel's MISS record only
  semaphores   ids 0 .. the largest seen; named by the N S lines; kind,
               protocol, ceiling, order, initial value and max from a dump's
               N S line, else read from the records: a mutex is a semaphore
               allocated with 1 whose every up is made by the task that took
               it; its protocol is rcs if it has ABORT or RECOVER records, pcp
               if CEILING records name it, pip if a priority was inherited
               through it, ipcp if a ceiling was lent through it, else none
  the end      a dump's end_ns=, else the last record's time
  counters     ups and downs that succeeded, the most waiters at once and the
               aborts of each semaphore, from its records; each task's
               timeouts, errors, aborts and lost time from its job rows; the
               context switches (SWITCH records) and priority changes (PRIO)
With --scenario FILE, the tasks and resources are that file's (its names,
deadlines and time unit); the trace's must be the same objects, by name.
Message queues, event flags and timers are not modelled here: their records
are in the listing (--list) and the CTF, not in the tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from priora import inputs
from priora.errors import PrioraError
from priora.record import replace
from priora.run import native, uart_trace
from priora.run.simulate import ScriptCounters, SemaphoreCounters, SimResult, account
from priora.scenario.model import (
    ORDERS,
    PRIORITY_MAX,
    PRIORITY_MIN,
    PROTOCOLS,
    RESOURCE_KINDS,
    Resource,
    Scenario,
    System,
    Task,
)

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from priora.scenario.model import Order, Protocol, ResourceKind

MAX_TRACE_BYTES = 256 * 2**20  # a UART log of about 5 million records
EV = native.EVENT
# The records whose task byte must name a task (lab/native/metrics.c, needs_task).
NEEDS_TASK = frozenset(
    EV[e] for e in ("TASK_CREATE", "RELEASE", "JOB_DONE", "BLOCK", "WAKE", "MISS", "ABORT", "RECOVER")
)
KIND: dict[str, ResourceKind] = {k: k for k in RESOURCE_KINDS}
PROTOCOL: dict[str, Protocol] = {p: p for p in PROTOCOLS}
ORDER: dict[str, Order] = {o: o for o in ORDERS}


class TraceFileError(PrioraError):
    """A trace file that cannot be read: one line naming the file, the line and why."""


def read_run(path: Path, label: str | None = None) -> uart_trace.UartRun:
    """The run of `path` (the only one, or the one labelled `label`), checked."""
    data = inputs.read_bytes(path, MAX_TRACE_BYTES)
    try:
        runs = uart_trace.parse(data.decode("utf-8", errors="replace"))
    except uart_trace.UartTraceError as exc:
        raise TraceFileError(f"{path}: {exc}") from None
    if not runs:
        raise TraceFileError(f"{path}: not a trace: no PRIORA-TRACE BEGIN ... END frame in it")
    labels = [r.label for r in runs]
    if label is None:
        if len(runs) > 1:
            raise TraceFileError(
                f"{path}: {len(runs)} runs in it ({', '.join(labels)}): choose one with --run"
            )
        run = runs[0]
    elif label in labels:
        run = runs[labels.index(label)]
    else:
        raise TraceFileError(f"{path}: --run: no run {label!r} in it (runs: {', '.join(labels)})")
    check(path, run)
    return run


def check(path: Path, run: uart_trace.UartRun) -> None:
    """A run the lab can account: complete, in order, every event known, every
    record that needs a task naming one."""
    where = f"{path}: line {run.first_line}: run {run.label}"
    if run.tick_hz <= 0:
        raise TraceFileError(f"{where}: tick_hz=0: the tick rate must be > 0")
    records, lines = run.records, run.record_lines
    if run.declared != len(records):
        raise TraceFileError(f"{where}: {len(records)} records in it, its END line says {run.declared}")
    if run.lost:
        raise TraceFileError(f"{where}: the kernel lost {run.lost} records: the trace is not complete")
    for i, r in enumerate(records.tolist()):
        time, seq, _value, event, task = r[0], r[1], r[2], r[3], r[4]
        at = f"{path}: line {lines[i]}"
        if seq != i:
            raise TraceFileError(
                f"{at}: record number {seq}, expected {i} (records are missing or out of order)"
            )
        if i and time < records["time"][i - 1]:
            raise TraceFileError(f"{at}: time {time} ns is before the previous record's")
        if event not in native.EVENT_NAME:
            raise TraceFileError(f"{at}: unknown event code {event}")
        if task == native.TRACE_NONE and event in NEEDS_TASK:
            raise TraceFileError(f"{at}: a {native.EVENT_NAME[event]} record without a task")
    if run.end_ns is not None and len(records) and run.end_ns < int(records["time"][-1]):
        raise TraceFileError(f"{where}: end_ns={run.end_ns} is before its last record")


# ---------------------------------------------------------------- the model


def _name(names: dict[int, str], i: int, letter: str) -> str:
    """Object i's name from the N lines; "-" (no name) and none give T<id> / S<id>."""
    name = names.get(i, "-")
    return f"{letter}{i}" if name == "-" else name


def _largest(ids: Any) -> int:
    valid = [int(i) for i in ids if int(i) != native.TRACE_NONE]
    return max(valid, default=-1)


def _number(attrs: dict[str, str], key: str, where: str) -> int | None:
    if key not in attrs:
        return None
    text = attrs[key]
    if not inputs.is_decimal(text) or "." in text:
        raise TraceFileError(f"{where}: {key}={text}: not a whole number")
    return int(text)


def _inferred_kind(sem: int, records: Any) -> ResourceKind:
    """A mutex: allocated with 1, and every up that succeeded made by its
    holder (the task that took it last; a WAKE ok hands it to the woken task
    when the holder's UP, which follows the WAKE, returns)."""
    holder: int | None = None
    handed_to: int | None = None
    allocated_one = False
    for r in records:
        event, task, obj, result = int(r["event"]), int(r["task"]), int(r["object"]), int(r["result"])
        if obj != sem or result != native.PR_OK:
            continue
        if event == EV["SEM_ALLOC"]:
            allocated_one = int(r["value"]) == 1
        elif event == EV["DOWN"]:
            holder = task
        elif event == EV["WAKE"]:
            handed_to = task
        elif event == EV["UP"]:
            if holder != task:
                return "counting"
            holder, handed_to = handed_to, None
    return "mutex" if allocated_one else "counting"


def _inferred_protocol(sem: int, records: Any) -> Protocol:
    mine = records[records["object"] == sem]
    events = set(mine["event"].tolist())
    if events & {EV["ABORT"], EV["RECOVER"]}:
        return "rcs"
    if EV["CEILING"] in events:
        return "pcp"
    prio = mine[(mine["event"] == EV["PRIO"]) & ((mine["value"] >> 8) & 0xFF == 0)]
    causes = {native.CAUSE_NAME.get(int(v) & 0xFF) for v in prio["value"].tolist()}
    if "inherit" in causes:
        return "pip"
    if "ceiling" in causes:
        return "ipcp"
    return "none"


def _tasks(run: uart_trace.UartRun, path: Path) -> tuple[Task, ...]:
    records = run.records
    created: dict[int, int] = {}
    for r in records[records["event"] == EV["TASK_CREATE"]].tolist():
        created.setdefault(int(r[4]), int(r[7]))  # task: arg0, its base priority
    ids = [
        *records["task"].tolist(),
        *records[records["event"] == EV["SWITCH"]]["object"].tolist(),
        *run.tasks,
    ]
    tasks = []
    for i in range(_largest(ids) + 1):
        attrs = run.task_attrs.get(i, {})
        where = f"{path}: line {run.name_lines.get(('T', i), run.first_line)}: N T {i}"
        priority = _number(attrs, "priority", where)
        priority = created.get(i, priority if priority is not None else PRIORITY_MIN)
        if not PRIORITY_MIN <= priority <= PRIORITY_MAX:
            raise TraceFileError(f"{where}: priority {priority} outside {PRIORITY_MIN}..{PRIORITY_MAX}")
        period = _number(attrs, "period", where) or None
        deadline = _number(attrs, "deadline", where) or None
        phase = _number(attrs, "phase", where) or 0
        tasks.append(Task(_name(run.tasks, i, "T"), priority, period, phase, deadline, ()))
    return _unique(tuple(tasks))


def _unique(objects: tuple[Any, ...]) -> tuple[Any, ...]:
    """Names made unique, as the report keys rows by name: a name given
    again (two tasks the program named alike) becomes name#id."""
    seen: set[str] = set()
    out = []
    for i, o in enumerate(objects):
        out.append(o if o.name not in seen else replace(o, name=f"{o.name}#{i}"))
        seen.add(out[-1].name)
    return tuple(out)


def _resources(run: uart_trace.UartRun, path: Path) -> tuple[Resource, ...]:
    records = run.records
    sem_events = [
        EV[e] for e in ("SEM_ALLOC", "DOWN", "UP", "BLOCK", "WAKE", "TIMEOUT", "ABORT", "RECOVER", "CEILING")
    ]
    objects = records[np.isin(records["event"], sem_events)]["object"].tolist()
    resources = []
    for i in range(_largest([*objects, *run.sems]) + 1):
        attrs = run.sem_attrs.get(i, {})
        where = f"{path}: line {run.name_lines.get(('S', i), run.first_line)}: N S {i}"
        kind = KIND.get(attrs.get("kind") or _inferred_kind(i, records))
        if kind is None:
            raise TraceFileError(f"{where}: kind={attrs['kind']}: expected {', '.join(KIND)}")
        inferred = _inferred_protocol(i, records) if kind == "mutex" else "none"
        protocol = PROTOCOL.get(attrs.get("protocol") or inferred)
        if protocol is None:
            raise TraceFileError(f"{where}: protocol={attrs['protocol']}: expected {', '.join(PROTOCOL)}")
        order = ORDER.get(attrs.get("order", "priority"))
        if order is None:
            raise TraceFileError(f"{where}: order={attrs['order']}: expected priority or fifo")
        initial = _number(attrs, "initial", where)
        largest = _number(attrs, "max", where)
        ceiling = _number(attrs, "ceiling", where) if protocol in ("pcp", "ipcp") else None
        if ceiling is not None and not PRIORITY_MIN <= ceiling <= PRIORITY_MAX:
            raise TraceFileError(f"{where}: ceiling={ceiling}: outside {PRIORITY_MIN}..{PRIORITY_MAX}")
        resources.append(
            Resource(
                name=_name(run.sems, i, "S"),
                kind=kind,
                protocol=protocol if kind == "mutex" else "none",
                initial=1 if kind == "mutex" else (initial or 0),
                max=1 if kind == "binary" else (largest or None),
                order=order,
                ceiling=ceiling,
            )
        )
    return _unique(tuple(resources))


def scenario_of(run: uart_trace.UartRun, path: Path, given: Scenario | None = None) -> Scenario:
    """The model of the run: read from its frame, or `given` (--scenario)
    checked against it."""
    tasks, resources = _tasks(run, path), _resources(run, path)
    if given is None:
        protocols = [r.protocol for r in resources if r.kind == "mutex"]
        system = System(run.tick_hz, "tick", None, protocols[0] if protocols else "none")
        return Scenario(str(path), system, resources, tasks)
    source = given.source
    if given.queues or given.events or given.timers or given.interrupts:
        raise TraceFileError(
            f"--scenario: {source}: has message queues, event flags, timers or interrupts, "
            "which priora trace does not model (tasks and semaphores only)"
        )
    if given.system.tick_hz != run.tick_hz:
        raise TraceFileError(
            f"--scenario: {source}: tick_hz {given.system.tick_hz}, the trace's is {run.tick_hz}"
        )
    pairs = (
        ("task", "T", [t.name for t in tasks], [t.name for t in given.tasks]),
        ("resource", "S", [r.name for r in resources], [r.name for r in given.resources]),
    )
    for what, letter, mine, theirs in pairs:
        if len(mine) > len(theirs):
            raise TraceFileError(
                f"--scenario: {source}: {len(theirs)} {what}s, the trace has {len(mine)} "
                f"({mine[len(theirs)]} is not in the file)"
            )
        for i, (a, b) in enumerate(zip(mine, theirs, strict=False)):
            if a not in (b, f"{letter}{i}"):
                raise TraceFileError(f"--scenario: {source}: {what} {i} is {b}, the trace's is {a}")
    return replace(given, source=str(path))


# ---------------------------------------------------------------- the result


def _semaphore_counters(
    records: Any, resources: tuple[Resource, ...], holds: list[int], recovery: list[int]
) -> tuple[SemaphoreCounters, ...]:
    out = []
    for i, r in enumerate(resources):
        mine = records[records["object"] == i]
        ok = mine["result"] == native.PR_OK
        ups = int(np.count_nonzero((mine["event"] == EV["UP"]) & ok))
        downs = int(np.count_nonzero((mine["event"] == EV["DOWN"]) & ok))
        waiting, most = set(), 0
        for event, task in zip(mine["event"].tolist(), mine["task"].tolist(), strict=True):
            if event == EV["BLOCK"]:
                waiting.add(task)
                most = max(most, len(waiting))
            elif event == EV["WAKE"]:
                waiting.discard(task)
        aborts = int(np.count_nonzero(mine["event"] == EV["ABORT"]))
        out.append(
            SemaphoreCounters(ups, downs, most, aborts, holds[i] if r.kind == "mutex" else None, recovery[i])
        )
    return tuple(out)


def result_of(run: uart_trace.UartRun, scenario: Scenario) -> SimResult:
    """The SimResult of the run: its records, the lab's C accounting of them
    (job rows, busy time, holds), and the counters read from the records."""
    records = run.records
    last = int(records["time"][-1]) if len(records) else 0
    end = run.end_ns if run.end_ns is not None else last
    accounted = account(native.lib(), scenario, records.tobytes(), end)
    jobs = accounted.jobs
    scripts = []
    for i in range(len(scenario.tasks)):
        mine = jobs[jobs["task"] == i]
        scripts.append(
            ScriptCounters(
                int(mine["timeouts"].sum()),
                int(mine["errors"].sum()),
                int(mine["aborts"].sum()),
                int(mine["lost"].sum()),
            )
        )
    return SimResult(
        scenario=scenario,
        trace_records=records.tobytes(),
        job_rows=accounted.job_rows,
        end_ns=end,
        quiescent=False,
        busy_ns=accounted.busy_ns,
        context_switches=int(np.count_nonzero(records["event"] == EV["SWITCH"])),
        priority_changes=int(np.count_nonzero(records["event"] == EV["PRIO"])),
        semaphores=_semaphore_counters(
            records, scenario.resources, accounted.longest_hold_ns, accounted.recovery_ns
        ),
        scripts=tuple(scripts),
    )


def listing(run: uart_trace.UartRun) -> list[str]:
    """Every record as the host port's line of text, named from the frame."""
    names = {
        kind: {i: n for i, n in by_id.items() if n != "-"}
        for kind, by_id in (("task", run.tasks), ("sem", run.sems))
    }
    return native.format_records(run.records, run.tick_hz, names)

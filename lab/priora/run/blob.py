"""The scenario blob: a compiled scenario as bytes that a target reads from
memory (docs/qemu-run.md). QEMU's generic loader puts it at ADDRESS, where
the RISC-V scenario runner (ports/riscv/apps/scenario_runner.c) checks it
and creates the kernel objects, so no image is relinked per scenario.

Version 6, every field little-endian:

    header     88 bytes   magic "PRSB", version, sizes, CRC-32, tick_hz,
                          counts, quantum, horizon, trace limit; the counts
                          of queues, event flags, timers and interrupts and
                          the timer service's priority (version 3 had zeros);
                          the time-sharing band's levels, slice and decay
                          period (version 4 had a 64-byte header without
                          them); the privileges of groups 2..8; the count of
                          the arrivals' interrupts (version 5 had 80 bytes)
    semaphores 48 bytes each, in id order (version 2 had 40: no recovery;
               version 1 had 32: no ceiling)
    queues     32 bytes each, in id order: name, length, flags
    events     16 bytes each, in id order: name
    tasks      96 bytes each, in id order; at offset 28 the class (0
               real-time, 1 time sharing) and the nice value (signed),
               a byte each, and the privilege group at 30 (0 before
               version 5: then the system group); from offset 56 (version
               6; 8 bytes of zeros before) the arrival attributes:
               flags, min_interarrival, jitter, jitter_seed, importance,
               abort_time, offset, the interpreter's exec_spread and
               exec_state, and the arrivals at tick 0 (pr_task_release
               calls the runner makes before the run), 4 bytes each
    timers and interrupts
               48 bytes each, timers first, in file order, then the
               arrivals' interrupts (one per tick with arrivals, in tick
               order: priora.run.compiled.arrival_interrupts): name, priority,
               first action, count, phase, period
    actions    24 bytes each (the kernel's pr_action_t), every task's body
               in task order, then every timer's and interrupt's; each
               names its first action and count. Version 4 gives the
               action's offset 12 to pr_action_t.options (0 before).
"""

from __future__ import annotations

import struct
import zlib

from priora.errors import PrioraError
from priora.run import native
from priora.run.compiled import (
    KernelAction,
    KernelPeriodic,
    KernelQueue,
    KernelScenario,
    KernelSemaphore,
    KernelTask,
    arrival_interrupts,
)

MAGIC = b"PRSB"
VERSION = 6
ADDRESS = 0x8700_0000  # in QEMU virt's RAM (0x8000_0000 .. 0x8800_0000 with -m 128M)
LIMIT = 16 * 1024 * 1024  # the blob may use RAM from ADDRESS to the end: 16 MiB

# magic, version, header bytes, total bytes, crc32 of bytes 16.., tick_hz,
# tasks, semaphores, actions, flags (0), quantum, horizon (0 = until quiescent),
# trace limit (records the runner keeps in RAM; 0 = as many as fit), queues,
# event flags, timers, interrupts, the timer service's priority; the
# time-sharing band's levels (0 = none), slice and decay (ticks; 0 = the
# kernel's defaults), the privileges of groups 2..8 (4 bits each, group g's
# at bit 4 (g - 2)); the arrivals' interrupts after the file's, 0.
HEADER = struct.Struct("<4sHHIIIHHIIQQIHHHHIIIIIII")
# name, value, max (0 = none), flags, protocol, ceiling, 0, recovery (ns; rcs only)
SEMAPHORE = struct.Struct("<16siiIiIIQ")
# name, priority, first action, count, class, nice, group, 0, period, phase, deadline;
# flags, min_interarrival, jitter, jitter_seed, importance, abort_time, offset,
# exec_spread, exec_seed, arrivals at tick 0
TASK = struct.Struct("<16siIIBbBBQQQIIIIIIIIII")
QUEUE = struct.Struct("<16sII8x")  # name, length, flags (PR_MSGQ_*)
EVENTS = struct.Struct("<16s")  # name
PERIODIC = struct.Struct("<16sIIIIQQ")  # name, priority, first action, count, 0, phase, period
ACTION = struct.Struct("<IiIIQ")  # kind, object, timeout, options, amount: pr_action_t
CRC_FROM = 16  # the checksum covers everything after itself

U32 = 2**32 - 1
U64 = 2**64 - 1


class BlobError(PrioraError):
    """A scenario that does not fit the blob, or bytes that are not a blob."""


def _name(name: str) -> bytes:
    raw = name.encode("ascii")
    if not 1 <= len(raw) < 16:
        raise BlobError(f"name {name!r}: 1 to 15 characters fit a blob")
    return raw


def encode(kernel: KernelScenario, horizon_ticks: int | None, *, trace_limit: int = 0) -> bytes:
    """The blob of `kernel`, to run until tick `horizon_ticks` (None: until
    nothing can happen any more). `trace_limit` caps the records the runner
    keeps (0: as many as its RAM holds; a test of lost records sets it)."""
    horizon = 0 if horizon_ticks is None else horizon_ticks
    if not 0 <= horizon <= U64 or (horizon_ticks is not None and horizon == 0):
        raise BlobError(f"horizon {horizon_ticks} ticks does not fit a blob (1 .. 2^64-1)")
    for t in kernel.tasks:
        fields = (t.min_interarrival, t.jitter, t.abort_time, t.offset, t.importance, t.jitter_seed)
        if not all(0 <= f <= U32 for f in (*fields, t.exec_seed)):
            raise BlobError(f"task {t.name}: an arrival attribute does not fit a blob (0 .. 2^32-1)")
    for s in kernel.semaphores:
        if not 0 <= s.recovery <= U64:
            raise BlobError(f"semaphore {s.name}: recovery {s.recovery} ns does not fit a blob (0 .. 2^64-1)")
    sems = b"".join(
        SEMAPHORE.pack(_name(s.name), s.value, s.max, s.flags, s.protocol, s.ceiling, 0, s.recovery)
        for s in kernel.semaphores
    )
    queues = b"".join(QUEUE.pack(_name(q.name), q.length, q.flags) for q in kernel.queues)
    events = b"".join(EVENTS.pack(_name(name)) for name in kernel.events)
    tasks: list[bytes] = []
    periodics: list[bytes] = []
    actions: list[bytes] = []
    first = 0
    for t in kernel.tasks:
        entry = TASK.pack(
            _name(t.name), t.priority, first, len(t.actions), t.sched_class, t.nice, t.priv_group, 0,
            t.period, t.phase, t.deadline, t.flags, t.min_interarrival, t.jitter, t.jitter_seed,
            t.importance, t.abort_time, t.offset, t.exec_spread, t.exec_seed, t.arrivals.count(0),
        )  # fmt: skip
        tasks.append(entry)
        actions.extend(ACTION.pack(a.kind, a.sem, a.timeout, a.options, a.amount) for a in t.actions)
        first += len(t.actions)
    arrivals = arrival_interrupts(kernel.tasks)
    for p in (*kernel.timers, *kernel.interrupts, *arrivals):
        periodics.append(
            PERIODIC.pack(_name(p.name), p.priority, first, len(p.actions), 0, p.phase, p.period)
        )
        actions.extend(ACTION.pack(a.kind, a.sem, a.timeout, a.options, a.amount) for a in p.actions)
        first += len(p.actions)
    body = sems + queues + events + b"".join(tasks) + b"".join(periodics) + b"".join(actions)
    total = HEADER.size + len(body)
    if total > LIMIT:
        raise BlobError(f"the scenario takes {total} bytes as a blob, the target has room for {LIMIT}")
    header = HEADER.pack(
        MAGIC, VERSION, HEADER.size, total, 0, kernel.tick_hz, len(kernel.tasks), len(kernel.semaphores),
        first, 0, kernel.quantum, horizon, trace_limit, len(kernel.queues), len(kernel.events),
        len(kernel.timers), len(kernel.interrupts), kernel.timer_service_priority, *kernel.timeshare,
        sum(bits << 4 * (group - 2) for group, bits in kernel.groups), len(arrivals), 0,
    )  # fmt: skip
    blob = header + body
    crc = zlib.crc32(blob[CRC_FROM:])
    return blob[:12] + struct.pack("<I", crc) + blob[CRC_FROM:]


def decode(blob: bytes) -> tuple[KernelScenario, int | None]:
    """The compiled scenario and horizon in `blob` (the inverse of encode),
    checked as the runner checks it, for tools and tests."""
    if len(blob) < HEADER.size:
        raise BlobError(f"{len(blob)} bytes: shorter than the header")
    (magic, version, header_bytes, total, crc, tick_hz, ntasks, nsems, nactions, flags, quantum,
     horizon, _trace_limit, nqueues, nevents, ntimers, ninterrupts,
     service, levels, slice_ticks, decay, privileges, narrivals, zero) = HEADER.unpack_from(blob)  # fmt: skip
    if magic != MAGIC:
        raise BlobError(f"magic {magic!r}, expected {MAGIC!r}")
    if version != VERSION or header_bytes != HEADER.size or flags != 0 or zero != 0:
        raise BlobError(
            f"version {version}, header {header_bytes} bytes, flags {flags}: not a version {VERSION} blob"
        )
    expected = (
        HEADER.size + SEMAPHORE.size * nsems + QUEUE.size * nqueues + EVENTS.size * nevents
        + TASK.size * ntasks + PERIODIC.size * (ntimers + ninterrupts + narrivals) + ACTION.size * nactions
    )  # fmt: skip
    if total != len(blob) or total != expected:
        raise BlobError(f"total size {total}, the blob has {len(blob)} bytes and its counts give {expected}")
    if zlib.crc32(blob[CRC_FROM:]) != crc:
        raise BlobError("checksum mismatch")
    at = HEADER.size
    sems: list[KernelSemaphore] = []
    for _ in range(nsems):
        name, value, limit, sem_flags, protocol, ceiling, zero, recovery = SEMAPHORE.unpack_from(blob, at)
        if zero != 0:
            raise BlobError(f"semaphore {len(sems)}: reserved field {zero}, expected 0")
        text = name.rstrip(b"\0").decode("ascii")
        sems.append(KernelSemaphore(text, value, limit, sem_flags, protocol, ceiling, recovery))
        at += SEMAPHORE.size
    queues = []
    for _ in range(nqueues):
        name, length, queue_flags = QUEUE.unpack_from(blob, at)
        queues.append(KernelQueue(name.rstrip(b"\0").decode("ascii"), length, queue_flags))
        at += QUEUE.size
    events = []
    for _ in range(nevents):
        (name,) = EVENTS.unpack_from(blob, at)
        events.append(name.rstrip(b"\0").decode("ascii"))
        at += EVENTS.size
    entries = []
    for _ in range(ntasks):
        entries.append(TASK.unpack_from(blob, at))
        at += TASK.size
    periodic_entries = []
    for _ in range(ntimers + ninterrupts + narrivals):
        periodic_entries.append(PERIODIC.unpack_from(blob, at))
        at += PERIODIC.size
    actions = []
    for _ in range(nactions):
        kind, sem, timeout, options, amount = ACTION.unpack_from(blob, at)
        actions.append(KernelAction(kind, sem, timeout, amount, options))
        at += ACTION.size
    periodics = [
        KernelPeriodic(name.rstrip(b"\0").decode("ascii"), phase, period, priority,
                       tuple(actions[first : first + count]))
        for name, priority, first, count, _zero, phase, period in periodic_entries
    ]  # fmt: skip
    # Each task's arrivals: those at tick 0, then one per release of the arrivals' interrupts.
    arrivals: list[list[int]] = [[0] * entry[-1] for entry in entries]
    for p in periodics[ntimers + ninterrupts :]:
        for a in p.actions:
            if a.kind != native.PR_ACT_RELEASE or not 0 <= a.sem < ntasks:
                raise BlobError(f"arrival interrupt at tick {p.phase}: an action that releases no task")
            arrivals[a.sem].append(p.phase)
    tasks = tuple(
        KernelTask(name.rstrip(b"\0").decode("ascii"), priority, period, phase, deadline,
                   tuple(actions[first : first + count]), sched_class, nice, group, flags, mit, jitter,
                   jitter_seed, spread, exec_seed, tuple(arrivals[i]), importance, abort_time, offset)
        for i, (name, priority, first, count, sched_class, nice, group, _zero, period, phase, deadline, flags,
                mit, jitter, jitter_seed, importance, abort_time, offset, spread, exec_seed, _at_zero)
        in enumerate(entries)
    )  # fmt: skip
    kernel = KernelScenario(
        tick_hz, quantum, tuple(sems), tasks, tuple(queues), tuple(events), tuple(periodics[:ntimers]),
        tuple(periodics[ntimers : ntimers + ninterrupts]), service, (levels, slice_ticks, decay),
        tuple((g, privileges >> 4 * (g - 2) & 0xF) for g in range(2, 9) if privileges >> 4 * (g - 2) & 0xF),
    )  # fmt: skip
    return kernel, (horizon if horizon != 0 else None)

"""A run's kernel trace as a CTF 1.8 trace (Common Trace Format), which
babeltrace2 prints and Trace Compass opens: the way Zephyr's tracing
subsystem (subsys/tracing/ctf) writes an RTOS trace.

A CTF trace is a directory with two files:
  metadata   the TSDL text that describes every record: the clock, the
             packet and event headers, and one event class per kernel event
             code, whose fields are named after what they mean for that
             event (docs/trace-format.md): a SWITCH has next_task, prev_task
             and prev_state, a PRIO has task, old, new and cause...;
  stream     one packet of binary records, little-endian: an event header
             (the kernel's event code as the event id, the time in ns on
             the trace's clock) and the record's six fields (task, object,
             result, arg0, arg1, value) in one fixed layout, so that every
             event class reads the same bytes under its own names.
The trace's `env` names the tasks and resources (task_0 = "H", ...), the
scenario file, protocol and tick rate, so that a reader can name the ids.

    priora simulate examples/inversion.toml --ctf out/ && babeltrace2 out/
"""

from __future__ import annotations

import struct
from pathlib import Path

from priora.errors import PrioraError
from priora.run import native
from priora.run.simulate import SimResult


class CtfError(PrioraError):
    """A trace this CTF layout cannot hold: one line."""


MAGIC = 0xC1FC1FC1  # CTF's packet magic number
CLOCK_HZ = 1_000_000_000  # kernel times are ns on both ports' traces

# The six record fields, as each event names them (None: not used by that
# event, named after its slot). From kernel/include/priora/trace.h.
FIELDS: dict[str, tuple[str | None, str | None, str | None, str | None, str | None, str | None]] = {
    "TASK_CREATE": ("task", "caller", None, "priority", None, "period"),
    "TASK_DELETE": ("task", "caller", None, None, None, None),
    "RELEASE": ("task", None, None, None, None, "job"),
    "SWITCH": ("next_task", "prev_task", None, "prev_state", None, None),
    "BLOCK": ("task", "sem", None, None, None, "timeout"),
    "WAKE": ("task", "sem", "result", None, None, None),
    "PRIO": ("task", "via", None, "old", "new", "cause"),
    "TIMEOUT": ("task", "sem", "result", None, None, None),
    "MISS": ("task", "watchdog", None, None, None, "job"),
    "JOB_DONE": ("task", None, None, None, None, "job"),
    "SEM_ALLOC": ("caller", "sem", "result", None, None, "initial"),
    "SEM_FREE": ("caller", "sem", "result", None, None, None),
    "DOWN": ("task", "sem", "result", "blocked", None, "value"),
    "UP": ("caller", "sem", "result", "woken", None, "value"),
    "DELAY": ("task", None, None, None, None, "ticks"),
    "SUSPEND": ("task", "caller", None, None, None, None),
    "RESUME": ("task", "caller", None, None, None, None),
    "TASK_EXIT": ("task", None, None, None, None, "released"),
    "LOST": (None, None, None, None, None, "lost"),
    "WATCHDOG": ("watchdog", "missed", None, None, None, None),
    "DELAY_END": ("task", None, None, None, None, None),
    "PRIO_SET": ("task", "caller", "result", "old_base", "new_base", None),
    "ABORT": ("holder", "mutex", None, "by", "depth", "pending"),
    "CEILING": ("task", "mutex", None, "ceiling", "holder", "ceiling_mutex"),
    "COND_WAIT": ("caller", "cond", "result", "mutex", None, "timeout"),
    "COND_WAKE": ("task", "cond", "result", None, None, None),
    "COND_SIGNAL": ("caller", "cond", "result", "broadcast", None, "woken"),
    "SCHED_LOCK": ("caller", None, None, "lock", None, "depth"),
    "RECOVER": ("holder", "mutex", None, "waiter", None, None),
    "EVENTS_SET": ("caller", "events", "result", "set", "woken", "flags"),
    "EVENTS_WAIT": ("caller", "events", "result", "options", "waits", "mask"),
    "EVENTS_WAKE": ("task", "events", "result", None, None, "flags"),
    "MSGQ_WAIT": ("task", "queue", None, "for_room", None, "timeout"),
    "MSGQ_WAKE": ("task", "queue", "result", None, None, None),
    "SEND": ("caller", "queue", "result", "priority", "waited", "messages"),
    "RECEIVE": ("caller", "queue", "result", "priority", "waited", "messages"),
    "TIMER_START": ("caller", "timer", "result", "start", None, "expiry"),
    "TIMER_EXPIRE": (None, "timer", None, "dropped", None, "expiry"),
    "TIMER_RUN": ("service", "timer", None, None, None, "lateness"),
    "RTPRIO": ("target", "caller", "result", "old_rtprio", "new_rtprio", "bands_nice"),
    "NICE": ("target", "caller", "result", "old_nice", "new_nice", None),
    "PRIV_GROUP": ("caller", "group", "result", None, None, "privileges"),
    "TASK_GROUP": ("target", "caller", "result", "old_group", "new_group", None),
    "ARRIVAL": ("task", "caller", "result", "deferred", None, "jitter_or_tick"),
    "JOB_ABORT": ("task", "by", None, "abort_time", None, "job"),
}
SLOTS = ("task", "object", "result", "arg0", "arg1", "value")
SLOT_TYPES = ("uint8_t", "uint8_t", "int8_t", "uint8_t", "uint8_t", "int32_t")

# Event header (id, timestamp) and payload, little-endian, no padding (every
# field is byte-aligned in the metadata).
EVENT = struct.Struct("<BQBBbBBi")
PACKET_HEADER = struct.Struct("<I")
PACKET_CONTEXT = struct.Struct("<QQQQ")  # timestamp_begin, timestamp_end, content_size, packet_size (bits)


def _tsdl_string(text: str) -> str:
    """A TSDL string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def metadata(result: SimResult) -> str:
    """The TSDL text of the trace."""
    scenario = result.scenario
    env = [
        ("domain", _tsdl_string("priora")),
        ("tracer_name", _tsdl_string("priora")),
        ("scenario", _tsdl_string(Path(scenario.source).name)),
        ("tick_hz", str(scenario.system.tick_hz)),
    ]
    env += [(f"task_{i}", _tsdl_string(t.name)) for i, t in enumerate(scenario.tasks)]
    env += [(f"resource_{i}", _tsdl_string(r.name)) for i, r in enumerate(scenario.resources)]
    lines = [
        "/* CTF 1.8 */",
        "",
        "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;",
        "typealias integer { size = 8; align = 8; signed = true; } := int8_t;",
        "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;",
        "typealias integer { size = 32; align = 8; signed = true; } := int32_t;",
        "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;",
        "",
        "trace {",
        "    major = 1;",
        "    minor = 8;",
        "    byte_order = le;",
        "    packet.header := struct { uint32_t magic; };",
        "};",
        "",
        "env {",
        *(f"    {key} = {value};" for key, value in env),
        "};",
        "",
        "clock {",
        "    name = kernel;",
        '    description = "kernel time (virtual time on the host port, mtime on RISC-V)";',
        f"    freq = {CLOCK_HZ};",
        "    offset = 0;",
        "};",
        "",
        "typealias integer { size = 64; align = 8; signed = false; map = clock.kernel.value; } := time_t;",
        "",
        "stream {",
        "    packet.context := struct {",
        "        time_t timestamp_begin;",
        "        time_t timestamp_end;",
        "        uint64_t content_size;",
        "        uint64_t packet_size;",
        "    };",
        "    event.header := struct { uint8_t id; time_t timestamp; };",
        "};",
    ]
    for name, code in sorted(native.EVENT.items(), key=lambda item: item[1]):
        names = FIELDS[name]
        fields = " ".join(
            f"{kind} {field or '_' + slot};"
            for field, slot, kind in zip(names, SLOTS, SLOT_TYPES, strict=True)
        )
        lines += ["", f"event {{ name = {name}; id = {code}; fields := struct {{ {fields} }}; }};"]
    return "\n".join(lines) + "\n"


def stream(result: SimResult) -> bytes:
    """The binary stream: one packet holding every record."""
    trace = result.trace
    events = b"".join(
        EVENT.pack(
            int(r["event"]), int(r["time"]), int(r["task"]), int(r["object"]), int(r["result"]),
            int(r["arg0"]), int(r["arg1"]), int(r["value"]),
        )
        for r in trace
    )  # fmt: skip
    begin = int(trace[0]["time"]) if len(trace) else 0
    end = int(trace[-1]["time"]) if len(trace) else 0
    size_bits = (PACKET_HEADER.size + PACKET_CONTEXT.size + len(events)) * 8
    return PACKET_HEADER.pack(MAGIC) + PACKET_CONTEXT.pack(begin, end, size_bits, size_bits) + events


def write(result: SimResult, directory: Path) -> None:
    """Writes the trace into `directory` (made if missing): `metadata` and
    `stream`, each written to a temporary file first and then renamed."""
    if len(result.trace) and result.trace["ids_high"].any():
        # Task ids from 255 on are 12-bit tags (docs/trace-format.md); the
        # event classes above hold one byte per id.
        raise CtfError(
            f"--ctf: {directory}: the run has task ids above 254, which this CTF layout (one byte per id) "
            "cannot hold; write the run with --trace (Perfetto) instead"
        )
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in (("metadata", metadata(result).encode()), ("stream", stream(result))):
        target = directory / name
        temporary = directory / f".{name}.tmp"
        temporary.write_bytes(data)
        temporary.replace(target)

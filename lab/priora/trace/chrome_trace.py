"""A run's kernel trace in the Chrome trace event format (the JSON that
Perfetto, ui.perfetto.dev, and chrome://tracing open).

One process (pid 1). Its tracks:
  CPU            (first) one slice per stretch a task runs, named after the
                 task: who has the processor, at a glance;
  one per task   (tid = kernel task id + 1, most urgent first):
    "X" slices   "run" for each execution interval, and nested in them one
                 slice per critical section (named after the mutex, "R
                 (aborted)" for a section rcs aborted: its work is lost) for
                 the part of the hold during which the task runs, and "R
                 (recovery)" (category "recovery", args resource, waiter) for
                 an aborted holder restoring R's state while `waiter` waits
                 (rcs with a recovery); "blocked on R" for each wait on
                 semaphore R ("blocked on R by the ceiling" for a wait on
                 pcp's system ceiling: args ceiling, holder), between its run
                 slices: a wait is cut where the task is still seen running
                 (on QEMU a record's time and the switch's differ by the
                 instructions between them), so slices always nest;
    "i" instants "release", "deadline miss" (at the deadline of each job the
                 report marks missed, priora.trace.timeline), "job done",
                 "priority a->b" (args: old, new, cause, resource: a boost to
                 a ceiling has cause "ceiling"), "abort R" (rcs: args
                 resource, by) and "refused lock R (PR_E...)" where the kernel
                 refused a call (args: job, action, action_text, error,
                 cause, cycle, base_priority, ceiling, skipped: the report's
                 warning);
  one per mutex  (after the tasks) "held by T" slices: who holds it;
  counters       "priority T": each task's effective priority over time;
  flows          an arrow ("s" to "f", name "wakes") from the task that ends
                 a wait (its unlock, up: the task running when the wait ends)
                 to the woken task's next run slice.
The document's "metadata" names the Priora version, the scenario file, its
protocol, tick rate, time unit and cost model.
Timestamps ("ts", "dur") are in microseconds, as the format wants, from the
trace's ns times (floats, so nothing is rounded away).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from priora import __version__
from priora.run.simulate import SimResult
from priora.trace.timeline import Interval, ServiceMark, TaskTimeline, Timeline, extract

PID = 1
CPU_TID = 1_000_000  # the CPU lane
MUTEX_TID = 2_000_000  # + resource index: a mutex's lane

Event = dict[str, Any]


def write(result: SimResult, path: Path, provenance: Mapping[str, Any] | None = None) -> None:
    """Writes the trace of `result` to `path` as a Chrome trace JSON file;
    `provenance` (priora.provenance), when given, goes into the format's
    metadata dictionary, otherData, which viewers show beside the trace."""
    unit = json.dumps(_display_unit(result))
    about = (
        "" if provenance is None else '"otherData": {"provenance": ' + json.dumps(dict(provenance)) + "},\n"
    )
    with path.open("w", encoding="utf-8") as out:
        # One event per line: readable, and diffs of two runs stay small.
        out.write('{"displayTimeUnit": ' + unit + ",\n" + about)
        out.write('"metadata": ' + json.dumps(run_metadata(result), sort_keys=True) + ",\n")
        out.write('"traceEvents": [\n')
        out.write(",\n".join(json.dumps(e, sort_keys=True) for e in to_events(result)))
        out.write("\n]}\n")


def to_events(result: SimResult) -> list[Event]:
    """Every event of the trace file: metadata first, then by time."""
    timeline = extract(result)
    events = _metadata(timeline)
    timed: list[Event] = _cpu_lane(timeline) + _mutex_lanes(timeline) + _flows(timeline)
    for task in timeline.tasks:
        timed += _slices(task) + _instants(task) + _priority_counter(task)
    timed += [_interrupt_instant(m) for m in timeline.interrupt_marks]
    # Stable: at one instant the order of each task's events is kept (a slice
    # before the slices nested in it).
    timed.sort(key=lambda e: e["ts"])
    return events + timed


def _display_unit(result: SimResult) -> str:
    # The format knows "ms" and "ns" only; µs scenarios read better in ns.
    return "ns" if result.scenario.system.time_unit == "us" else "ms"


def _us(ns: int) -> float:
    # Rounded to the ns, so that a slice nested in another, ending at the same
    # ns, ends at the same microsecond value too (no float drift).
    return round(ns / 1000.0, 3)


def _tid(task: TaskTimeline) -> int:
    return task.task + 1  # tid 0 reads as "no thread" in some viewers


# ---------------------------------------------------------------- metadata


def run_metadata(result: SimResult) -> dict[str, Any]:
    """What the run was: the document's "metadata"."""
    system = result.scenario.system
    model = system.cost_model
    return {
        "priora": __version__,
        "scenario": Path(result.scenario.source).name,
        "protocol": system.protocol,
        "tick_hz": system.tick_hz,
        "time_unit": system.time_unit,
        "cost_model": "zero" if model is None or model.is_zero() else model.name,
    }


def _metadata(timeline: Timeline) -> list[Event]:
    name = f"priora: {Path(timeline.scenario.source).name} (protocol {timeline.scenario.system.protocol})"
    events: list[Event] = [{"name": "process_name", "ph": "M", "pid": PID, "tid": 0, "args": {"name": name}}]
    events += _thread(CPU_TID, "CPU", -1)
    ranked = timeline.by_urgency()
    for rank, task in enumerate(ranked):
        events += _thread(_tid(task), f"{task.name} (p{task.base_priority})", rank)
    for i, resource in enumerate(timeline.scenario.resources):
        if resource.kind == "mutex":
            events += _thread(MUTEX_TID + i, f"mutex {resource.name}", len(ranked) + i)
    return events


def _thread(tid: int, name: str, rank: int) -> list[Event]:
    return [
        {"name": "thread_name", "ph": "M", "pid": PID, "tid": tid, "args": {"name": name}},
        {"name": "thread_sort_index", "ph": "M", "pid": PID, "tid": tid, "args": {"sort_index": rank}},
    ]


# ---------------------------------------------------------------- lanes


def _lane_slice(tid: int, name: str, cat: str, start: int, end: int, args: dict[str, Any]) -> Event:
    return {"name": name, "cat": cat, "ph": "X", "pid": PID, "tid": tid, "ts": _us(start),
            "dur": _us(end - start), "args": args}  # fmt: skip


Piece = tuple[int, int, str, dict[str, Any]]  # start, end, name, args


def _one_at_a_time(pieces: list[Piece]) -> list[Piece]:
    """Pieces (start, end, ...) of a lane that only one can occupy at a time,
    in order, each cut to begin where the one before ended (on QEMU a
    record's time and the switch's differ by a few instructions)."""
    out: list[Piece] = []
    last_end = 0
    for start, end, name, args in sorted(pieces, key=lambda p: (p[0], p[1])):
        start = max(start, last_end)
        if end > start:
            out.append((start, end, name, args))
            last_end = end
    return out


def _cpu_lane(timeline: Timeline) -> list[Event]:
    pieces = [(r.start, r.end, t.name, {"task": t.name}) for t in timeline.tasks for r in t.executions]
    return [_lane_slice(CPU_TID, name, "cpu", s, e, args) for s, e, name, args in _one_at_a_time(pieces)]


def _mutex_lanes(timeline: Timeline) -> list[Event]:
    events: list[Event] = []
    for i, resource in enumerate(timeline.scenario.resources):
        if resource.kind != "mutex":
            continue
        pieces = [
            (cs.start, cs.end, f"held by {t.name}", {"holder": t.name, "aborted": cs.aborted})
            for t in timeline.tasks
            for cs in t.critical_sections
            if cs.resource == resource.name
        ]
        events += [_lane_slice(MUTEX_TID + i, n, "hold", s, e, a) for s, e, n, a in _one_at_a_time(pieces)]
    return events


def _priority_counter(task: TaskTimeline) -> list[Event]:
    """The effective priority as a counter: the base at the first release,
    then every change."""
    first = task.releases[0].time if task.releases else 0
    points = [(first, task.base_priority)] + [(c.time, c.new) for c in task.priority_changes]
    return [{"name": f"priority {task.name}", "cat": "priority", "ph": "C", "pid": PID, "ts": _us(t),
             "args": {"priority": p}} for t, p in points]  # fmt: skip


def _flows(timeline: Timeline) -> list[Event]:
    """An arrow from the task running when a wait ends (it unlocked or upped
    the semaphore) to the woken task's next run slice. A wait that timed out,
    or that an interrupt or the tick ended, has none."""
    events: list[Event] = []
    flow = 0
    for task in timeline.tasks:
        for b in task.blocked:
            if b.timed_out:
                continue
            waker = next(
                ((other, run) for other in timeline.tasks if other is not task for run in other.executions
                 if run.start < b.end <= run.end),
                None,
            )  # fmt: skip
            woken = next((run for run in task.executions if run.start >= b.end), None)
            if waker is None or woken is None:
                continue
            other, run = waker
            flow += 1
            common = {"name": "wakes", "cat": "wake", "pid": PID, "id": flow}
            events.append({**common, "ph": "s", "tid": _tid(other), "ts": _us(b.end)})
            events.append({**common, "ph": "f", "bp": "e", "tid": _tid(task), "ts": _us(woken.start)})
    return events


# ---------------------------------------------------------------- slices


def _slice(task: TaskTimeline, name: str, cat: str, interval: Interval, args: dict[str, Any]) -> Event:
    return {
        "name": name,
        "cat": cat,
        "ph": "X",
        "pid": PID,
        "tid": _tid(task),
        "ts": _us(interval.start),
        "dur": _us(interval.duration),
        "args": args,
    }


def _slices(task: TaskTimeline) -> list[Event]:
    events: list[Event] = []
    for run in _runs_by_job(task):
        events.append(_slice(task, "run", "execution", run, {"job": task.job_at(run.start)}))
        for name, piece in _nested_sections(task, run):
            resource, kind = _piece_name(name)
            args: dict[str, Any] = {"resource": resource}
            if kind == RECOVERY:
                args["waiter"] = next(
                    r.waiter
                    for r in task.recoveries
                    if r.resource == resource and r.start <= piece.start < r.end
                )
                events.append(_slice(task, f"{resource} (recovery)", "recovery", piece, args))
                continue
            if kind == ABORTED:
                args["aborted"] = True
            label = f"{resource} (aborted)" if kind == ABORTED else resource
            events.append(_slice(task, label, "critical section", piece, args))
    for b in task.blocked:
        wait: dict[str, Any] = {"resource": b.resource, "timed_out": b.timed_out}
        name = f"blocked on {b.resource}"
        if b.ceiling is not None:
            name += " by the ceiling"
            wait.update(ceiling=b.ceiling, holder=b.holder)
        for piece in _outside(b, task.executions):
            events.append(_slice(task, name, "blocked", piece, wait))
    return events


def _outside(interval: Interval, runs: tuple[Interval, ...]) -> list[Interval]:
    """The parts of `interval` during which the task is not seen running."""
    parts = [Interval(interval.start, interval.end)]
    for run in runs:
        if run.end <= interval.start or run.start >= interval.end:
            continue
        parts = [p for q in parts for p in _minus(q, run)]
    return [p for p in parts if p.end > p.start]


def _minus(a: Interval, b: Interval) -> list[Interval]:
    return [Interval(a.start, min(a.end, b.start)), Interval(max(a.start, b.end), a.end)]


# Appended to a resource name inside _nested_sections (not a name's character):
# a section rcs aborted, and an aborted holder's recovery.
ABORTED = "\0aborted"
RECOVERY = "\0recovery"


def _piece_name(name: str) -> tuple[str, str]:
    """(resource, "" or ABORTED or RECOVERY) of a piece's name."""
    for kind in (ABORTED, RECOVERY):
        if name.endswith(kind):
            return name[: -len(kind)], kind
    return name, ""


def _runs_by_job(task: TaskTimeline) -> list[Interval]:
    """The execution intervals, cut where a job finishes and the next one goes
    on at once (an overrun), so that each slice is one job's. No critical
    section crosses such a cut: a job ends holding no mutex."""
    runs = []
    for run in task.executions:
        start = run.start
        for f in task.finishes:
            if start < f.time < run.end:
                runs.append(Interval(start, f.time))
                start = f.time
        runs.append(Interval(start, run.end))
    return runs


def _nested_sections(task: TaskTimeline, run: Interval) -> list[tuple[str, Interval]]:
    """The critical sections within `run`, cut so that they nest.

    Slices on one track must nest. Holds usually do (lock A, lock B, unlock B,
    unlock A), but not always (..., unlock A, unlock B): then at A's end, B is
    cut, A closed, and B goes on as a new slice one level up.
    """
    pieces = []
    for cs in task.critical_sections:
        start, end = max(cs.start, run.start), min(cs.end, run.end)
        if end > start:
            pieces.append((cs.resource + (ABORTED if cs.aborted else ""), start, end))
    for rec in task.recoveries:
        start, end = max(rec.start, run.start), min(rec.end, run.end)
        if end > start:
            pieces.append((rec.resource + RECOVERY, start, end))
    pieces.sort(key=lambda p: (p[1], -p[2]))  # outer first at one instant
    stack: list[tuple[str, int, int]] = []  # open slices, outermost first: (resource, since, end)
    out: list[tuple[str, Interval]] = []
    for t in sorted({p[1] for p in pieces} | {p[2] for p in pieces}):
        _close_at(stack, t, out)  # ends before starts: [start, end) intervals
        stack += [p for p in pieces if p[1] == t]
    return sorted(out, key=lambda p: (p[1].start, -p[1].end))


def _close_at(stack: list[tuple[str, int, int]], t: int, out: list[tuple[str, Interval]]) -> None:
    """Closes, at `t`, the slices that end at `t` and every slice above them,
    then reopens at `t` those above that go on."""
    ending = [i for i, (_, _, end) in enumerate(stack) if end <= t]
    if not ending:
        return
    cut = stack[ending[0] :]
    del stack[ending[0] :]
    for resource, since, _ in cut:
        out.append((resource, Interval(since, t)))
    stack += [(resource, t, end) for resource, _, end in cut if end > t]


# ---------------------------------------------------------------- instants


def _instant(task: TaskTimeline, name: str, cat: str, ns: int, args: dict[str, Any]) -> Event:
    return {"name": name, "cat": cat, "ph": "i", "s": "t", "pid": PID, "tid": _tid(task), "ts": _us(ns),
            "args": args}  # fmt: skip


def _instants(task: TaskTimeline) -> list[Event]:
    events = [_instant(task, "release", "job", r.time, {"job": r.job}) for r in task.releases]
    events += [_instant(task, "deadline miss", "job", m.time, {"job": m.job}) for m in task.misses]
    events += [_instant(task, "job done", "job", f.time, {"job": f.job}) for f in task.finishes]
    for c in task.priority_changes:
        args = {"old": c.old, "new": c.new, "cause": c.cause, "resource": c.resource}
        events.append(_instant(task, f"priority {c.old}->{c.new}", "priority", c.time, args))
    for a in task.aborts:
        events.append(
            _instant(task, f"abort {a.resource}", "abort", a.time, {"resource": a.resource, "by": a.by})
        )
    for f in task.refusals:
        args = {
            "job": f.job,
            "action": f.action,
            "action_text": f.action_text,
            "error": f.error,
            "cause": f.cause,
            "cycle": f.cycle_list(),
            "base_priority": f.base_priority,
            "ceiling": f.ceiling,
            "skipped": list(f.skipped) if f.skipped is not None else None,
        }
        name = f"refused {f.call} {f.resource} ({f.error})"
        events.append(_instant(task, name, "refusal", f.time, args))
    for m in task.services:
        events.append(_instant(task, *_service(m), m.time, _service_args(m)))
    return events


def _service(m: ServiceMark) -> tuple[str, str]:
    """(name, category) of a message sent or received, flags set, a timer expiring."""
    return f"{m.kind} {m.object}", "service"


def _service_args(m: ServiceMark) -> dict[str, Any]:
    detail = {"send": "priority", "receive": "priority", "set": "flags", "expire": "tick"}[m.kind]
    return {"object": m.object, detail: m.detail}


def _interrupt_instant(m: ServiceMark) -> Event:
    """A call made in an interrupt: on the CPU lane, no task's."""
    name, cat = _service(m)
    return {"name": f"interrupt: {name}", "cat": cat, "ph": "i", "s": "t", "pid": PID, "tid": CPU_TID,
            "ts": _us(m.time), "args": _service_args(m)}  # fmt: skip

"""A run's kernel trace in the Chrome trace event format (the JSON that
Perfetto, ui.perfetto.dev, and chrome://tracing open).

One process (pid 1) with one thread per task (tid = kernel task id + 1,
ordered most urgent first), and on each task's track:
  "X" slices     "run" for each execution interval, and nested in them one
                 slice per critical section (named after the mutex, "R
                 (aborted)" for a section rcs aborted: its work is lost) for
                 the part of the hold during which the task runs, and "R
                 (recovery)" (category "recovery", args resource, waiter) for
                 an aborted holder restoring R's state while `waiter` waits
                 (rcs with a recovery); "blocked on
                 R" for each wait on semaphore R ("blocked on R by the
                 ceiling" for a wait on pcp's system ceiling: args ceiling,
                 holder)
  "i" instants   "release", "deadline miss" (at the deadline of each job the
                 report marks missed, priora.timeline), "job done",
                 "priority a->b" (args: old, new, cause, resource: a boost to
                 a ceiling has cause "ceiling"), "abort R" (rcs: args
                 resource, by) and "refused lock R (PR_E...)" where the kernel
                 refused a call (args: job, action, action_text, error,
                 cause, cycle, base_priority, ceiling, skipped: the report's
                 warning)
Timestamps ("ts", "dur") are in microseconds, as the format wants, from the
trace's ns times (floats, so nothing is rounded away).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from priora.simulate import SimResult
from priora.timeline import Interval, ServiceMark, TaskTimeline, Timeline, extract

PID = 1

Event = dict[str, Any]


def write(result: SimResult, path: Path) -> None:
    """Writes the trace of `result` to `path` as a Chrome trace JSON file."""
    unit = json.dumps(_display_unit(result))
    with path.open("w", encoding="utf-8") as out:
        # One event per line: readable, and diffs of two runs stay small.
        out.write('{"displayTimeUnit": ' + unit + ',\n"traceEvents": [\n')
        out.write(",\n".join(json.dumps(e, sort_keys=True) for e in to_events(result)))
        out.write("\n]}\n")


def to_events(result: SimResult) -> list[Event]:
    """Every event of the trace file: metadata first, then by time."""
    timeline = extract(result)
    events = _metadata(timeline)
    timed: list[Event] = []
    for task in timeline.tasks:
        timed += _slices(task) + _instants(task)
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


def _metadata(timeline: Timeline) -> list[Event]:
    name = f"priora: {Path(timeline.scenario.source).name} (protocol {timeline.scenario.system.protocol})"
    events: list[Event] = [{"name": "process_name", "ph": "M", "pid": PID, "tid": 0, "args": {"name": name}}]
    for rank, task in enumerate(timeline.by_urgency()):
        label = f"{task.name} (p{task.base_priority})"
        events.append(_meta("thread_name", task, {"name": label}))
        events.append(_meta("thread_sort_index", task, {"sort_index": rank}))
    return events


def _meta(name: str, task: TaskTimeline, args: dict[str, Any]) -> Event:
    return {"name": name, "ph": "M", "pid": PID, "tid": _tid(task), "args": args}


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
        events.append(_slice(task, name, "blocked", b, wait))
    return events


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
    """A call made in an interrupt: an instant of the whole process, on no task's row."""
    name, cat = _service(m)
    return {"name": f"interrupt: {name}", "cat": cat, "ph": "i", "s": "p", "pid": PID, "ts": _us(m.time),
            "args": _service_args(m)}  # fmt: skip

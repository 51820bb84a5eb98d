"""A checker of the Chrome trace JSON that `--trace` writes, for Perfetto:
what a viewer needs to draw it faithfully. Used by tests/lab/test_perfetto.py
(every example under every protocol on the host) and test_qemu_run.py (the
same on QEMU). Returns the problems found, one line each; none means good.

Checked:
  - the document: "traceEvents", "displayTimeUnit", and "metadata" naming the
    Priora version, scenario, protocol, tick rate, time unit and cost model;
  - every event has its format's fields (name, ph, pid; tid except on
    counters; ts except on metadata; dur >= 0 on "X"; args of a counter are
    numbers);
  - every track that has events has a name (a thread_name "M" event);
  - slices nest on every track: two "X" slices of one track are disjoint or
    one holds the other (Perfetto draws overlapping slices wrongly);
  - every flow has its start and its end, the start inside a slice of its
    track and the end at the start of a slice of its track.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

EPS = 1e-6  # µs: times are written rounded to the ns
REQUIRED_METADATA = ("priora", "scenario", "protocol", "tick_hz", "time_unit", "cost_model")


def check_file(path: Path) -> list[str]:
    return check(json.loads(path.read_text()))


def check(doc: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    for key in ("displayTimeUnit", "traceEvents", "metadata"):
        if key not in doc:
            problems.append(f"no {key!r} in the document")
    meta = doc.get("metadata", {})
    problems += [f"metadata has no {k!r}" for k in REQUIRED_METADATA if k not in meta]
    events: list[dict[str, Any]] = doc.get("traceEvents", [])
    named: set[int] = set()
    used: set[int] = set()
    slices: dict[int, list[tuple[float, float, str]]] = defaultdict(list)
    flows: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
    for i, e in enumerate(events):
        where = f"event {i} ({e.get('name')!r}, ph {e.get('ph')!r})"
        for field in ("name", "ph", "pid"):
            if field not in e:
                problems.append(f"{where}: no {field!r}")
        ph = e.get("ph")
        if ph != "C" and "tid" not in e:
            problems.append(f"{where}: no 'tid'")
        if ph != "M" and not isinstance(e.get("ts"), (int, float)):
            problems.append(f"{where}: no numeric 'ts'")
        if ph == "M":
            if e.get("name") == "thread_name":
                named.add(e["tid"])
            continue
        if ph != "C":
            used.add(e["tid"])
        if ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, float)) or dur < 0:
                problems.append(f"{where}: 'dur' {dur!r}")
                continue
            slices[e["tid"]].append((e["ts"], e["ts"] + dur, e["name"]))
        elif ph == "C":
            if not e.get("args") or not all(isinstance(v, (int, float)) for v in e["args"].values()):
                problems.append(f"{where}: a counter needs numeric args")
        elif ph in ("s", "f"):
            flows[e.get("id", -1)][ph] = e
        elif ph != "i":
            problems.append(f"{where}: unexpected phase")
    problems += [f"track {tid} has events but no thread_name" for tid in sorted(used - named)]
    for tid, items in slices.items():
        problems += _nesting(tid, items)
    for fid, pair in flows.items():
        if set(pair) != {"s", "f"}:
            problems.append(f"flow {fid}: has {sorted(pair)} only")
            continue
        s, f = pair["s"], pair["f"]
        if not any(a - EPS <= s["ts"] <= b + EPS for a, b, _ in slices.get(s["tid"], [])):
            problems.append(f"flow {fid}: its start at {s['ts']} is in no slice of track {s['tid']}")
        if not any(abs(a - f["ts"]) <= EPS for a, _, _ in slices.get(f["tid"], [])):
            problems.append(f"flow {fid}: its end at {f['ts']} starts no slice of track {f['tid']}")
    return problems


def _nesting(tid: int, items: list[tuple[float, float, str]]) -> list[str]:
    """Slices of one track, outermost first at one instant: each must end
    within the slice it starts in."""
    stack: list[tuple[float, float, str]] = []
    for start, end, name in sorted(items, key=lambda x: (x[0], -x[1])):
        while stack and start >= stack[-1][1] - EPS:
            stack.pop()
        if stack and end > stack[-1][1] + EPS:
            outer = stack[-1]
            return [f"track {tid}: {name!r} [{start}, {end}] overlaps {outer[2]!r} [{outer[0]}, {outer[1]}]"]
        stack.append((start, end, name))
    return []

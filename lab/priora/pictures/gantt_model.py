"""What a Gantt chart of one run shows, computed apart from any drawing:
the rows, and every element to draw, grouped by kind (one group is one
matplotlib collection in priora.pictures.gantt, and could be one layer of another
renderer). No matplotlib here: the command checks the chart's options with
this module before a run.

The chart covers a window of the run (the whole run, FROM:TO, or around the
first deadline miss). At each scale it draws only what can be seen
(docs/lab.md, "The Gantt chart at scale"):

  detailed     every element, as in a short run
  aggregated   when some row has more releases in the window than the time
               axis has pixels / JOB_PIXELS: each row shows, per slice (1, 2
               or 5 times a power of ten of the file's unit, the shortest
               at least SLICE_PIXELS pixels wide, aligned on its multiples;
               the window's ends cut the first and the last), the share of
               the slice the task ran (stacked by the mutex it held) and the
               share it was blocked;
               the other intervals of one kind on a row less than a pixel
               apart merge into one; the instants become thin ticks or
               markers, one per pixel; the labels (pN, semaphore and error
               names) and the pale critical-section bands are dropped

Every position is in the scenario file's time unit; rows are numbered from
the bottom (row 0, the least urgent task) up.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Literal

from priora.errors import PrioraError
from priora.record import field, record
from priora.scenario.model import NS_PER_SECOND, UNITS_PER_SECOND, Scenario
from priora.trace.timeline import (
    Blocked,
    Boost,
    CriticalSection,
    Interval,
    Mark,
    Recovery,
    TaskTimeline,
    Timeline,
)

UNIT_LABEL = {"tick": "ticks", "us": "µs", "ms": "ms"}
TARGET_TEXT = {
    "host": "host port (simulated)",
    "qemu-rv32": "qemu-rv32 (the kernel under QEMU, RV32)",
    "qemu-rv64": "qemu-rv64 (the kernel under QEMU, RV64)",
    "trace": "a recorded trace (priora trace)",
}
FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}

DPI = 120  # default
DPI_RANGE = (20, 1200)
SIZE_RANGE = (2.0, 100.0)  # inches, each side
MAX_PIXELS = 50_000_000  # width x height of the chart, at its dpi
JOB_PIXELS = 12  # below this many pixels per job on a row, the chart aggregates
SLICE_PIXELS = 4  # width of one slice of an aggregated row
MISS_MARGIN = 2  # --window miss: this many relative deadlines either side of the miss
AXIS_SHARE = 0.75  # share of the figure's width the time axis gets, about
LABEL_CHAR_INCHES = 0.07  # width of one character of a 7 pt label, roughly
TICKS = ("release", "deadline", "missed deadline")  # drawn as ticks when aggregated

_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)[xX](\d+(?:\.\d+)?)")

Window = tuple[int, int | None] | Literal["miss"]  # ns (None: the end of the run), or "miss"
SpanKind = Literal["hold", "running", "lost", "recovery", "blocked", "wait", "boost", "overrun"]
InstantKind = Literal[
    "release", "deadline", "missed deadline", "miss", "abort", "refusal", "send", "receive", "set", "expire"
]
SERVICE_KINDS: tuple[InstantKind, ...] = ("send", "receive", "set", "expire")  # ServiceMark.kind
LabelKind = Literal["semaphore", "boost", "error"]


class OptionError(PrioraError):
    """A bad chart option: the message starts with the option's name."""


# ---------------------------------------------------------------- options


def parse_window(text: str, scenario: Scenario) -> Window:
    """--window FROM:TO (the file's time unit; FROM empty: 0; TO empty: the
    end of the run) or `miss`. The end of the run is checked by `resolve`;
    here, against the scenario's horizon when it has one."""
    if text == "miss":
        return "miss"
    unit = scenario.system.time_unit
    shape = f'--window: {text}: expected FROM:TO (times in {UNIT_LABEL[unit]}, such as 0:50) or "miss"'
    if text.count(":") != 1:
        raise OptionError(shape)
    first, last = text.split(":")
    if not first and not last:
        raise OptionError(shape)
    start = _window_time(text, "FROM", first or "0", scenario)
    end = _window_time(text, "TO", last, scenario) if last else None
    if end is not None and start >= end:
        raise OptionError(f"--window: {text}: FROM must be before TO")
    horizon = scenario.horizon_ticks()
    if horizon is not None:
        _check_inside(text, start, end, scenario.ticks_to_ns(horizon), scenario)
    return (start, end)


def _window_time(text: str, name: str, value: str, scenario: Scenario) -> int:
    unit = UNIT_LABEL[scenario.system.time_unit]
    if not _NUMBER.fullmatch(value):
        raise OptionError(f'--window: {text}: {name} must be a number >= 0 in {unit}, got "{value}"')
    number = Decimal(value)
    if number and number.adjusted() > 30:
        raise OptionError(f"--window: {text}: {name} {value} is out of range")
    return round(Fraction(number) * _ns_per_unit(scenario))


def _ns_per_unit(scenario: Scenario) -> Fraction:
    unit = scenario.system.time_unit
    if unit == "tick":
        return Fraction(NS_PER_SECOND, scenario.system.tick_hz)
    return Fraction(NS_PER_SECOND, UNITS_PER_SECOND[unit])


def _check_inside(text: str, start: int, end: int | None, limit: int, scenario: Scenario) -> None:
    shown = f"{_fmt(scenario.to_unit(limit))} {UNIT_LABEL[scenario.system.time_unit]}"
    if end is not None and end > limit:
        raise OptionError(f"--window: {text}: TO is after the end of the run ({shown})")
    if start >= limit:
        raise OptionError(f"--window: {text}: FROM is not before the end of the run ({shown})")


def parse_size(text: str) -> tuple[float, float]:
    """--size WxH, in inches."""
    found = _SIZE.fullmatch(text)
    if not found:
        raise OptionError(f"--size: {text}: expected WxH in inches, such as 12x4")
    low, high = SIZE_RANGE
    size = (float(Decimal(found[1])), float(Decimal(found[2])))
    if not all(low <= side <= high for side in size):
        raise OptionError(f"--size: {text}: each side must be from {low:g} to {high:g} inches")
    return size


def parse_dpi(text: str) -> int:
    """--dpi N: dots per inch, a whole number."""
    low, high = DPI_RANGE
    if not text.isdigit() or not low <= int(text) <= high:
        raise OptionError(f"--dpi: {text}: must be a whole number from {low} to {high}")
    return int(text)


def check_pixels(size: tuple[float, float], dpi: int, option: str) -> None:
    """At most MAX_PIXELS: `option` (--size or --dpi) is the one to change."""
    width, height = round(size[0] * dpi), round(size[1] * dpi)
    if width * height > MAX_PIXELS:
        value = f"{_fmt(size[0])}x{_fmt(size[1])}" if option == "--size" else str(dpi)
        raise OptionError(
            f"{option}: {value}: a chart of {_fmt(size[0])}x{_fmt(size[1])} inches at {dpi} dpi "
            f"is {width}x{height} pixels (at most {MAX_PIXELS // 1_000_000} million)"
        )


def default_size(timeline: Timeline, start: int, end: int, legend_entries: int) -> tuple[float, float]:
    """Wide enough for a few hundred ticks of the window to stay apart, within
    a page; tall enough for the rows and for the legend."""
    ticks = (end - start) * timeline.scenario.system.tick_hz / NS_PER_SECOND
    width = min(24.0, max(8.0, 4.0 + 0.06 * ticks))
    rows = len(timeline.tasks)
    return width, max(1.6 + 0.8 * rows, 1.0 + 0.2 * legend_entries)


def _fmt(value: float) -> str:
    return f"{value:.6g}"


# ---------------------------------------------------------------- the model


@record(frozen=True)
class Row:
    name: str
    base_priority: int
    y: int  # 0: the bottom row
    nice: int | None = None  # a time-sharing task's nice value; None: a real-time task

    def label(self) -> str:
        """The row's name with its priority, or its band and nice value."""
        if self.nice is not None:
            return f"{self.name}  (ts, nice {self.nice})"
        return f"{self.name}  (p{self.base_priority})"


@record(frozen=True)
class Spans:
    """Intervals drawn alike: `key` is the resource (hold, running inside a
    section, lost, recovery, blocked), the cause of a boost ("inherit",
    "ceiling"), or "" (running outside any section, overrun); `variant` of
    blocked: "", "timed out", "ceiling" or "ceiling, timed out"."""

    kind: SpanKind
    key: str
    variant: str
    rows: tuple[int, ...]
    starts: tuple[float, ...]
    ends: tuple[float, ...]


@record(frozen=True)
class Instants:
    kind: InstantKind
    rows: tuple[int, ...]
    times: tuple[float, ...]


@record(frozen=True)
class Label:
    kind: LabelKind
    row: int
    x: float
    text: str


@record(frozen=True)
class Shares:
    """Aggregated: per slice (Plan.slices), the share of the slice between
    `bottom` and `top` (0..1) on `row`: running (key: the mutex held, or "")
    or blocked (key "")."""

    kind: Literal["running", "blocked"]
    key: str
    row: int
    bottom: tuple[float, ...]
    top: tuple[float, ...]


@record(frozen=True)
class Plan:
    title: str
    subtitle: str
    unit: str  # the x axis's unit ("ms")
    start: float  # the window, in the file's unit
    end: float
    rows: tuple[Row, ...]  # the most urgent first
    resources: tuple[str, ...]  # every resource, in file order (their colours)
    pixel: float  # the file's unit per pixel of the time axis
    aggregated: bool
    slices: tuple[float, ...] = ()  # edges of the aggregated slices
    spans: tuple[Spans, ...] = ()
    shares: tuple[Shares, ...] = ()
    instants: tuple[Instants, ...] = ()
    labels: tuple[Label, ...] = ()
    notice: str | None = None  # for the user: what the chart does instead of what was asked
    elements: tuple[tuple[str, str, str], ...] = field(default=())  # (kind, key, variant) drawn

    def spans_of(self, kind: SpanKind, key: str | None = None) -> list[Spans]:
        return [s for s in self.spans if s.kind == kind and (key is None or s.key == key)]

    def instants_of(self, kind: InstantKind) -> Instants | None:
        return next((i for i in self.instants if i.kind == kind), None)


def target_text(target: str) -> str:
    return TARGET_TEXT.get(target, target)


def subtitle(scenario: Scenario, target: str) -> str:
    if target == "host":
        model = scenario.system.cost_model
        costs = f"cost model {model.name if model is not None else 'zero'}"
    elif target == "trace":  # read from a program's trace: its own costs, whatever they were
        costs = "costs: the traced program's own"
    else:  # the kernel's own instructions cost the time; no model is applied
        costs = "costs: the kernel's instructions (no cost model)"
    return f"{target_text(target)}, protocol {scenario.system.protocol}, {costs}"


def resolve(window: Window | None, timeline: Timeline) -> tuple[int, int, str | None]:
    """The window in ns, and a notice when `miss` found no miss."""
    end = timeline.end
    if window is None:
        return 0, end, None
    if window == "miss":
        first = first_miss(timeline)
        if first is None:
            return 0, end, "--window miss: no job missed its deadline; the chart shows the whole run"
        at, relative = first
        margin = MISS_MARGIN * relative
        return max(0, at - margin), min(end, at + margin), None
    start, stop = window
    to_unit = timeline.scenario.to_unit
    text = f"{_fmt(to_unit(start))}:{'' if stop is None else _fmt(to_unit(stop))}"
    _check_inside(text, start, stop, end, timeline.scenario)
    return start, end if stop is None else stop, None


def first_miss(timeline: Timeline) -> tuple[int, int] | None:
    """(the deadline of the first job that missed it, its task's relative
    deadline), in ns; at one instant, the most urgent task's."""
    found: list[tuple[int, int, int]] = []
    for t in timeline.tasks:
        if t.misses:
            model = timeline.scenario.tasks[t.task]
            relative = timeline.scenario.ticks_to_ns(model.deadline or model.period or 0)
            found.append((t.misses[0].time, -t.base_priority, relative))
    if not found:
        return None
    at, _, relative = min(found)
    return at, relative


def plan(
    timeline: Timeline,
    *,
    window: tuple[int, int] | None = None,
    axis_pixels: float,
    dpi: float,
    target: str = "host",
    title: str | None = None,
    notice: str | None = None,
) -> Plan:
    """What to draw of `timeline` in `window` (ns; None: the whole run) on a
    time axis `axis_pixels` wide at `dpi`."""
    scenario = timeline.scenario
    start_ns, end_ns = window if window is not None else (0, timeline.end)
    start, end = scenario.to_unit(start_ns), scenario.to_unit(end_ns)
    pixel = (end - start) / max(axis_pixels, 1.0) or 1e-9  # a run of no time: any width
    order = timeline.by_urgency()
    ys = {t.task: len(order) - 1 - i for i, t in enumerate(order)}
    releases = max((_count_in(t.releases, start_ns, end_ns) for t in order), default=0)
    aggregated = releases * JOB_PIXELS > axis_pixels
    b = _Builder(timeline, start_ns, end_ns, pixel, dpi, aggregated)
    for task in order:
        b.row(task, ys[task.task])
    if aggregated:
        b.slice_shares(order, ys, axis_pixels)
    text = subtitle(scenario, target)
    shown = UNIT_LABEL[scenario.system.time_unit]
    if window is not None and (start_ns, end_ns) != (0, timeline.end):
        text += f"\nwindow {_fmt(start)} to {_fmt(end)} of {_fmt(scenario.to_unit(timeline.end))} {shown}"
    if aggregated:
        text += f"\naggregated: bar height = share of each {_fmt(b.slice)} {shown} slice"
    spans = tuple(b.spans.values())
    shares = tuple(b.shares)
    instants = tuple(b.instants.values())
    rows = tuple(Row(t.name, t.base_priority, ys[t.task], _nice(scenario, t.task)) for t in order)
    # Both bands drawn: the line between them (every time-sharing row is below every real-time one).
    bands = {("band", "", "")} if len({r.nice is None for r in rows}) == 2 else set()
    elements = sorted(
        bands
        | {(s.kind, s.key, s.variant) for s in spans if s.rows}
        | {(s.kind, s.key, "share") for s in shares}
        | {(i.kind, "", "tick" if aggregated and i.kind in TICKS else "") for i in instants if i.rows}
        | {("label", lb.kind, "") for lb in b.labels}
    )
    return Plan(
        title=title or _default_title(scenario),
        subtitle=text,
        unit=shown,
        start=start,
        end=end,
        rows=rows,
        resources=tuple(r.name for r in scenario.resources),
        pixel=pixel,
        aggregated=aggregated,
        slices=tuple(b.slices),
        spans=spans,
        shares=shares,
        instants=instants,
        labels=tuple(b.labels),
        notice=notice,
        elements=tuple(elements),
    )


def _nice(scenario: Scenario, task: int) -> int | None:
    """Task `task`'s nice value if it is a time-sharing task, else None (the
    timer service, after the file's tasks, is real-time)."""
    if task < len(scenario.tasks) and scenario.tasks[task].timeshare:
        return scenario.tasks[task].nice
    return None


def _default_title(scenario: Scenario) -> str:
    return Path(scenario.source).name


def _count_in(marks: Sequence[Mark], start: int, end: int) -> int:
    times = [m.time for m in marks]
    return bisect_right(times, end) - bisect_left(times, start)


class _Builder:
    """Collects the elements of the rows, each kind into its group."""

    def __init__(
        self, timeline: Timeline, start: int, end: int, pixel: float, dpi: float, aggregated: bool
    ) -> None:
        self.scenario = timeline.scenario
        self.run_end = timeline.end
        self.start, self.end = start, end
        self.pixel = pixel  # file unit per pixel
        self.dpi = dpi
        self.spans: dict[tuple[str, str, str], Spans] = {}
        self.instants: dict[str, Instants] = {}
        self.labels: list[Label] = []
        self.shares: list[Shares] = []
        self.slices: list[float] = []
        self._pieces: dict[int, list[tuple[int, int, str, str]]] = {}
        self._blocked: dict[int, list[Interval]] = {}
        self.aggregated = aggregated
        self.slice = 0.0  # file unit
        self.ns_per_unit = _ns_per_unit(self.scenario)

    def x(self, ns: int) -> float:
        return self.scenario.to_unit(ns)

    def clip(self, intervals: Iterable[Interval]) -> list[tuple[int, int]]:
        out = []
        for i in intervals:
            s, e = max(i.start, self.start), min(i.end, self.end)
            if e > s:
                out.append((s, e))
        return out

    def add_spans(
        self, kind: SpanKind, key: str, variant: str, y: int, pieces: list[tuple[int, int]]
    ) -> None:
        """Adds `pieces` (ns, in time order) to their group, merged where less than a pixel apart."""
        if not pieces:
            return
        merged: list[list[float]] = []
        for s, e in pieces:
            xs, xe = self.x(s), self.x(e)
            if self.aggregated and merged and xs - merged[-1][1] < self.pixel:
                merged[-1][1] = max(merged[-1][1], xe)
            else:
                merged.append([xs, xe])
        old = self.spans.get((kind, key, variant))
        rows = (old.rows if old else ()) + (y,) * len(merged)
        starts = (old.starts if old else ()) + tuple(m[0] for m in merged)
        ends = (old.ends if old else ()) + tuple(m[1] for m in merged)
        self.spans[(kind, key, variant)] = Spans(kind, key, variant, rows, starts, ends)

    def add_instants(self, kind: InstantKind, y: int, times: list[int], dedupe: bool) -> None:
        xs = [self.x(t) for t in times if self.start <= t <= self.end]
        if dedupe:  # one per pixel: more cannot be told apart
            seen: dict[int, float] = {}
            for x in xs:
                seen.setdefault(math.floor((x - self.x(self.start)) / self.pixel), x)
            xs = list(seen.values())
        if not xs:
            return
        old = self.instants.get(kind)
        rows = (old.rows if old else ()) + (y,) * len(xs)
        self.instants[kind] = Instants(kind, rows, (old.times if old else ()) + tuple(xs))

    def fits(self, width_units: float, text: str) -> bool:
        return width_units / self.pixel / self.dpi >= LABEL_CHAR_INCHES * (len(text) + 2)

    def row(self, task: TaskTimeline, y: int) -> None:
        aggregated = self.aggregated
        pieces = [(s, e, k, st) for s, e, k, st in running_pieces(task) if e > self.start and s < self.end]
        pieces = [(max(s, self.start), min(e, self.end), k, st) for s, e, k, st in pieces]
        self._pieces[y] = pieces
        self._blocked[y] = list(task.blocked)
        if not aggregated:
            # A recovering holder still holds the mutex: its band goes on.
            holds: list[CriticalSection | Recovery] = [*task.critical_sections, *task.recoveries]
            holds.sort(key=lambda h: h.start)
            for name in self.scenario_resources():
                self.add_spans("hold", name, "", y, self.clip(h for h in holds if h.resource == name))
            for name in self.scenario_resources():
                for variant in ("", "timed out", "ceiling", "ceiling, timed out"):
                    chosen = (
                        b for b in task.blocked if b.resource == name and _blocked_variant(b) == variant
                    )
                    self.add_spans("blocked", name, variant, y, self.clip(chosen))
            self._running(y, pieces)
        for cause in ("inherit", "ceiling"):
            boosts = [b for b in task.boosts if (b.cause == "ceiling") == (cause == "ceiling")]
            self.add_spans("boost", cause, "", y, self.clip(boosts))
            if not aggregated:
                self._boost_labels(boosts, y)
        self._misses(task, y)
        self.add_instants("release", y, [r.time for r in task.releases], aggregated)
        missed = {m.job for m in task.misses}
        # A deadline after the end of the run is not part of the picture.
        self.add_instants("deadline", y, [d.time for d in task.deadlines if d.job not in missed], aggregated)
        self.add_instants(
            "missed deadline", y, [d.time for d in task.deadlines if d.job in missed], aggregated
        )
        self.add_instants("abort", y, [a.time for a in task.aborts], aggregated)
        # Waits on queues and event flags (a grey outline), and the marks of
        # messages sent and received, flags set, timers expiring.
        for variant in ("", "timed out"):
            waits = [w for w in task.waits if w.timed_out == (variant == "timed out")]
            self.add_spans("wait", "", variant, y, self.clip(waits))
        for kind in SERVICE_KINDS:
            self.add_instants(kind, y, [m.time for m in task.services if m.kind == kind], aggregated)
        self.add_instants("refusal", y, [f.time for f in task.refusals], aggregated)
        if not aggregated:
            self._blocked_labels(task, y)
            for f in task.refusals:
                if self.start <= f.time <= self.end:
                    self.labels.append(Label("error", y, self.x(f.time), f.error.removeprefix("PR_")))

    def scenario_resources(self) -> list[str]:
        return [r.name for r in self.scenario.resources]

    def _running(self, y: int, pieces: list[tuple[int, int, str, str]]) -> None:
        groups: dict[tuple[SpanKind, str], list[tuple[int, int]]] = {}
        for s, e, key, state in pieces:
            kind: SpanKind = "running" if state == "" else "lost" if state == "lost" else "recovery"
            groups.setdefault((kind, key), []).append((s, e))
        for (kind, key), found in sorted(groups.items()):
            self.add_spans(kind, key, "", y, found)

    def _misses(self, task: TaskTimeline, y: int) -> None:
        deadlines = {d.job: d.time for d in task.deadlines}
        finishes = {f.job: f.time for f in task.finishes}
        overruns = []
        for m in task.misses:
            begin = deadlines.get(m.job, m.time)
            # Late until it finishes; a job that never finished is late to the end.
            overruns.append(Interval(begin, max(begin, finishes.get(m.job, self.run_end))))
        self.add_spans("overrun", "", "", y, self.clip(sorted(overruns, key=lambda i: i.start)))
        if not self.aggregated:  # else the red ticks of the missed deadlines mark them
            self.add_instants("miss", y, [m.time for m in task.misses], False)

    def _boost_labels(self, boosts: list[Boost], y: int) -> None:
        """The raised priority above each boost's line, unless it would
        overlap the label before it on the row."""
        last = -math.inf
        for b in boosts:
            s, e = max(b.start, self.start), min(b.end, self.end)
            text = f"p{b.priority}"
            x = (self.x(s) + self.x(e)) / 2
            if e > s and self.fits(x - last, text):
                self.labels.append(Label("boost", y, x, text))
                last = x

    def _blocked_labels(self, task: TaskTimeline, y: int) -> None:
        for b in task.blocked:
            s, e = max(b.start, self.start), min(b.end, self.end)
            if e > s and self.fits(self.x(e) - self.x(s), b.resource):
                self.labels.append(Label("semaphore", y, (self.x(s) + self.x(e)) / 2, b.resource))

    def slice_shares(self, order: list[TaskTimeline], ys: dict[int, int], axis_pixels: float) -> None:
        """Per row, the share of each slice the task ran (stacked: the mutexes
        held in file order, then outside any section) and was blocked (on top)."""
        self.slice = slice_width(SLICE_PIXELS * self.pixel)
        start, end = self.x(self.start), self.x(self.end)
        first, last = math.floor(start / self.slice) + 1, math.ceil(end / self.slice)
        self.slices = [start, *(k * self.slice for k in range(first, last)), end]
        edges = [float(u * self.ns_per_unit) for u in self.slices]
        for task in order:
            y = ys[task.task]
            pieces = self._pieces[y]
            bottom = [0.0] * (len(edges) - 1)
            layers = [
                (name, [(s, e) for s, e, k, _ in pieces if k == name]) for name in self.scenario_resources()
            ]
            layers.append(("", [(s, e) for s, e, k, _ in pieces if k == ""]))
            for key, found in layers:
                if found:
                    share = _shares(found, edges)
                    top = [b + s for b, s in zip(bottom, share, strict=True)]
                    self.shares.append(Shares("running", key, y, tuple(bottom), tuple(top)))
                    bottom = top
            blocked = self.clip(self._blocked[y])
            if blocked:
                share = _shares(blocked, edges)
                top = [b + s for b, s in zip(bottom, share, strict=True)]
                self.shares.append(Shares("blocked", "", y, tuple(bottom), tuple(top)))


def slice_width(least: float) -> float:
    """The smallest of 1, 2 and 5 times a power of ten that is >= `least` (> 0)."""
    power = 10.0 ** math.floor(math.log10(least))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= least * (1 - 1e-12))


def _blocked_variant(b: Blocked) -> str:
    on = (("ceiling", b.ceiling is not None), ("timed out", b.timed_out))
    return ", ".join(word for word, yes in on if yes)


def _shares(intervals: list[tuple[int, int]], edges: list[float]) -> list[float]:
    """The share of each slice [edges[i], edges[i+1]) covered by `intervals`
    (disjoint, in time order), from the covered time before each edge."""
    starts = [s for s, _ in intervals]
    before = [0]
    for s, e in intervals:
        before.append(before[-1] + e - s)

    def covered(t: float) -> float:
        i = bisect_right(starts, t) - 1
        if i < 0:
            return 0.0
        s, e = intervals[i]
        return before[i] + min(max(t - s, 0.0), e - s)

    at = [covered(t) for t in edges]
    return [
        min(1.0, (at[i + 1] - at[i]) / (edges[i + 1] - edges[i])) if edges[i + 1] > edges[i] else 0.0
        for i in range(len(edges) - 1)
    ]


def running_pieces(task: TaskTimeline) -> list[tuple[int, int, str, str]]:
    """The task's running cut where it enters and leaves its holds: (start,
    end, the mutex held or "", "" | "lost" | "recovery"), in time order.
    Inside holds that nest or cross, the one taken last counts."""
    holds: list[tuple[int, int, str, str]] = [
        (c.start, c.end, c.resource, "lost" if c.aborted else "") for c in task.critical_sections
    ]
    holds += [(r.start, r.end, r.resource, "recovery") for r in task.recoveries]
    holds.sort(key=lambda h: (h[0], -h[1]))  # as drawn: an inner hold over its outer one
    if not holds:
        return [(e.start, e.end, "", "") for e in task.executions]
    bounds = sorted({t for h in holds for t in h[:2]})
    owner: list[int] = [-1] * len(bounds)  # hold covering [bounds[i], bounds[i+1]), the latest taken
    for index, (s, e, _, _) in enumerate(holds):
        for i in range(bisect_left(bounds, s), bisect_left(bounds, e)):
            if owner[i] < 0 or holds[owner[i]][0] <= s:
                owner[i] = index
    out: list[tuple[int, int, str, str]] = []
    for ex in task.executions:
        cuts = [ex.start, *bounds[bisect_right(bounds, ex.start) : bisect_left(bounds, ex.end)], ex.end]
        for s, e in zip(cuts, cuts[1:], strict=False):
            i = bisect_right(bounds, s) - 1
            h = owner[i] if 0 <= i < len(owner) else -1
            key, state = (holds[h][2], holds[h][3]) if h >= 0 else ("", "")
            if out and out[-1][1] == s and out[-1][2:] == (key, state):
                out[-1] = (out[-1][0], e, key, state)
            else:
                out.append((s, e, key, state))
    return out

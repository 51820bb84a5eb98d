"""A Gantt chart of one run (matplotlib, Agg): one row per task, most urgent at
the top, labelled with its name and base priority, in the scenario file's time
unit.

  execution          solid bar; inside a critical section, in the resource's colour
  critical section   a pale band in the resource's colour behind the bar, over
                     the whole hold (so a preempted holder still shows it holds)
  blocked            a hatched box outlined in the colour of the semaphore waited
                     for (dashed when the wait timed out); hatched the other way
                     when the task waited on pcp's system ceiling
  priority boost     a line above the bar with the raised priority ("p3"): solid
                     when inherited (pip, pcp, rcs), dashed when the mutex lends
                     its ceiling from the lock on (ipcp, npcs: "p31")
  aborted section    (rcs) the running inside it cross-hatched (lost work), and
                     a black X where a more urgent task aborted it
  recovery           (rcs with a recovery) the aborted holder restoring the
                     shared state: its running dotted over the resource's
                     colour, within the pale band of the hold, while the
                     requester waits (its blocked box)
  release, deadline  an arrow up at each release, down at each deadline
  miss               the deadline arrow in red, a red cross at the deadline, and
                     the overrun (deadline to finish, or to the end) underlined
                     red; the misses are the report's (priora.timeline)
  refused call       an amber diamond on the bar where the kernel refused a
                     call, with the error's name ("EDEADLK"): the report's
                     warnings (priora.refusals)

The output is deterministic for the same run: no dates or versions in the
metadata, a fixed SVG hash salt. pyplot is not used (no global figure state);
the format follows the file's suffix (.png or .svg).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from priora.model import Scenario
from priora.simulate import SimResult
from priora.timeline import CriticalSection, Interval, Recovery, TaskTimeline, Timeline, extract

UNIT_LABEL = {"tick": "ticks", "us": "µs", "ms": "ms"}
FORMATS = {".png": "png", ".svg": "svg"}

EXEC_COLOUR = "#4c72b0"
# Resource colours: tab10 without its blue (execution) and red (misses).
RESOURCE_COLOURS = ("#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#7f7f7f")
MISS_COLOUR = "#d62728"
REFUSAL_COLOUR = "#ffbf00"  # amber: neither a resource's colour nor a miss's red
TEXT_COLOUR = "#333333"

# Vertical layout of a row (rows are 1 apart, centred on y).
BAR = 0.44  # execution bar
BAND = 0.74  # critical-section band
ARROW = 0.48  # release and deadline arrows reach this far from the centre
MISS_STRIP = 0.08  # the red overrun strip, under the bar

CEILING_HATCH = "\\\\\\"  # blocked on pcp's system ceiling (the other waits: "///")
LOST_HATCH = "xxx"  # running inside a section that was aborted (rcs)
RECOVERY_HATCH = "..."  # an aborted holder restoring the shared state (rcs with a recovery)

LABEL_CHAR_INCHES = 0.07  # width of one character of a 7 pt label, roughly


@dataclass(frozen=True)
class _Chart:
    """What every drawing function needs."""

    ax: Any
    scenario: Scenario
    end: int  # ns
    colours: dict[str, str]  # resource name -> colour
    inches_per_unit: float  # to tell whether a label fits in a box

    def x(self, ns: int) -> float:
        return self.scenario.to_unit(ns)

    def span(self, interval: Interval) -> tuple[float, float]:
        """(start, width) in the file's unit, as broken_barh and Rectangle want it."""
        start, end = interval.in_unit(self.scenario)
        return start, end - start


def draw(result: SimResult, path: Path, title: str | None = None) -> None:
    """Writes the Gantt chart of `result` to `path` (.png or .svg)."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(f"{path}: a Gantt chart is written as .png or .svg")
    fig = figure(extract(result), title or default_title(result.scenario))
    with matplotlib.rc_context({"svg.hashsalt": "priora", "svg.fonttype": "path"}):
        fig.savefig(path, format=fmt, metadata=_metadata(fmt), dpi=120, bbox_inches="tight")


def default_title(scenario: Scenario) -> str:
    return f"{Path(scenario.source).name} (protocol {scenario.system.protocol})"


def _metadata(fmt: str) -> dict[str, Any]:
    # No dates and no version strings: two draws give the same bytes.
    if fmt == "svg":
        return {"Date": None, "Creator": None}
    return {"Software": None}


def figure(timeline: Timeline, title: str) -> Figure:
    """The chart as a matplotlib Figure (on an Agg canvas)."""
    scenario = timeline.scenario
    rows = timeline.by_urgency()
    end_unit = scenario.to_unit(timeline.end) or 1.0
    ticks = timeline.end * scenario.system.tick_hz / 1e9
    # Wide enough for a few hundred ticks to stay apart, within a page.
    width = min(24.0, max(8.0, 4.0 + 0.06 * ticks))
    fig = Figure(figsize=(width, 1.2 + 0.8 * len(rows)))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    chart = _Chart(ax, scenario, timeline.end, _resource_colours(scenario), 0.75 * width / end_unit)
    for y, task in zip(range(len(rows) - 1, -1, -1), rows, strict=True):
        _draw_row(chart, task, float(y))
    _axes(chart, rows, end_unit, title)
    _legend(chart, timeline)
    return fig


def _resource_colours(scenario: Scenario) -> dict[str, str]:
    return {r.name: RESOURCE_COLOURS[i % len(RESOURCE_COLOURS)] for i, r in enumerate(scenario.resources)}


# ---------------------------------------------------------------- one row


def _draw_row(chart: _Chart, task: TaskTimeline, y: float) -> None:
    _draw_critical_bands(chart, task, y)
    _draw_blocked(chart, task, y)
    _draw_waits(chart, task, y)
    _draw_executions(chart, task, y)
    _draw_aborts(chart, task, y)
    _draw_boosts(chart, task, y)
    _draw_releases_and_deadlines(chart, task, y)
    _draw_misses(chart, task, y)
    _draw_refusals(chart, task, y)
    _draw_services(chart, task, y)


def _draw_critical_bands(chart: _Chart, task: TaskTimeline, y: float) -> None:
    # A recovering holder still holds the mutex: its band goes on.
    holds: list[CriticalSection | Recovery] = [*task.critical_sections, *task.recoveries]
    for held in holds:
        chart.ax.broken_barh(
            [chart.span(held)],
            (y - BAND / 2, BAND),
            facecolors=chart.colours[held.resource],
            alpha=0.3,
            zorder=1,
        )


def _draw_blocked(chart: _Chart, task: TaskTimeline, y: float) -> None:
    for b in task.blocked:
        start, width = chart.span(b)
        style = "--" if b.timed_out else "-"
        edge = chart.colours[b.resource]
        hatch = CEILING_HATCH if b.ceiling is not None else "///"
        box = Rectangle((start, y - BAR / 2), width, BAR, fill=False, hatch=hatch, lw=1.0, ls=style, ec=edge)
        box.set_zorder(2)
        chart.ax.add_patch(box)
        # The semaphore's name inside the box, when it fits.
        if width * chart.inches_per_unit >= LABEL_CHAR_INCHES * (len(b.resource) + 2):
            chart.ax.text(
                start + width / 2,
                y,
                b.resource,
                ha="center",
                va="center",
                fontsize=7,
                color=TEXT_COLOUR,
                zorder=4,
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5},
            )


WAIT_COLOUR = "#888888"  # waits on queues and event flags: grey, no resource's colour


def _draw_waits(chart: _Chart, task: TaskTimeline, y: float) -> None:
    """A wait on a queue or event flags: a grey dotted box, the object's name inside when it fits."""
    for w in task.waits:
        start, width = chart.span(w)
        box = Rectangle(
            (start, y - BAR / 2), width, BAR, fill=False, hatch="..", lw=1.0, ls="--" if w.timed_out else "-",
            ec=WAIT_COLOUR,
        )  # fmt: skip
        box.set_zorder(2)
        box.set_gid("wait")  # found by tests and in the SVG
        chart.ax.add_patch(box)
        if width * chart.inches_per_unit >= LABEL_CHAR_INCHES * (len(w.object) + 2):
            chart.ax.text(start + width / 2, y, w.object, ha="center", va="center", fontsize=7,
                          color=TEXT_COLOUR, zorder=4,
                          bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})  # fmt: skip


def _draw_executions(chart: _Chart, task: TaskTimeline, y: float) -> None:
    pieces = [chart.span(e) for e in task.executions]
    chart.ax.broken_barh(pieces, (y - BAR / 2, BAR), facecolors=EXEC_COLOUR, zorder=3)
    # Running inside a critical section: the resource's colour. Sections are
    # sorted by start, so an inner (later) one is drawn over its outer one.
    for cs in task.critical_sections:
        inside = [chart.span(p) for p in _overlaps(task.executions, cs)]
        chart.ax.broken_barh(inside, (y - BAR / 2, BAR), facecolors=chart.colours[cs.resource], zorder=3.1)
        if cs.aborted:  # the work done inside is lost: cross-hatched over its colour
            chart.ax.broken_barh(
                inside,
                (y - BAR / 2, BAR),
                facecolors="none",
                edgecolors="black",
                hatch=LOST_HATCH,
                lw=0,
                zorder=3.2,
            )
    for rec in task.recoveries:  # restoring the state: dotted over the resource's colour
        inside = [chart.span(p) for p in _overlaps(task.executions, rec)]
        colour = chart.colours[rec.resource]
        chart.ax.broken_barh(inside, (y - BAR / 2, BAR), facecolors=colour, zorder=3.1)
        bars = chart.ax.broken_barh(
            inside,
            (y - BAR / 2, BAR),
            facecolors="none",
            edgecolors="black",
            hatch=RECOVERY_HATCH,
            lw=0,
            zorder=3.2,
        )
        bars.set_gid("recovery")  # found by tests and in the SVG


def _draw_aborts(chart: _Chart, task: TaskTimeline, y: float) -> None:
    for a in task.aborts:
        chart.ax.plot([chart.x(a.time)], [y + BAR / 2], marker="X", color="black", ms=7, zorder=6)


def _overlaps(executions: tuple[Interval, ...], within: Interval) -> list[Interval]:
    pieces = []
    for e in executions:
        start, end = max(e.start, within.start), min(e.end, within.end)
        if end > start:
            pieces.append(Interval(start, end))
    return pieces


def _draw_boosts(chart: _Chart, task: TaskTimeline, y: float) -> None:
    top = y + BAR / 2 + 0.06
    for b in task.boosts:
        start, end = b.in_unit(chart.scenario)
        style = "--" if b.cause == "ceiling" else "-"
        # End ticks ("|"), so that two values in a row read as two boosts.
        chart.ax.plot([start, end], [top, top], color="black", lw=1.2, ls=style, marker="|", ms=5, zorder=5)
        chart.ax.text(
            (start + end) / 2,
            top + 0.02,
            f"p{b.priority}",
            ha="center",
            va="bottom",
            fontsize=8,
            fontweight="bold",
            zorder=5,
        )


def _draw_releases_and_deadlines(chart: _Chart, task: TaskTimeline, y: float) -> None:
    missed = {m.job for m in task.misses}
    for r in task.releases:
        _arrow(chart, chart.x(r.time), y - ARROW, y + ARROW, "black")
    # A deadline after the end of the run is not part of the picture.
    for d in (d for d in task.deadlines if d.time <= chart.end):
        _arrow(chart, chart.x(d.time), y + ARROW, y - ARROW, MISS_COLOUR if d.job in missed else "black")


def _arrow(chart: _Chart, x: float, y_from: float, y_to: float, colour: str) -> None:
    chart.ax.annotate(
        "",
        xy=(x, y_to),
        xytext=(x, y_from),
        arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 1.0, "shrinkA": 0, "shrinkB": 0},
        zorder=6,
    )


def _draw_misses(chart: _Chart, task: TaskTimeline, y: float) -> None:
    deadlines = {d.job: d.time for d in task.deadlines}
    finishes = {f.job: f.time for f in task.finishes}
    below = y - BAR / 2 - 0.02 - MISS_STRIP
    for m in task.misses:
        start = deadlines.get(m.job, m.time)
        # Late until it finishes; a job that never finished is late to the end.
        overrun = Interval(start, max(start, finishes.get(m.job, chart.end)))
        chart.ax.broken_barh([chart.span(overrun)], (below, MISS_STRIP), facecolors=MISS_COLOUR, zorder=5)
        chart.ax.plot([chart.x(m.time)], [below], marker="x", color=MISS_COLOUR, ms=7, mew=1.5, zorder=6)


# Small markers above the bar: a message sent (right caret), received (left
# caret), flags set (star), a timer expiring (on the timer service's row).
SERVICE_MARKERS = {
    "send": (5, "send"),
    "receive": (4, "receive"),
    "set": ("*", "set flags"),
    "expire": ("d", "timer expiry"),
}


def _draw_services(chart: _Chart, task: TaskTimeline, y: float) -> None:
    for kind, (marker, _) in SERVICE_MARKERS.items():
        xs = [chart.x(m.time) for m in task.services if m.kind == kind]
        if xs:
            (line,) = chart.ax.plot(
                xs, [y + BAR / 2 + 0.08] * len(xs), marker=marker, color="black", ms=5, ls="none", zorder=7
            )
            line.set_gid(kind)  # found by tests and in the SVG


def _draw_refusals(chart: _Chart, task: TaskTimeline, y: float) -> None:
    for f in task.refusals:
        x = chart.x(f.time)
        (marker,) = chart.ax.plot(
            [x], [y], marker="D", color=REFUSAL_COLOUR, mec="black", mew=1.0, ms=8, ls="none", zorder=7
        )
        marker.set_gid("refusal")  # found by tests and in the SVG
        chart.ax.text(
            x,
            y - BAR / 2 - 0.04,
            f.error.removeprefix("PR_"),
            ha="center",
            va="top",
            fontsize=7,
            fontweight="bold",
            color=TEXT_COLOUR,
            zorder=7,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5},
        )


# ---------------------------------------------------------------- axes and legend


def _axes(chart: _Chart, rows: list[TaskTimeline], end: float, title: str) -> None:
    ax, n = chart.ax, len(rows)
    ax.set_yticks(range(n))
    ax.set_yticklabels([f"{t.name}  (p{t.base_priority})" for t in reversed(rows)])
    ax.set_ylim(-0.6, n - 0.4)
    ax.set_xlim(0, end)
    ax.set_xlabel(f"time ({UNIT_LABEL[chart.scenario.system.time_unit]})")
    ax.set_title(title)
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _legend(chart: _Chart, timeline: Timeline) -> None:
    tasks = timeline.tasks
    held = {cs.resource for t in tasks for cs in t.critical_sections} | {
        r.resource for t in tasks for r in t.recoveries
    }
    waited = {b.resource for t in tasks for b in t.blocked}
    handles: list[Any] = [Patch(facecolor=EXEC_COLOUR, label="running")]
    for r in timeline.scenario.resources:
        colour = chart.colours[r.name]
        if r.name in held:
            handles.append(Patch(facecolor=colour, label=f"holds {r.name}"))
        elif r.name in waited:  # a semaphore nobody holds: its outline colour
            handles.append(Patch(fill=False, hatch="///", edgecolor=colour, label=f"blocked on {r.name}"))
    if any(b.ceiling is None for t in tasks for b in t.blocked):
        label = "blocked (outline: semaphore)"
        handles.append(Patch(fill=False, hatch="///", edgecolor=TEXT_COLOUR, label=label))
    if any(b.ceiling is not None for t in tasks for b in t.blocked):
        label = "blocked by the system ceiling (pcp)"
        handles.append(Patch(fill=False, hatch=CEILING_HATCH, edgecolor=TEXT_COLOUR, label=label))
    if any(b.timed_out for t in tasks for b in t.blocked):
        handles.append(
            Patch(fill=False, hatch="///", edgecolor=TEXT_COLOUR, linestyle="--", label="wait timed out")
        )
    boosts = [b for t in tasks for b in t.boosts]
    if any(b.cause != "ceiling" for b in boosts):
        handles.append(Line2D([], [], color="black", lw=1.2, marker="|", label="pN: inherited priority"))
    if any(b.cause == "ceiling" for b in boosts):
        label = "pN: ceiling from the lock on (ipcp, npcs)"
        handles.append(Line2D([], [], color="black", lw=1.2, ls="--", marker="|", label=label))
    if any(cs.aborted for t in tasks for cs in t.critical_sections):
        handles.append(Patch(facecolor="white", edgecolor="black", hatch=LOST_HATCH, label="lost work (rcs)"))
    if any(t.recoveries for t in tasks):
        label = "recovery: the aborted holder restores the state (rcs)"
        handles.append(Patch(facecolor="white", edgecolor="black", hatch=RECOVERY_HATCH, label=label))
    if any(t.aborts for t in tasks):
        handles.append(_marker("X", "black", "section aborted (rcs)"))
    handles.append(_marker("^", "black", "release"))
    if any(t.deadlines for t in tasks):
        handles.append(_marker("v", "black", "deadline"))
    if any(t.misses for t in tasks):
        handles.append(_marker("x", MISS_COLOUR, "deadline missed"))
    if any(t.waits for t in tasks):
        label = "waiting on a queue or event flags"
        handles.append(Patch(fill=False, hatch="..", edgecolor=WAIT_COLOUR, label=label))
    for kind, (marker, label) in SERVICE_MARKERS.items():
        if any(m.kind == kind for t in tasks for m in t.services):
            handles.append(_marker(marker, "black", label))  # type: ignore[arg-type]
    if any(t.refusals for t in tasks):
        label = "call refused by the kernel (its error)"
        handles.append(Line2D([], [], color=REFUSAL_COLOUR, marker="D", mec="black", ls="none", label=label))
    chart.ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)


def _marker(marker: str, colour: str, label: str) -> Line2D:
    return Line2D([], [], color=colour, marker=marker, linestyle="none", label=label)

"""A Gantt chart of one run (matplotlib, Agg): one row per task, most urgent at
the top, labelled with its name and base priority, in the scenario file's time
unit. What to draw is priora.pictures.gantt_model's plan; this module draws it, one
collection per kind of element (never one artist per job), so that a run of
ten thousand jobs draws in a few seconds.

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
                     shared state: its running dotted over the resource's colour
  release, deadline  an arrow up at each release, down at each deadline
  miss               the deadline arrow in red, a red cross at the deadline, and
                     the overrun (deadline to finish, or to the end) underlined red
  refused call       an amber diamond on the bar where the kernel refused a
                     call, with the error's name ("EDEADLK")

Aggregated (too many jobs for the pixels, priora.pictures.gantt_model): the bars become
the share of each slice the task ran or was blocked, the arrows thin ticks.
The title names the file; the subtitle the target, protocol and cost model,
the window and the aggregation. Every kind of element drawn is in the legend.

The output is deterministic for the same run: no dates or versions in the
metadata, a fixed SVG hash salt. pyplot is not used (no global figure state);
the format follows the file's suffix (.png, .svg or .pdf).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from priora.pictures.gantt_model import (
    AXIS_SHARE,
    DPI,
    FORMATS,
    Instants,
    Plan,
    Spans,
    Window,
    check_pixels,
    default_size,
    plan,
    resolve,
)
from priora.run.simulate import SimResult
from priora.trace.timeline import Timeline, extract

EXEC_COLOUR = "#4c72b0"
# Resource colours: tab10 without its blue (execution) and red (misses).
RESOURCE_COLOURS = ("#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#7f7f7f")
MISS_COLOUR = "#d62728"
REFUSAL_COLOUR = "#ffbf00"  # amber: neither a resource's colour nor a miss's red
TEXT_COLOUR = "#333333"
BLOCKED_SHARE_COLOUR = "#bdbdbd"
TICK_COLOUR = "#b0b0b0"

# Vertical layout of a row (rows are 1 apart, centred on y).
BAR = 0.44  # execution bar
BAND = 0.74  # critical-section band
ARROW = 0.48  # release and deadline arrows reach this far from the centre
MISS_STRIP = 0.08  # the red overrun strip, under the bar
BOOST_LIFT = 0.06  # the boost line, above the bar
SHARE_BAR = 0.64  # aggregated: the height of a slice the task ran in full

BLOCKED_HATCH = "///"
CEILING_HATCH = "\\\\\\"  # blocked on pcp's system ceiling
LOST_HATCH = "xxx"  # running inside a section that was aborted (rcs)
RECOVERY_HATCH = "..."  # an aborted holder restoring the shared state (rcs with a recovery)


def _bar(drawn: Plan) -> float:
    return SHARE_BAR if drawn.aggregated else BAR


def draw(
    result: SimResult,
    path: Path,
    title: str | None = None,
    *,
    window: Window | None = None,
    size: tuple[float, float] | None = None,
    dpi: int = DPI,
    target: str = "host",
) -> str | None:
    """Writes the Gantt chart of `result` to `path` (.png, .svg or .pdf);
    returns a notice for the user (`window` "miss" without a miss), or None."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(f"{path}: a Gantt chart is written as .png, .svg or .pdf")
    fig, drawn = build(extract(result), title, window=window, size=size, dpi=dpi, target=target)
    with matplotlib.rc_context({"svg.hashsalt": "priora", "svg.fonttype": "path"}):
        fig.savefig(path, format=fmt, metadata=_metadata(fmt), dpi=dpi)
    return drawn.notice


def _metadata(fmt: str) -> dict[str, Any]:
    # No dates and no version strings: two draws give the same bytes.
    if fmt == "svg":
        return {"Date": None, "Creator": None}
    if fmt == "pdf":
        return {"CreationDate": None, "Creator": None, "Producer": None}
    return {"Software": None}


def figure(
    timeline: Timeline,
    title: str | None = None,
    *,
    window: Window | None = None,
    size: tuple[float, float] | None = None,
    dpi: int = DPI,
    target: str = "host",
) -> Figure:
    """The chart as a matplotlib Figure (on an Agg canvas)."""
    return build(timeline, title, window=window, size=size, dpi=dpi, target=target)[0]


def build(
    timeline: Timeline,
    title: str | None = None,
    *,
    window: Window | None = None,
    size: tuple[float, float] | None = None,
    dpi: int = DPI,
    target: str = "host",
) -> tuple[Figure, Plan]:
    """The plan of the chart (priora.pictures.gantt_model) and its Figure. The plan
    needs the time axis's width in pixels, which the layout gives once the
    legend is known: planned on an estimate, laid out, planned again on the
    width found (laid out again only if the legend or subtitle changed)."""
    start, end, notice = resolve(window, timeline)
    width = size[0] if size is not None else default_size(timeline, start, end, 0)[0]

    def planned(axis_pixels: float) -> Plan:
        return plan(
            timeline,
            window=(start, end),
            axis_pixels=axis_pixels,
            dpi=dpi,
            target=target,
            title=title,
            notice=notice,
        )

    def framed(drawn: Plan) -> tuple[Figure, Any]:
        handles = [h for h, _ in legend_handles(drawn)]
        height = size[1] if size is not None else default_size(timeline, start, end, len(handles))[1]
        if size is None:
            check_pixels((width, height), dpi, "--dpi")
        return frame(drawn, handles, (width, height), dpi)

    first = planned(AXIS_SHARE * width * dpi)
    fig, ax = framed(first)
    drawn = planned(axis_pixels(fig, ax))
    if _frame_text(drawn) != _frame_text(first):
        fig, ax = framed(drawn)
    draw_plan(ax, drawn)
    return fig, drawn


def axis_pixels(fig: Figure, ax: Any) -> float:
    return float(ax.get_position().width * fig.get_figwidth() * fig.get_dpi())


def _frame_text(drawn: Plan) -> tuple[str, list[str]]:
    return drawn.subtitle, [h.get_label() for h, _ in legend_handles(drawn)]


# ---------------------------------------------------------------- drawing


def frame(drawn: Plan, handles: list[Any], size: tuple[float, float], dpi: int) -> tuple[Figure, Any]:
    """The figure without the elements: the axes, title, legend, laid out."""
    fig = Figure(figsize=size, dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    _axes(fig, ax, drawn)
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)
    # Laid out once, here, without the elements (savefig would draw them all to lay it out).
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
    fig.set_layout_engine("none")
    return fig, ax


def draw_plan(ax: Any, drawn: Plan) -> None:
    """Every element of the plan: one collection (or line of markers) per group."""
    colours = {name: RESOURCE_COLOURS[i % len(RESOURCE_COLOURS)] for i, name in enumerate(drawn.resources)}
    for spans in drawn.spans:
        _draw_spans(ax, drawn, spans, colours)
    if drawn.shares:
        _draw_shares(ax, drawn, colours)
    for instants in drawn.instants:
        _draw_instants(ax, drawn, instants)
    _draw_labels(ax, drawn)


def _boxes(spans: Spans, bottom: float, height: float) -> Any:
    """One rectangle per span: (n, 4, 2) vertices (an array: PolyCollection's fast path)."""
    x0, x1 = np.asarray(spans.starts), np.asarray(spans.ends)
    y0 = np.asarray(spans.rows, dtype=float) + bottom
    y1 = y0 + height
    return np.stack([np.stack(p, axis=-1) for p in ((x0, y0), (x0, y1), (x1, y1), (x1, y0))], axis=1)


def _draw_spans(ax: Any, drawn: Plan, spans: Spans, colours: dict[str, str]) -> None:
    kind, key = spans.kind, spans.key
    colour = colours.get(key, EXEC_COLOUR)
    if kind == "hold":
        boxes = PolyCollection(_boxes(spans, -BAND / 2, BAND), facecolors=colour, alpha=0.3, lw=0, zorder=1)
    elif kind == "blocked":
        boxes = PolyCollection(
            _boxes(spans, -BAR / 2, BAR),
            facecolors="none",
            edgecolors=colour,
            hatch=CEILING_HATCH if "ceiling" in spans.variant else BLOCKED_HATCH,
            linestyles="--" if "timed out" in spans.variant else "-",
            lw=1.0,
            zorder=2,
        )
    elif kind == "wait":  # on a queue or event flags: grey, no resource's colour
        boxes = PolyCollection(
            _boxes(spans, -BAR / 2, BAR),
            facecolors="none",
            edgecolors=WAIT_COLOUR,
            hatch=WAIT_HATCH,
            linestyles="--" if spans.variant == "timed out" else "-",
            lw=1.0,
            zorder=2,
        )
        boxes.set_gid("wait")  # found by tests and in the SVG
    elif kind == "running":
        boxes = PolyCollection(_boxes(spans, -BAR / 2, BAR), facecolors=colour, lw=0, zorder=3)
    elif kind in ("lost", "recovery"):
        hatch = LOST_HATCH if kind == "lost" else RECOVERY_HATCH
        boxes = PolyCollection(
            _boxes(spans, -BAR / 2, BAR), facecolors=colour, edgecolors="black", hatch=hatch, lw=0, zorder=3.2
        )
        boxes.set_gid(kind)  # found by tests and in the SVG
    elif kind == "overrun":
        below = -_bar(drawn) / 2 - 0.02 - MISS_STRIP
        boxes = PolyCollection(_boxes(spans, below, MISS_STRIP), facecolors=MISS_COLOUR, lw=0, zorder=5)
    else:  # boost
        _draw_boosts(ax, drawn, spans)
        return
    ax.add_collection(boxes, autolim=False)


def _draw_boosts(ax: Any, drawn: Plan, spans: Spans) -> None:
    y = np.asarray(spans.rows, dtype=float) + _bar(drawn) / 2 + BOOST_LIFT
    x0, x1 = np.asarray(spans.starts), np.asarray(spans.ends)
    lines = LineCollection(_segments(x0, y, x1, y), colors="black", lw=1.2, zorder=5)
    lines.set_linestyle("--" if spans.key == "ceiling" else "-")
    ax.add_collection(lines, autolim=False)
    if not drawn.aggregated:  # end ticks, so that two values in a row read as two boosts
        ends = np.concatenate([x0, x1]), np.concatenate([y, y])
        ax.add_line(Line2D(*ends, ls="none", marker="|", ms=5, color="black", zorder=5))


def _segments(x0: Any, y0: Any, x1: Any, y1: Any) -> Any:
    """One line per element: (n, 2, 2) vertices."""
    return np.stack([np.stack([x0, y0], -1), np.stack([x1, y1], -1)], 1)


def _draw_shares(ax: Any, drawn: Plan, colours: dict[str, str]) -> None:
    """One polygon per share (a step outline over the slices), one collection per colour."""
    edges = np.asarray(drawn.slices)
    xs = np.repeat(edges, 2)[1:-1]
    polygons: dict[str, list[Any]] = {}
    for share in drawn.shares:
        base = share.row - SHARE_BAR / 2
        top = np.repeat(base + SHARE_BAR * np.asarray(share.top), 2)
        bottom = np.repeat(base + SHARE_BAR * np.asarray(share.bottom), 2)
        outline = np.concatenate([np.stack([xs, top], -1), np.stack([xs[::-1], bottom[::-1]], -1)])
        colour = colours.get(share.key, EXEC_COLOUR) if share.kind == "running" else BLOCKED_SHARE_COLOUR
        polygons.setdefault(colour, []).append(outline)
    for colour, found in polygons.items():
        ax.add_collection(PolyCollection(found, facecolors=colour, lw=0, zorder=3), autolim=False)


# (from, to) of a stem relative to the row's centre, per kind: detailed, aggregated
_STEMS = {
    "release": ((-ARROW, ARROW), (SHARE_BAR / 2 + 0.02, SHARE_BAR / 2 + 0.1)),
    "deadline": ((ARROW, -ARROW), (-SHARE_BAR / 2 - 0.1, -SHARE_BAR / 2 - 0.02)),
    "missed deadline": ((ARROW, -ARROW), (-SHARE_BAR / 2 - 0.1, -SHARE_BAR / 2 - 0.02)),
}
_HEADS = {"release": "^", "deadline": "v", "missed deadline": "v"}


def _draw_instants(ax: Any, drawn: Plan, instants: Instants) -> None:
    x = np.asarray(instants.times)
    y = np.asarray(instants.rows, dtype=float)
    kind = instants.kind
    if kind in _STEMS:
        (a, b) = _STEMS[kind][1 if drawn.aggregated else 0]
        red = kind == "missed deadline"
        colour = MISS_COLOUR if red else ("black" if not drawn.aggregated else TICK_COLOUR)
        width = 1.0 if not drawn.aggregated or red else 0.6
        # One line broken by NaNs: one path for every stem (one SVG element, not thousands).
        xs = np.stack([x, x, np.full_like(x, np.nan)], -1).ravel()
        ys = np.stack([y + a, y + b, np.full_like(y, np.nan)], -1).ravel()
        stems = Line2D(xs, ys, color=colour, lw=width, zorder=6, clip_on=False, solid_capstyle="butt")
        stems.set_gid(f"{kind} stems")
        ax.add_line(stems)
        if not drawn.aggregated:
            ax.add_line(
                Line2D(x, y + b, ls="none", marker=_HEADS[kind], ms=5, color=colour, zorder=6, clip_on=False)
            )
    elif kind == "miss":
        below = y - _bar(drawn) / 2 - 0.02 - MISS_STRIP
        ax.add_line(Line2D(x, below, ls="none", marker="x", ms=7, mew=1.5, color=MISS_COLOUR, zorder=6))
    elif kind == "abort":
        ax.add_line(Line2D(x, y + _bar(drawn) / 2, ls="none", marker="X", ms=7, color="black", zorder=6))
    elif kind in SERVICE_MARKERS:  # small marks above the bar
        marker = SERVICE_MARKERS[kind][0]
        mark = Line2D(x, y + _bar(drawn) / 2 + 0.08, ls="none", marker=marker, ms=5, color="black", zorder=7)
        mark.set_gid(kind)  # found by tests and in the SVG
        ax.add_line(mark)
    else:  # refusal
        marker = Line2D(
            x, y, ls="none", marker="D", color=REFUSAL_COLOUR, mec="black", mew=1.0, ms=8, zorder=7
        )
        marker.set_gid("refusal")  # found by tests and in the SVG
        ax.add_line(marker)


def _draw_labels(ax: Any, drawn: Plan) -> None:
    box = {"facecolor": "white", "edgecolor": "none", "pad": 0.5}
    for label in drawn.labels:
        if label.kind == "semaphore":  # inside the blocked box
            ax.text(
                label.x,
                label.row,
                label.text,
                ha="center",
                va="center",
                fontsize=7,
                color=TEXT_COLOUR,
                zorder=4,
                bbox=box,
            )
        elif label.kind == "boost":
            top = label.row + BAR / 2 + BOOST_LIFT + 0.02
            ax.text(
                label.x, top, label.text, ha="center", va="bottom", fontsize=8, fontweight="bold", zorder=5
            )
        else:  # the refused call's error, under the row
            y = label.row - BAR / 2 - 0.04
            ax.text(
                label.x,
                y,
                label.text,
                ha="center",
                va="top",
                fontsize=7,
                fontweight="bold",
                color=TEXT_COLOUR,
                zorder=7,
                bbox=box,
            )


# ---------------------------------------------------------------- axes and legend


def _axes(fig: Figure, ax: Any, drawn: Plan) -> None:
    n = len(drawn.rows)
    ax.set_yticks(range(n))
    ax.set_yticklabels([r.label() for r in sorted(drawn.rows, key=lambda r: r.y)])
    if ("band", "", "") in drawn.elements:  # the time-sharing rows are the bottom ones
        ax.axhline(_band_line(drawn), color=TEXT_COLOUR, lw=0.8, ls=BAND_STYLE)
    ax.set_ylim(-0.6, n - 0.4)
    ax.set_xlim(drawn.start, drawn.end if drawn.end > drawn.start else drawn.start + 1)
    ax.set_xlabel(f"time ({drawn.unit})")
    fig.suptitle(drawn.title)
    ax.set_title(drawn.subtitle, fontsize=9, color=TEXT_COLOUR)
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


Element = tuple[str, str, str]


BAND_STYLE = (0, (6, 3))


def _band_line(drawn: Plan) -> float:
    """Halfway between the lowest real-time row and the highest time-sharing one."""
    top_shared = max(r.y for r in drawn.rows if r.nice is not None)
    return top_shared + 0.5


def legend_handles(drawn: Plan) -> list[tuple[Any, set[Element]]]:
    """One legend entry per kind of element drawn, with the elements it explains."""
    present = {e for e in drawn.elements if e[0] != "label"}
    colours = {name: RESOURCE_COLOURS[i % len(RESOURCE_COLOURS)] for i, name in enumerate(drawn.resources)}
    out: list[tuple[Any, set[Element]]] = []

    def add(handle: Any, covered: set[Element]) -> None:
        found = covered & present
        if found:
            out.append((handle, found))

    label = "real time above, time sharing below (ts: the kernel's decay-usage level)"
    add(Line2D([], [], color=TEXT_COLOUR, lw=0.8, ls=BAND_STYLE, label=label), {("band", "", "")})
    slice_note = " (height: share of the slice)" if drawn.aggregated else ""
    add(
        Patch(facecolor=EXEC_COLOUR, label=f"running{slice_note}"),
        {("running", "", ""), ("running", "", "share")},
    )
    blocked_on = {e[1] for e in present if e[0] == "blocked"}
    for name in drawn.resources:
        colour = colours[name]
        held = {("hold", name, ""), ("running", name, ""), ("running", name, "share")}
        if held & present:
            label = f"holds {name}" if not drawn.aggregated else f"running, holding {name}"
            add(Patch(facecolor=colour, label=label), held | {("blocked", name, v) for v in _VARIANTS})
        elif name in blocked_on:  # a semaphore nobody holds: its outline colour
            waits = {("blocked", name, v) for v in _VARIANTS}
            add(Patch(fill=False, hatch=BLOCKED_HATCH, edgecolor=colour, label=f"blocked on {name}"), waits)
    plain = {("blocked", n, v) for n in drawn.resources for v in ("", "timed out")}
    ceiling = {("blocked", n, v) for n in drawn.resources for v in ("ceiling", "ceiling, timed out")}
    timed = {("blocked", n, v) for n in drawn.resources for v in ("timed out", "ceiling, timed out")}
    label = "blocked (outline: semaphore; its name inside)"
    add(Patch(fill=False, hatch=BLOCKED_HATCH, edgecolor=TEXT_COLOUR, label=label), plain)
    label = "blocked by the system ceiling (pcp)"
    add(Patch(fill=False, hatch=CEILING_HATCH, edgecolor=TEXT_COLOUR, label=label), ceiling)
    label = "wait timed out"
    add(Patch(fill=False, hatch=BLOCKED_HATCH, edgecolor=TEXT_COLOUR, linestyle="--", label=label), timed)
    label = "blocked (height: share of the slice)"
    add(Patch(facecolor=BLOCKED_SHARE_COLOUR, label=label), {("blocked", "", "share")})
    tick = "" if drawn.aggregated else "|"
    label = "inherited priority" if drawn.aggregated else "pN: inherited priority"
    add(Line2D([], [], color="black", lw=1.2, marker=tick, label=label), {("boost", "inherit", "")})
    label = (
        "ceiling from the lock on (ipcp, npcs)"
        if drawn.aggregated
        else "pN: ceiling from the lock on (ipcp, npcs)"
    )
    add(Line2D([], [], color="black", lw=1.2, ls="--", marker=tick, label=label), {("boost", "ceiling", "")})
    lost = {("lost", n, "") for n in drawn.resources}
    add(Patch(facecolor="white", edgecolor="black", hatch=LOST_HATCH, label="lost work (rcs)"), lost)
    label = "recovery: the aborted holder restores the state (rcs)"
    recovery = {("recovery", n, "") for n in drawn.resources}
    add(Patch(facecolor="white", edgecolor="black", hatch=RECOVERY_HATCH, label=label), recovery)
    add(_marker("X", "black", "section aborted (rcs)"), {("abort", "", "")})
    if drawn.aggregated:
        add(
            Line2D([], [], color=TICK_COLOUR, lw=0.6, label="release (tick above)"), {("release", "", "tick")}
        )
        add(
            Line2D([], [], color=TICK_COLOUR, lw=0.6, label="deadline (tick below)"),
            {("deadline", "", "tick")},
        )
        missed = {("missed deadline", "", "tick")}
        add(Line2D([], [], color=MISS_COLOUR, lw=1.0, label="deadline missed (tick below)"), missed)
    else:
        add(_marker("^", "black", "release"), {("release", "", "")})
        add(_marker("v", "black", "deadline"), {("deadline", "", "")})
        add(_marker("v", MISS_COLOUR, "deadline missed"), {("missed deadline", "", "")})
    add(_marker("x", MISS_COLOUR, "miss (at the deadline)"), {("miss", "", "")})
    add(Patch(facecolor=MISS_COLOUR, label="late: deadline to finish"), {("overrun", "", "")})
    label = "waiting on a queue or event flags"
    add(Patch(fill=False, hatch=WAIT_HATCH, edgecolor=WAIT_COLOUR, label=label), {("wait", "", "")})
    label = "wait on a queue or event flags timed out"
    timed_wait = Patch(fill=False, hatch=WAIT_HATCH, edgecolor=WAIT_COLOUR, linestyle="--", label=label)
    add(timed_wait, {("wait", "", "timed out")})
    for kind, (marker, label) in SERVICE_MARKERS.items():
        add(_marker(marker, "black", label), {(kind, "", ""), (kind, "", "tick")})
    label = "call refused by the kernel (its error)"
    refused = Line2D([], [], color=REFUSAL_COLOUR, marker="D", mec="black", ls="none", label=label)
    add(refused, {("refusal", "", "")})
    return out


WAIT_COLOUR = "#888888"  # waits on queues and event flags: grey, no resource's colour
WAIT_HATCH = ".."
# Small marks above the bar: a message sent (right caret), received (left
# caret), flags set (star), a timer expiring (on the timer service's row).
SERVICE_MARKERS: dict[str, tuple[Any, str]] = {
    "send": (5, "send"),
    "receive": (4, "receive"),
    "set": ("*", "set flags"),
    "expire": ("d", "timer expiry"),
}

_VARIANTS = ("", "timed out", "ceiling", "ceiling, timed out")


def _marker(marker: str, colour: str, label: str) -> Line2D:
    return Line2D([], [], color=colour, marker=marker, linestyle="none", label=label)

"""A campaign's figure: acceptance ratio per protocol against the axis, the
analysis (solid) and the kernel (dashed) in one colour per protocol, and
beside it the weighted schedulability (priora.campaign.report). PNG, SVG or
PDF, by the name's extension; no dates in the file, so two draws of one
database give the same bytes.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from priora.campaign.report import JUDGES, ratios
from priora.campaign.spec import Campaign

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
_STYLE = {"analysis": ("-", "o", "analysis"), "simulated": ("--", "s", "kernel")}


def draw(campaign: Campaign, con: sqlite3.Connection, path: Path) -> None:
    import matplotlib
    from matplotlib.figure import Figure

    fmt = FORMATS[path.suffix.lower()]
    fig = Figure(figsize=(12, 4.8))
    acceptance, weighted = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
    per_point = [ratios(con, p) for p in range(len(campaign.points))]
    colours = matplotlib.colormaps["tab10"]
    x = list(campaign.points)
    # Against utilisation, each point's sets share one U: its weighted
    # schedulability is its acceptance ratio. The measure is then the one
    # over the whole campaign, a bar per protocol and judge.
    overall = ratios(con) if campaign.parameter == "utilisation" else None
    for k, protocol in enumerate(campaign.protocols):
        for j, judge in enumerate(JUDGES):
            ys = [_y(r, protocol, judge, "ratio") for r in per_point]
            if all(y is None for y in ys):
                continue
            line, marker, name = _STYLE[judge]
            style: dict[str, Any] = {"color": colours(k), "linestyle": line, "marker": marker}
            acceptance.plot(x, _nan(ys), label=f"{protocol}, {name}", markersize=4, **style)
            if overall is None:
                ws = [_y(r, protocol, judge, "weighted") for r in per_point]
                weighted.plot(x, _nan(ws), markersize=4, **style)
                continue
            w = _y(overall, protocol, judge, "weighted")
            weighted.bar(
                k + 0.4 * j - 0.2,
                0.0 if w is None else w,
                width=0.38,
                color=colours(k),
                alpha=1.0 if judge == "analysis" else 0.45,
                hatch=None if judge == "analysis" else "//",
            )
    title = campaign.title or Path(campaign.source).name
    acceptance.set_title(f"{title} ({campaign.sets} sets a point)")
    for ax in (acceptance, weighted):
        ax.set_xlabel(campaign.parameter)
        ax.set_ylim(-0.03, 1.03)
        ax.grid(True, alpha=0.3)
    if overall is None:
        weighted.set_title("weighted schedulability per point")
    else:
        weighted.set_title(
            "weighted schedulability, all points (solid: analysis, hatched: kernel)", fontsize=9
        )
        weighted.set_xticks(range(len(campaign.protocols)), list(campaign.protocols))
        weighted.set_xlabel("protocol")
    acceptance.set_ylabel("acceptance ratio")
    acceptance.legend(fontsize=7, ncols=2, loc="best")
    with matplotlib.rc_context({"svg.hashsalt": "priora", "svg.fonttype": "path"}):
        fig.savefig(path, format=fmt, metadata=_metadata(fmt), dpi=120, bbox_inches="tight")


def _y(r: dict[tuple[str, str], Any], protocol: str, judge: str, what: str) -> float | None:
    ratio = r.get((protocol, judge))
    if ratio is None:
        return None
    value: float | None = ratio.ratio if what == "ratio" else ratio.weighted
    return value


def _nan(values: list[float | None]) -> list[float]:
    return [float("nan") if v is None else v for v in values]


def _metadata(fmt: str) -> dict[str, Any]:
    if fmt == "svg":
        return {"Date": None, "Creator": None}
    if fmt == "pdf":
        return {"CreationDate": None, "Creator": None, "Producer": None}
    return {"Software": None}

"""Real-Time Mach's Benchmarks 1-3 ([Tokuda-Nakajima 1993], sections 4.3-4.4,
Tables 3-8) on Priora: the breakdown of one thread's execution time (or
section) per locking protocol, under several cost models, beside the paper's
figures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from priora.analysis import PROTOCOLS
from priora.breakdown.search import Breakdown, breakdown
from priora.costs import model as costs
from priora.costs.model import CostModel
from priora.record import record, replace
from priora.scenario.loader import load
from priora.scenario.model import Scenario
from priora.tables import markdown_table

# The benchmarks' scenario files: the package's copy (a wheel, lab/setup.py),
# else the checkout's.
PACKAGED = Path(__file__).resolve().parents[1] / "examples" / "rtmach"
EXAMPLES = PACKAGED if PACKAGED.is_dir() else Path(__file__).resolve().parents[3] / "examples" / "rtmach"

# The names of Priora's protocols in [Tokuda-Nakajima 1993] (section 2.2).
PAPER_NAME = {"none": "BP", "pip": "BPI", "npcs": "KM", "pcp": "PCP", "rcs": "RCS", "ipcp": "-"}

# The paper's MC68030 ran at 25 MHz (section 4): Priora's own counts at that clock.
PAPER_CPU_HZ = 25_000_000


@record(frozen=True)
class Benchmark:
    key: str
    title: str
    file: str  # under examples/rtmach
    vary: str
    varied: str  # what EXE is, in words
    paper: Mapping[str, tuple[int, float]]  # protocol -> (EXE ms, U %), the paper's table
    table: str  # "Table 4"
    ignore: Sequence[str] = ()  # an extra row: the same without judging these tasks
    # An extra row: rcs with this recovery (ticks) on every mutex. The
    # benchmarks' own files give none (docs/experiments.md says why): the row
    # shows what the smallest recovery costs.
    recovery: int = 0


BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark(
        "benchmark1",
        "Real-Time Mach Benchmark-1 ([Tokuda-Nakajima 1993], section 4.3, Tables 3 and 4)",
        "benchmark1.toml",
        "B.wcet",
        "B's execution time",
        {"none": (14, 32.6), "pip": (181, 88.3), "npcs": (183, 89.0), "pcp": (181, 88.3), "rcs": (202, 95.3)},
        "Table 4",
        ignore=("D",),
        recovery=1,
    ),
    Benchmark(
        "benchmark2",
        "Real-Time Mach Benchmark-2 ([Tokuda-Nakajima 1993], section 4.4, Tables 5 and 6)",
        "benchmark2.toml",
        "B.section.S",
        "B's critical section",
        {"pip": (155, 97.5), "npcs": (88, 64.0), "pcp": (87, 63.5)},
        "Table 6",
    ),
    Benchmark(
        "benchmark3",
        "Real-Time Mach Benchmark-3 ([Tokuda-Nakajima 1993], section 4.4, Tables 7 and 8)",
        "benchmark3.toml",
        "B.wcet",
        "B's execution time",
        {"pip": (60, 90.0), "rcs": (15, 60.0)},
        "Table 8",
        recovery=1,
    ),
)


@record(frozen=True)
class Column:
    key: str
    title: str
    model: CostModel | None  # None: analysis


def columns(tick_hz: int, quick: bool, bench: Mapping[str, Any] | None) -> list[Column]:
    """The cost models compared (the analysis last)."""
    rt = costs.rtmach93(tick_hz)
    cols = [Column("zero", "zero", costs.ZERO), Column("rtmach93", "rtmach93", rt)]
    if not quick:
        cols += [
            Column(
                "rtmach93_1khz",
                "rtmach93, 1 kHz clock",
                replace(rt, name="rtmach93, 1 kHz clock", tick=costs.C_CLOCKINT * 1000 * 1000 // tick_hz),
            ),
            Column(
                "measured",
                "measured, 25 MHz",
                costs.measured(PAPER_CPU_HZ, costs.DEFAULT_BUILD, bench),
            ),
        ]
    return [*cols, Column("analysis", "analysis (RTA)", None)]


@record(frozen=True)
class Result:
    benchmark: Benchmark
    columns: list[Column]
    protocols: list[str]
    runs: dict[str, Breakdown]  # column key -> the breakdown (analysis: from the zero one)
    ignored: dict[str, Breakdown]  # column key -> the breakdown without judging benchmark.ignore
    recovered: dict[str, Breakdown]  # column key -> rcs with benchmark.recovery on every mutex


def with_recovery(scenario: Scenario, ticks: int) -> Scenario:
    """`scenario` with every mutex's recovery set to `ticks`, which the
    kernel runs while the mutex is rcs (the breakdown puts it under rcs)."""
    resources = tuple(replace(r, recovery=ticks) if r.kind == "mutex" else r for r in scenario.resources)
    return replace(scenario, resources=resources)


def run(b: Benchmark, quick: bool = False, bench: Mapping[str, Any] | None = None) -> Result:
    scenario = load(EXAMPLES / b.file)
    protocols = list(PROTOCOLS) if not quick else [p for p in PROTOCOLS if p in b.paper]
    cols = columns(scenario.system.tick_hz, quick, bench)
    runs: dict[str, Breakdown] = {}
    ignored: dict[str, Breakdown] = {}
    recovered: dict[str, Breakdown] = {}
    for c in cols:
        if c.model is None:
            continue
        zero = c.key == "zero"
        runs[c.key] = breakdown(scenario, b.vary, protocols, costs=c.model, analysis=zero)
        if b.ignore and "rcs" in protocols:
            ignored[c.key] = breakdown(
                scenario, b.vary, ["rcs"], costs=c.model, analysis=zero, ignore=b.ignore
            )
        if b.recovery and "rcs" in protocols:
            slow = with_recovery(scenario, b.recovery)
            recovered[c.key] = breakdown(slow, b.vary, ["rcs"], costs=c.model, analysis=zero)
    return Result(b, cols, protocols, runs, ignored, recovered)


def recovery_label(r: Result) -> str:
    """The recovery row's name: "rcs, recovery 1 ms"."""
    scenario = next(iter(r.recovered.values())).scenario
    value = scenario.to_unit(scenario.ticks_to_ns(r.benchmark.recovery))
    return f"rcs, recovery {value:g} {scenario.system.time_unit}"


def _cell(bd: Breakdown, protocol: str, analysis: bool) -> str:
    pb = bd.protocols[protocol]
    answer = pb.analysis if analysis else pb.simulation
    s = answer.search
    if s is None or s.value is None or answer.utilisation is None:
        return "-"
    value = bd.scenario.to_unit(bd.scenario.ticks_to_ns(s.value))
    shown = f"{value:g}" + ("+" if s.at_limit else "")
    cell = f"{shown} ({float(answer.utilisation) * 100:.1f})"
    return cell + (" *" if s.anomalies else "")


def table(r: Result) -> str:
    """The benchmark as a Markdown table: EXE in ms (utilisation in %)."""
    b = r.benchmark
    header = ["protocol", f"paper ({b.table})", *(c.title for c in r.columns)]
    rows: list[list[str]] = []
    order = [p for p in ("none", "pip", "npcs", "pcp", "rcs", "ipcp") if p in r.protocols]
    for p in order:
        paper = b.paper.get(p)
        name = f"{p} ({PAPER_NAME[p]})" if PAPER_NAME[p] != "-" else p
        row = [name, f"{paper[0]} ({paper[1]:.1f})" if paper else "-"]
        for c in r.columns:
            bd = r.runs["zero" if c.model is None else c.key]
            row.append(_cell(bd, p, c.model is None))
        rows.append(row)
    if r.ignored:
        paper = b.paper.get("rcs")
        row = [
            f"rcs, {', '.join(b.ignore)}'s deadline not judged",
            f"{paper[0]} ({paper[1]:.1f})" if paper else "-",
        ]
        for c in r.columns:
            bd = r.ignored["zero" if c.model is None else c.key]
            row.append(_cell(bd, "rcs", c.model is None))
        rows.append(row)
    if r.recovered:
        # The paper measured no recovery: no figure of its own.
        row = [recovery_label(r), "-"]
        row += [
            _cell(r.recovered["zero" if c.model is None else c.key], "rcs", c.model is None)
            for c in r.columns
        ]
        rows.append(row)
    return markdown(header, rows)


def markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table given row by row: the first column left-aligned, the others right."""
    columns = [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in header]
    return markdown_table(header, columns)


def as_dict(r: Result) -> dict[str, Any]:
    """Every figure of one benchmark, for experiments.json."""
    out: dict[str, Any] = {
        "title": r.benchmark.title,
        "file": f"examples/rtmach/{r.benchmark.file}",
        "vary": r.benchmark.vary,
        "paper": {p: {"value": v, "utilisation_percent": u} for p, (v, u) in r.benchmark.paper.items()},
        "models": {},
    }
    for c in r.columns:
        bd = r.runs["zero" if c.model is None else c.key]
        cells = {}
        for p in r.protocols:
            ans = bd.protocols[p].analysis if c.model is None else bd.protocols[p].simulation
            s = ans.search
            cells[p] = {
                "value": bd.scenario.to_unit(bd.scenario.ticks_to_ns(s.value))
                if s and s.value is not None
                else None,
                "utilisation": round(float(ans.utilisation), 6) if ans.utilisation is not None else None,
                "runs": len(s.evaluated) if s else 0,
                "anomalies": len(s.anomalies) if s else 0,
            }
        out["models"][c.key] = {"title": c.title, "protocols": cells}
    if r.recovered:
        rcs: dict[str, Any] = {}
        for c in r.columns:
            bd = r.recovered["zero" if c.model is None else c.key]
            ans = bd.protocols["rcs"].analysis if c.model is None else bd.protocols["rcs"].simulation
            s = ans.search
            rcs[c.key] = {
                "value": bd.scenario.to_unit(bd.scenario.ticks_to_ns(s.value))
                if s and s.value is not None
                else None,
                "utilisation": round(float(ans.utilisation), 6) if ans.utilisation is not None else None,
            }
        out["rcs_recovery"] = {
            "label": recovery_label(r),
            "recovery_ticks": r.benchmark.recovery,
            "models": rcs,
        }
    return out

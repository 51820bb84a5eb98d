"""The breakdown's outputs: the answer of `priora breakdown` as a document
(`breakdown_dict`, `breakdown_json`, which breakdown.schema.json describes) and
as tables (`breakdown_sections`, `breakdown_text`), from a `Breakdown` that
priora.breakdown.search found.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from priora.breakdown.search import Answer, Breakdown, show
from priora.scenario.model import Scenario, in_unit
from priora.tables import Cell, Lines, Section, Table, render

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from priora.tables import Format


def _ratio(value: Fraction) -> float:
    return round(float(value), 6)


def _column(scenario: Scenario, answer: Answer) -> dict[str, Any]:
    s = answer.search
    return {
        "value": in_unit(scenario, s.value) if s is not None and s.value is not None else None,
        "utilisation": _ratio(answer.utilisation) if answer.utilisation is not None else None,
        "at_limit": s.at_limit if s is not None else False,
        "runs": len(s.evaluated) if s is not None else 0,
        "evaluated": [[in_unit(scenario, v), ok] for v, ok in s.evaluated] if s is not None else [],
        "anomalies": [[in_unit(scenario, p), in_unit(scenario, f)] for p, f in s.anomalies] if s else [],
        "reason": answer.reason,
        "why": answer.why,
    }


def breakdown_dict(b: Breakdown) -> dict[str, Any]:
    sc = b.scenario
    w = b.window
    return {
        "file": sc.source,
        "time_unit": sc.system.time_unit,
        "tick_hz": sc.system.tick_hz,
        "vary": b.field.text,
        "task": b.field.task,
        "field": b.field.kind if b.field.kind != "body" else f"body[{b.field.index}]",
        "varied": b.field.describe(sc),
        "direction": b.field.direction,
        "file_value": in_unit(sc, b.value),
        "range": [in_unit(sc, b.least), in_unit(sc, b.greatest)],
        "release": "synchronous" if b.synchronous else "file",
        "ignored": list(b.ignored),
        "cost_model": b.cost_model,
        "judged": in_unit(sc, w.judged) if w.judged is not None else None,
        "protocols": {
            p: {"simulation": _column(sc, r.simulation), "analysis": _column(sc, r.analysis)}
            for p, r in b.protocols.items()
        },
    }


def breakdown_json(b: Breakdown, provenance: Mapping[str, Any] | None = None) -> str:
    """One JSON document; `provenance` (priora.provenance) first on a line of
    its own when given, each protocol's columns on lines of their own."""
    doc = breakdown_dict(b)
    protocols = doc.pop("protocols")
    head = json.dumps(doc)[:-1]
    if provenance is not None:
        head = '{"provenance": ' + json.dumps(dict(provenance)) + ",\n " + head[1:]
    lines = [f"  {json.dumps(p)}: {json.dumps(cols)}" for p, cols in protocols.items()]
    return head + ', "protocols": {\n' + ",\n".join(lines) + "\n}}\n"


def _cell_value(scenario: Scenario, answer: Answer) -> str | None:
    s = answer.search
    if s is None or s.value is None:
        return None
    text = str(in_unit(scenario, s.value))
    return f">= {text}" if s.at_limit and s.value is not None else text


def _cell_u(answer: Answer) -> str | None:
    return None if answer.utilisation is None else f"{float(answer.utilisation) * 100:.1f}"


def _beyond(b: Breakdown, answer: Answer) -> str:
    """The value whose failure `answer.why` gives: the one after the answer,
    or the end of the range when none passes."""
    largest = b.field.direction == "largest"
    s = answer.search
    if s is None or s.value is None:
        return str(in_unit(b.scenario, b.least if largest else b.greatest))
    return str(in_unit(b.scenario, s.value + (1 if largest else -1)))


def breakdown_sections(b: Breakdown) -> list[Section]:
    """What was searched and how, the table (one row per protocol), and the
    notes that say why a value fails or is missing."""
    sc = b.scenario
    unit = sc.system.time_unit
    word = "largest" if b.field.direction == "largest" else "smallest"
    release = "every task released at 0 (--synchronous)" if b.synchronous else "the file's release times"
    judged = (
        f"the jobs released in the first {show(sc, b.window.judged)}"
        if b.window.judged is not None
        else "every job"
    )
    if b.ignored:
        judged += f" (not the deadlines of {', '.join(b.ignored)})"
    title = f"Breakdown of {b.field.text} in {sc.source}: times in {unit} (tick_hz {sc.system.tick_hz})"
    head = [
        f"varied: {b.field.describe(sc)}",
        f"in the file: {show(sc, b.value)}; the {word} value that passes is searched "
        "(no deadline missed, no call refused, no more work than time)",
        f"simulation: {release}, {judged} judged, cost model {b.cost_model}",
        "analysis: response-time analysis (any release times, zero overheads)",
    ]
    rows: list[list[Cell]] = []
    notes: list[str] = []
    for p, r in b.protocols.items():
        runs = len(r.simulation.search.evaluated) if r.simulation.search is not None else 0
        rows.append(
            [
                p,
                _cell_value(sc, r.simulation),
                _cell_u(r.simulation),
                runs,
                _cell_value(sc, r.analysis),
                _cell_u(r.analysis),
            ]
        )
        for what, ans in (("simulation", r.simulation), ("analysis", r.analysis)):
            if ans.reason is not None and ans.reason != "not asked":
                notes.append(f"{p}: {what}: {ans.reason}")
            if what == "simulation" and ans.why is not None:
                notes.append(f"{p}: simulation: {_beyond(b, ans)} fails: {ans.why}")
            s = ans.search
            if s is not None and s.at_limit:
                notes.append(f"{p}: {what}: no miss up to the end of the range, {show(sc, s.value or 0)}")
            if s is not None and s.anomalies:
                pairs = ", ".join(
                    f"{in_unit(sc, p_)} passes, {in_unit(sc, f_)} fails" for p_, f_ in s.anomalies
                )
                notes.append(f"{p}: {what}: NOT MONOTONE: {pairs}")
    header = [
        "protocol",
        f"simulation ({unit})",
        "U (%)",
        "runs",
        f"analysis ({unit})",
        "U (%)",
    ]
    columns = [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in header]
    sections: list[Section] = [Lines(title, head), Table("breakdown", None, header, columns)]
    if notes:
        sections.append(Lines("Notes", notes))
    return sections


def breakdown_text(b: Breakdown, fmt: Format = "text") -> str:
    """The sections of `breakdown_sections`, as text or Markdown (priora.tables)."""
    return render(breakdown_sections(b), fmt) + "\n"

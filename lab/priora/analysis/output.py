"""The analysis as text tables or one JSON document (docs/analysis.md,
"Output"). Every time is converted from ticks to the file's time unit here:
an int when whole, else a float rounded to 6 decimals, as in `priora
simulate`'s report; ratios are rounded to 6 decimals."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any

from priora.analysis.core import TESTS, Analysis, TaskResult
from priora.analysis.fixed_priority import Test
from priora.analysis.taskset import TaskSet, number
from priora.tables import Cell, Lines, Section, Table, render

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from priora.tables import Format

TEST_TITLES: dict[str, str] = {
    "utilisation": "total utilisation U <= 1 (necessary)",
    "liu_layland": "Liu-Layland with blocking",
    "hyperbolic": "hyperbolic with blocking",
    "response_time": "response-time analysis",
    "edf_demand": "EDF processor demand with blocking",
    "edf_kernelized_monitor": "EDF kernelized monitor [Tokuda-Nakajima 1993]",
}


def _time(ts: TaskSet, ticks: int | None) -> int | float | None:
    return None if ticks is None else number(ts.in_unit(ticks))


def _ratio(value: Fraction | None) -> float | None:
    return None if value is None else round(float(value), 6)


# ---------------------------------------------------------------- JSON


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of `analysis_json`'s document (analysis.schema.json)."""
    text = resources.files("priora").joinpath("analysis.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _task_dict(ts: TaskSet, r: TaskResult) -> dict[str, Any]:
    return {
        "blocking": _time(ts, r.blocking),
        "blocked_by": [
            {"task": t.task, "mutex": t.mutex, "length": _time(ts, t.ticks)} for t in r.blocked_by
        ],
        "response": _time(ts, r.response),
        "meets_deadline": r.meets_deadline,
        "unbounded": r.unbounded,
        "reason": r.reason,
    }


def _test_dict(test: Test) -> dict[str, Any]:
    return {"passes": test.passes, "value": _ratio(test.value), "reason": test.reason}


def analysis_dict(analysis: Analysis, provenance: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON document as Python values, keys in a fixed order;
    `provenance` (priora.provenance) first when given."""
    ts = analysis.taskset
    return {
        **({"provenance": dict(provenance)} if provenance is not None else {}),
        "file": ts.source,
        "time_unit": ts.time_unit,
        "tick_hz": ts.tick_hz,
        "quantum": _time(ts, ts.quantum),
        "tasks": {
            t.name: {
                "priority": t.priority,
                "period": _time(ts, t.period),
                "deadline": _time(ts, t.deadline),
                "wcet": _time(ts, t.wcet),
                "utilisation": None if t.period is None else _ratio(Fraction(t.wcet, t.period)),
                "sections": [{"mutex": s.mutex, "length": _time(ts, s.ticks)} for s in t.sections],
                "final_region": _time(ts, t.final_region),
            }
            for t in ts.tasks
        },
        "mutexes": {
            m.name: {
                "users": list(m.users),
                "ceiling": m.ceiling,
                "ceiling_given": m.ceiling_given,
                "inheritance_level": m.inheritance,
                "longest_section": _time(ts, m.longest),
            }
            for m in ts.mutexes.values()
        },
        "protocols": {
            p: {
                "reason": result.reason,
                "tasks": {name: _task_dict(ts, r) for name, r in result.tasks.items()},
                "tests": {name: _test_dict(result.tests[name]) for name in TESTS},
            }
            for p, result in analysis.protocols.items()
        },
        **_left_out_dict(ts),
    }


def _left_out_dict(ts: TaskSet) -> dict[str, Any]:
    """What the analysis does not bound or count; present only when there is some."""
    out: dict[str, Any] = {}
    if ts.unbounded_waits:
        out["unbounded_waits"] = [
            {"task": w.task, "action": w.action, "text": w.text, "reason": w.reason}
            for w in ts.unbounded_waits
        ]
    if ts.not_counted:
        out["not_counted"] = list(ts.not_counted)
    return out


def _left_out_text(ts: TaskSet) -> Lines | None:
    """The plain statement of what B and R leave out, per task; in CSV, the
    waits not bounded (not_bounded.csv)."""
    if not ts.unbounded_waits and not ts.not_counted:
        return None
    lines = [f'{w.task} body[{w.action}] "{w.text}": {w.reason}' for w in ts.unbounded_waits]
    lines += list(ts.not_counted)
    waits = ts.unbounded_waits
    table = Table(
        "not_bounded",
        None,
        ["task", "action", "text", "reason"],
        [
            [w.task for w in waits],
            [w.action for w in waits],
            [w.text for w in waits],
            [w.reason for w in waits],
        ],
        "lrll",
    )
    title = "Not bounded by this analysis (the bounds above hold only if these waits end at once)"
    return Lines(title, lines, table if waits else None)


def analysis_json(analysis: Analysis, provenance: Mapping[str, Any] | None = None) -> str:
    """One JSON document; json.loads gives back analysis_dict(analysis,
    provenance). The layout puts each task, mutex, result and test on a line
    of its own."""
    return _layout(analysis_dict(analysis, provenance), "")


def _layout(value: Any, indent: str) -> str:
    """An object with an object among its values is laid out one key a line;
    anything else is written on one line."""
    if not isinstance(value, dict) or not any(isinstance(v, dict) for v in value.values()):
        return json.dumps(value, ensure_ascii=False)
    inner = indent + "  "
    items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {_layout(v, inner)}" for k, v in value.items()]
    return "{\n" + ",\n".join(items) + f"\n{indent}}}"


# ---------------------------------------------------------------- text


def _table(
    name: str, title: str, headers: Sequence[str], rows: Sequence[Sequence[Cell]], align: str = "l"
) -> Table:
    """A titled table given row by row (priora.tables): `align` has one
    letter per column, l(eft) or r(ight), the others right."""
    columns = [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in headers]
    return Table(name, title, headers, columns, align)


def _tasks_text(ts: TaskSet) -> Table:
    unit = ts.time_unit
    headers = ["task", "priority", f"period ({unit})", f"deadline ({unit})", f"C ({unit})", "C/T"]
    headers.append(f"critical sections ({unit})")
    rows: list[list[Cell]] = []
    for t in ts.tasks:
        u = None if t.period is None else _ratio(Fraction(t.wcet, t.period))
        sections = ", ".join(f"{s.mutex} {_time(ts, s.ticks)}" for s in t.sections) or None
        rows.append(
            [
                t.name,
                t.priority,
                _time(ts, t.period),
                _time(ts, t.deadline),
                _time(ts, t.wcet),
                None if u is None else f"{u:.6f}",
                sections,
            ]
        )
    return _table("tasks", "Tasks", headers, rows, align="lrrrrrl")


def _mutexes_text(ts: TaskSet) -> Table:
    rows: list[list[Cell]] = [
        [
            m.name,
            ", ".join(m.users) or None,
            None if m.ceiling is None else f"{m.ceiling}{' (given)' if m.ceiling_given else ''}",
            _time(ts, m.longest),
        ]
        for m in ts.mutexes.values()
    ]
    return _table(
        "mutexes",
        "Mutexes",
        ["mutex", "locked by", "ceiling", f"longest section ({ts.time_unit})"],
        rows,
        align="llr",
    )


def _blocking_cell(ts: TaskSet, r: TaskResult) -> Cell:
    """B, "inf" when unbounded, None (shown "-") when there is no bound."""
    if r.blocking is not None:
        return _time(ts, r.blocking)
    return "inf" if r.unbounded else None


def _blocking_text(analysis: Analysis) -> Table:
    ts = analysis.taskset
    protocols = list(analysis.protocols)
    rows: list[list[Cell]] = []
    for t in ts.tasks:
        row: list[Cell] = [t.name]
        for p in protocols:
            r = analysis.protocols[p].tasks[t.name]
            row.append(_blocking_cell(ts, r))
        rows.append(row)
    return _table("blocking", f"Blocking B ({ts.time_unit})", ["task", *protocols], rows)


def _response_cell(ts: TaskSet, r: TaskResult) -> Cell:
    if r.response is None:
        return "inf" if r.unbounded else None
    verdict = {True: " ok", False: " > D", None: ""}[r.meets_deadline]
    return f"{_time(ts, r.response)}{verdict}"


def _response_text(analysis: Analysis) -> Table:
    ts = analysis.taskset
    protocols = list(analysis.protocols)
    rows: list[list[Cell]] = [
        [
            t.name,
            _time(ts, t.deadline),
            *(_response_cell(ts, analysis.protocols[p].tasks[t.name]) for p in protocols),
        ]
        for t in ts.tasks
    ]
    headers = ["task", f"deadline ({ts.time_unit})", *protocols]
    return _table("response", f"Response time R ({ts.time_unit}): ok when R <= D", headers, rows)


def _verdict(test: Test) -> Cell:
    return test.passes  # yes, no, or None (shown "-": the test does not apply)


def _tests_text(analysis: Analysis) -> Table:
    protocols = list(analysis.protocols)
    rows: list[list[Cell]] = [
        [TEST_TITLES[name], *(_verdict(analysis.protocols[p].tests[name]) for p in protocols)]
        for name in TESTS
    ]
    return _table(
        "tests",
        "Tests: yes = schedulable by the test, no = not shown, - = does not apply",
        ["test", *protocols],
        rows,
    )


def _notes(analysis: Analysis) -> list[str]:
    """Why a bound is missing, a test fails or does not apply, grouped by text
    over the protocols that share it."""
    found: dict[str, list[str]] = {}

    def add(protocol: str, text: str) -> None:
        found.setdefault(text, [])
        if protocol not in found[text]:
            found[text].append(protocol)

    for p, result in analysis.protocols.items():
        if result.reason is not None:
            add(p, f"no analysis: {result.reason}")
            continue
        for name, r in result.tasks.items():
            if r.reason is not None:
                what = (
                    "B unbounded"
                    if r.unbounded and r.blocking is None
                    else "R unbounded"
                    if r.unbounded
                    else "R"
                )
                add(p, f"{name}: {what}: {r.reason}")
        for name in TESTS:
            test = result.tests[name]
            if test.reason is not None:
                add(p, f"{TEST_TITLES[name]}: {test.reason}")
    return [f"{', '.join(ps)}: {text}" for text, ps in found.items()]


def analysis_sections(analysis: Analysis) -> list[Section]:
    """The header, then the tables: tasks, mutexes, B per task and protocol,
    R per task and protocol, the tests per protocol, and the notes that say why."""
    ts = analysis.taskset
    u = (
        analysis.protocols[next(iter(analysis.protocols))].tests["utilisation"]
        if analysis.protocols
        else None
    )
    header: list[str] = []
    if u is not None and u.value is not None:
        header.append(f"total utilisation U = {float(u.value):.6f}")
    if ts.quantum:
        header.append(
            f"round robin among equal priorities, quantum {ts.show(ts.quantum)}: "
            "each task counts the others of its priority as interference"
        )
    title = f"Analysis of {ts.source}: times in {ts.time_unit} (tick_hz {ts.tick_hz})"
    sections: list[Section] = [Lines(title, header), _tasks_text(ts), _mutexes_text(ts)]
    if analysis.protocols:
        sections += [_blocking_text(analysis), _response_text(analysis), _tests_text(analysis)]
        notes = _notes(analysis)
        if notes:
            sections.append(Lines("Notes", notes))
    left_out = _left_out_text(ts)
    if left_out is not None:
        sections.append(left_out)
    return sections


def analysis_text(analysis: Analysis, fmt: Format = "text") -> str:
    """The sections of `analysis_sections`, as text or Markdown (priora.tables)."""
    return render(analysis_sections(analysis), fmt)

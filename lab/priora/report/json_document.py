"""The report as one JSON document (`report_json`), as described by
report.schema.json (shipped with the package) and docs/report-schema.md, and
as Python values (`report_dict`).

The job rows are written column by column, in C when every column is whole
(lab/native/jobs_json.c), so a run of a million jobs is written in a few
hundred milliseconds; the rest of the document is json's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache

from priora.report.build import (
    JOB_FIELDS,
    RECOVERY_FIELDS,
    Report,
    Row,
    row_fields,
    units_per_second,
)
from priora.run import native

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from typing import Any


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of `report_json`'s document (report.schema.json)."""
    from importlib import resources  # only here: its import costs start-up

    text = resources.files("priora").joinpath("report.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _services(report: Report) -> dict[str, dict[str, Row]]:
    """The objects beyond semaphores that the scenario has, by JSON key."""
    tables: dict[str, dict[str, Row]] = {
        "queues": dict(report.queues),
        "events": dict(report.events),
        "timers": dict(report.timers),
        "interrupts": dict(report.interrupts),
        "arrivals": dict(report.arrivals),
    }
    return {key: rows for key, rows in tables.items() if rows}


def _job_fields(report: Report) -> tuple[str, ...]:
    """The keys of a job's object: every field, `recovery` only with recoveries."""
    return JOB_FIELDS if report.recoveries else tuple(f for f in JOB_FIELDS if f not in RECOVERY_FIELDS)


def _job_columns(report: Report) -> list[list[Any]]:
    return [report.jobs._columns[JOB_FIELDS.index(name)] for name in _job_fields(report)]


def report_dict(
    report: Report, provenance: Mapping[str, Any] | None = None, summary: bool = False
) -> dict[str, Any]:
    """The JSON document as Python values; keys in a fixed order (the
    records' field order), tasks and resources in the scenario's order;
    the `recovery` fields only when a mutex has a recovery (Report.recoveries).
    `provenance` (priora.provenance) comes first when given; `summary`: no
    `jobs` key."""
    keys, r, ts = _job_fields(report), report.recoveries, report.timeshare
    jobs = [dict(zip(keys, row, strict=True)) for row in zip(*_job_columns(report), strict=True)]
    return {
        **({"provenance": dict(provenance)} if provenance is not None else {}),
        **({} if summary else {"jobs": jobs}),
        "tasks": {name: row_fields(t, r, ts) for name, t in report.tasks.items()},
        "resources": {name: row_fields(x, r) for name, x in report.resources.items()},
        **{key: {name: row_fields(x) for name, x in rows.items()} for key, rows in _services(report).items()},
        "system": row_fields(report.system, r, ts),
        "warnings": [row_fields(w) for w in report.warnings],
    }


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _lines(key: str, items: list[str], brackets: str) -> str:
    """One top-level key: each item on a line of its own, so the document
    reads and greps line by line."""
    if not items:
        return f"  {_compact(key)}: {brackets}"
    body = ",\n    ".join(items)
    return f"  {_compact(key)}: {brackets[0]}\n    {body}\n  {brackets[1]}"


def _block(key: str, value: dict[str, Any]) -> str:
    return _lines(key, [f"{_compact(k)}: {_compact(v)}" for k, v in value.items()], "{}")


def _job_object(names: tuple[str, ...]) -> str:
    """One job's object, as json.dumps writes it, with a {} for each value."""
    return "{{" + ", ".join(f"{_compact(name)}: {{}}" for name in names) + "}}"


def _json_column(name: str, values: list[Any]) -> list[Any]:
    """Job column `name` ready for str.format in _JOB_OBJECT, so that the
    text is json.dumps's: an int or a float formats as its repr, as
    json.dumps writes it (NaN and infinities never occur); names, booleans
    and None are encoded here."""
    if name == "task":
        encoded = {v: _compact(v) for v in set(values)}
        return [encoded[v] for v in values]
    if name == "missed":
        return ["true" if v else "false" for v in values]
    if None in values:
        return ["null" if v is None else v for v in values]
    return values


def _jobs_json(report: Report) -> str:
    """The jobs block, formatted column by column: json.dumps once per job
    costs several times more than the simulation."""
    names = _job_fields(report)
    columns = [_json_column(name, values) for name, values in zip(names, _job_columns(report), strict=True)]
    return _lines("jobs", list(map(_job_object(names).format, *columns)), "[]")


# Where report_json's document has the jobs that lab/native/jobs_json.c
# writes: a character json.dumps never writes (it escapes control characters).
_JOBS_HERE = "\x00"


def _native_jobs(report: Report, out: Any, offset: int, size: int) -> int | None:
    """Writes the jobs' objects of a run as `_jobs_json` writes them,
    separated as `_lines` separates them, with lab/native/jobs_json.c from
    the C rows, at `offset` of the `size` bytes at `out` (a char *, NULL to
    learn the size: a bound). Returns the bytes written (the bound), or None:
    rows made in Python, no job, or a time that is not a whole number of the
    unit (its float needs Python's repr)."""
    source = report.jobs.source
    if source is None or len(report.jobs) == 0:
        return None
    scenario, jobs = source
    njobs = len(report.jobs)
    ffi, lib = native.ffi, native.lib()
    names = _job_fields(report)
    task_names = [ffi.new("char[]", _compact(t.name).encode()) for t in scenario.tasks]
    keys = [
        ffi.new("char[]", f"{'{' if i == 0 else ', '}{_compact(n)}: ".encode()) for i, n in enumerate(names)
    ]
    args = (
        len(names),
        ffi.new("uint8_t[]", [JOB_FIELDS.index(n) for n in names]),
        ffi.new("char *[]", keys),
        ffi.new("char *[]", task_names),
        len(task_names),
    )
    sep = b",\n    "
    if out == ffi.NULL:
        return int(lib.pr_lab_jobs_json_bound(njobs, *args, sep))
    rows = ffi.cast("const pr_lab_job_t *", ffi.from_buffer(jobs))
    written = int(
        lib.pr_lab_jobs_json(rows, njobs, *args, units_per_second(scenario), sep, out + offset, size - offset)
    )
    if written == native.JSON_NOT_WHOLE:
        return None
    if written < 0:
        raise ValueError(f"the jobs could not be written in C ({written})")
    return written


def report_json(report: Report, provenance: Mapping[str, Any] | None = None, summary: bool = False) -> str:
    """One JSON document (keys provenance when given, jobs unless `summary`,
    tasks, resources, system, warnings), laid out one entry per line;
    json.loads gives back report_dict(report, provenance, summary)."""
    # A run's jobs are written by C into the document's buffer when they can
    # be (_native_document): a place is kept for them.
    if not summary and _native_jobs(report, native.ffi.NULL, 0, 0) is not None:
        document = _native_document(report, _document(report, provenance, [_JOBS_HERE]))
        if document is not None:
            return document
    return _document(report, provenance, [] if summary else [_jobs_json(report)])


def _document(report: Report, provenance: Mapping[str, Any] | None, jobs: list[str]) -> str:
    """report_json's document, with `jobs` as its jobs block (none, or one)."""
    r, ts = report.recoveries, report.timeshare
    blocks = [
        *([_block("provenance", dict(provenance))] if provenance is not None else []),
        *(f"  {_compact('jobs')}: [\n    {_JOBS_HERE}\n  ]" if j == _JOBS_HERE else j for j in jobs),
        _block("tasks", {name: row_fields(t, r, ts) for name, t in report.tasks.items()}),
        _block("resources", {name: row_fields(x, r) for name, x in report.resources.items()}),
        *(
            _block(key, {name: row_fields(x) for name, x in rows.items()})
            for key, rows in _services(report).items()
        ),
        _block("system", row_fields(report.system, r, ts)),
        _lines("warnings", [_compact(row_fields(w)) for w in report.warnings], "[]"),
    ]
    return "{\n" + ",\n".join(blocks) + "\n}"


def _native_document(report: Report, document: str) -> str | None:
    """`document` with the jobs written by C at its _JOBS_HERE, or None when
    a time is not a whole number of the unit. One buffer for the whole
    document, the jobs written into it in place: they are most of it, and
    each copy of them costs. numpy's memory, not a bytearray: it is not
    zeroed first, and a large one is given in huge pages. The text is
    decoded from that memory directly."""
    import numpy as np

    ffi = native.ffi
    bound = _native_jobs(report, ffi.NULL, 0, 0)
    assert bound is not None
    head, tail = (part.encode() for part in document.split(_JOBS_HERE, 1))
    out = np.empty(len(head) + bound + len(tail), dtype=np.uint8)
    start = ffi.cast("char *", ffi.from_buffer(out))
    ffi.memmove(start, head, len(head))
    written = _native_jobs(report, start, len(head), len(head) + bound)
    if written is None:
        return None
    ffi.memmove(start + len(head) + written, tail, len(tail))
    return str(out.data[: len(head) + written + len(tail)], "utf-8")

"""A campaign's results in one SQLite file (docs/campaigns.md, "The database").

`meta` keeps the specification as written (a rerun reads it back); `results`
has one row per set and protocol, its number fixed by the specification
(Campaign.row), so the file's content does not depend on the order in which
sets finish. A set's rows are written in one transaction: an interrupted
campaign has each set either whole or absent, and resuming runs the absent
ones only.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from priora.campaign.spec import Campaign, canonical
from priora.errors import PrioraError

FORMAT = "1"

# (name, SQL type, meaning): the schema, the CSV header and docs/campaigns.md's table.
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("row", "INTEGER PRIMARY KEY", "row number: (point x sets + set) x protocols + protocol + 1"),
    ("point", "INTEGER NOT NULL", "index of the axis point, from 0"),
    ("axis_value", "REAL NOT NULL", "the axis parameter's value at that point"),
    ("set_index", "INTEGER NOT NULL", "index of the set at its point, from 0"),
    ("seed", "INTEGER NOT NULL", "the generator's seed for this set"),
    ("protocol", "TEXT NOT NULL", "the locking protocol of every mutex"),
    ("tasks", "INTEGER", "number of tasks"),
    ("target_utilisation", "REAL", "the total utilisation drawn"),
    ("utilisation", "REAL", "the total utilisation after rounding C to ticks"),
    ("hyperperiod", "REAL", "in the time unit"),
    ("horizon", "REAL", "jobs released before it are judged (time unit)"),
    ("analysis", "INTEGER", "response-time analysis: 1 schedulable, 0 not, NULL no verdict"),
    ("analysis_reason", "TEXT", "why not, or why no verdict"),
    ("simulated", "INTEGER", "1 when no judged job missed its deadline on the kernel"),
    ("misses", "INTEGER", "judged jobs that missed"),
    ("jobs", "INTEGER", "judged jobs"),
    ("finding", "INTEGER NOT NULL", "1 when the analysis says schedulable and the kernel missed"),
    ("exceeded", "INTEGER", "tasks whose worst response on the kernel exceeds their bound R"),
    ("response", "TEXT", "JSON: worst response per task on the kernel"),
    ("blocking", "TEXT", "JSON: worst blocked time per task on the kernel"),
    ("bound_response", "TEXT", "JSON: R per task by analysis (null: unbounded or none)"),
    ("bound_blocking", "TEXT", "JSON: B per task by analysis"),
    ("error", "TEXT", "why the set could not be generated or run"),
)
NAMES = tuple(name for name, _, _ in COLUMNS)


class DatabaseError(PrioraError):
    """A database that is not a campaign's, or another campaign's."""


def connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path)


def create_or_check(path: Path, campaign: Campaign) -> sqlite3.Connection:
    """Opens the database of `campaign` at `path`, creating it when absent.
    One made by another specification is refused: its rows would not mean
    the same."""
    con = connect(path)
    if not _tables(con):
        # One explicit transaction: sqlite3 would commit each CREATE on its
        # own, and a process killed in between would leave tables without meta.
        previous = con.isolation_level
        con.isolation_level = None
        con.execute("BEGIN")
        con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        schema = ", ".join(f"{name} {kind}" for name, kind, _ in COLUMNS)
        con.execute(f"CREATE TABLE results ({schema})")
        con.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [
                ("format", FORMAT),
                ("source", campaign.source),
                ("spec", campaign.text),
                ("canonical", _canonical(campaign)),
            ],
        )
        con.execute("COMMIT")
        con.isolation_level = previous
        return con
    meta = read_meta(con, path)
    if meta["canonical"] != _canonical(campaign):
        con.close()
        raise DatabaseError(
            f"{path}: holds the results of another specification ({meta['source']}): "
            "give another --db, or delete the file to start again"
        )
    return con


def _canonical(campaign: Campaign) -> str:
    from priora.scenario.loader import decode_toml

    return canonical(decode_toml(campaign.text, campaign.source))


def _tables(con: sqlite3.Connection) -> set[str]:
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def read_meta(con: sqlite3.Connection, path: Path) -> dict[str, str]:
    if not {"meta", "results"} <= _tables(con):
        raise DatabaseError(f"{path}: not a campaign database (no meta and results tables)")
    meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("format") != FORMAT:
        raise DatabaseError(f"{path}: campaign database format {meta.get('format')}, this lab reads {FORMAT}")
    return meta


def open_existing(path: Path) -> tuple[sqlite3.Connection, Campaign]:
    """An existing database and the campaign it holds (its specification parsed again)."""
    from priora.campaign.spec import parse_campaign
    from priora.scenario.loader import decode_toml

    if not path.is_file():
        raise DatabaseError(f"{path}: no such file")
    con = connect(path)
    try:
        meta = read_meta(con, path)
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(f"{path}: not a campaign database ({exc})") from None
    doc = decode_toml(meta["spec"], meta["source"])
    return con, parse_campaign(meta["source"], meta["spec"], doc)


def done(con: sqlite3.Connection) -> set[tuple[int, int]]:
    """The sets already in the database: (point, set)."""
    return {(p, s) for p, s in con.execute("SELECT DISTINCT point, set_index FROM results")}


def insert(con: sqlite3.Connection, rows: Sequence[dict[str, Any]]) -> None:
    """One set's rows, in one transaction."""
    marks = ", ".join("?" for _ in NAMES)
    with con:
        con.executemany(
            f"INSERT INTO results ({', '.join(NAMES)}) VALUES ({marks})",
            [tuple(r.get(name) for name in NAMES) for r in rows],
        )


def rows(con: sqlite3.Connection, where: str = "", args: Iterable[Any] = ()) -> list[dict[str, Any]]:
    cursor = con.execute(f"SELECT {', '.join(NAMES)} FROM results {where} ORDER BY row", tuple(args))
    return [dict(zip(NAMES, r, strict=True)) for r in cursor]


def export_csv(con: sqlite3.Connection, out: Path) -> int:
    """Every row, in row order, with a header; returns the number of rows."""
    data = rows(con)
    with out.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(NAMES)
        for r in data:
            writer.writerow(["" if r[n] is None else r[n] for n in NAMES])
    return len(data)


def export_parquet(con: sqlite3.Connection, out: Path) -> int:
    """The same table as Parquet; needs pyarrow (optional)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise DatabaseError("--parquet needs pyarrow (pip install pyarrow); --csv needs nothing") from None
    data = rows(con)
    table = pa.table({n: [r[n] for r in data] for n in NAMES})
    pq.write_table(table, out)
    return len(data)


def per_task(value: str | None) -> dict[str, float | None]:
    """A JSON column (response, blocking, bound_response, bound_blocking)."""
    if value is None:
        return {}
    parsed: dict[str, float | None] = json.loads(value)
    return parsed

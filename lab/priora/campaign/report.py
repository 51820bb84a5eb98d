"""What a campaign's database says: acceptance ratios per point and protocol,
weighted schedulability, the findings, and one row rerun alone.

Acceptance ratio: the fraction of a point's sets that a judge accepts (the
analysis: response-time analysis says schedulable; the simulation: no judged
job missed on the kernel). Weighted schedulability [Bastoni-Brandenburg-
Anderson 2010]: sum of U x accepted over sum of U, over the sets of a point
(or of the whole campaign), so that a judge that fails the heavy sets scores
below one that fails the light ones.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from priora.campaign import db
from priora.campaign.evaluate import evaluate, set_scenario
from priora.campaign.spec import Campaign
from priora.generate import derive_seed, generate
from priora.record import record
from priora.tables import Cell, Table, render

JUDGES = ("analysis", "simulated")


@record(frozen=True)
class Ratio:
    accepted: int
    judged: int  # sets with a verdict
    weighted: float | None  # sum U x accepted / sum U

    @property
    def ratio(self) -> float | None:
        return None if self.judged == 0 else self.accepted / self.judged


def ratios(con: sqlite3.Connection, point: int | None = None) -> dict[tuple[str, str], Ratio]:
    """(protocol, judge) -> Ratio over the sets of `point` (None: all points)."""
    where, args = ("WHERE point = ?", (point,)) if point is not None else ("", ())
    out: dict[tuple[str, str], Ratio] = {}
    for judge in JUDGES:
        query = (
            f"SELECT protocol, SUM({judge} = 1), COUNT({judge}), SUM(utilisation * ({judge} = 1)), "
            f"SUM(CASE WHEN {judge} IS NOT NULL THEN utilisation END) FROM results {where} GROUP BY protocol"
        )
        for protocol, accepted, judged, weighted, total in con.execute(query, args):
            w = None if not total else (weighted or 0.0) / total
            out[(protocol, judge)] = Ratio(int(accepted or 0), int(judged), w)
    return out


def findings(con: sqlite3.Connection) -> list[dict[str, Any]]:
    return db.rows(con, "WHERE finding = 1")


def summary(campaign: Campaign, con: sqlite3.Connection, path: Path) -> str:
    """The acceptance ratios (analysis / simulation) per point and protocol,
    the weighted schedulability, the errors and the findings, as text."""
    done = len(db.done(con))
    unit = campaign.params[0].time_unit
    lines = [
        f"Campaign {campaign.source}{': ' + campaign.title if campaign.title else ''}",
        f"  {len(campaign.points)} points x {campaign.sets} sets ({done} of {campaign.total_sets} done), "
        f"protocols {', '.join(campaign.protocols)}, cost model {campaign.cost_model}",
        f"  database {path}; times in {unit}",
        "",
        f"Acceptance ratio: {_judges(campaign)}",
    ]
    header = [campaign.parameter, *campaign.protocols]
    table = []
    for point, value in enumerate(campaign.points):
        r = ratios(con, point)
        table.append([_value(value), *(_cell(r, p, "ratio") for p in campaign.protocols)])
    overall = ratios(con)
    table.append(["all", *(_cell(overall, p, "ratio") for p in campaign.protocols)])
    table.append(["weighted", *(_cell(overall, p, "weighted") for p in campaign.protocols)])
    lines += _table(header, table)
    errors = con.execute("SELECT COUNT(*) FROM results WHERE error IS NOT NULL").fetchone()[0]
    if errors:
        first = con.execute("SELECT row, error FROM results WHERE error IS NOT NULL ORDER BY row").fetchone()
        lines += ["", f"Errors: {errors} rows, the first row {first[0]}: {first[1]}"]
    found = findings(con)
    lines += ["", "Findings (the analysis says schedulable, the kernel missed a deadline):"]
    if not found:
        lines.append("  none")
    for f in found[:20]:
        lines.append(
            f"  row {f['row']}: {campaign.parameter} = {_value(f['axis_value'])}, set {f['set_index']}, "
            f"{f['protocol']}: {f['misses']} of {f['jobs']} jobs missed; "
            f"priora campaign rerun {path} {f['row']}"
        )
    if len(found) > 20:
        lines.append(f"  ... {len(found) - 20} more (priora campaign export {path} --csv OUT, finding = 1)")
    if found and campaign.cost_model != "zero":
        lines.append(
            f"  (the analysis assumes zero overheads; the kernel ran with cost model {campaign.cost_model})"
        )
    return "\n".join(lines) + "\n"


def _judges(campaign: Campaign) -> str:
    if campaign.runs == ("analysis", "simulation"):
        return "analysis / simulation"
    return campaign.runs[0]


def _cell(r: dict[tuple[str, str], Ratio], protocol: str, what: str) -> str:
    parts = []
    for judge in JUDGES:
        ratio = r.get((protocol, judge))
        if ratio is None or ratio.judged == 0:
            continue
        value = ratio.ratio if what == "ratio" else ratio.weighted
        parts.append("-" if value is None else f"{value:.2f}")
    return " / ".join(parts) or "-"


def _value(value: float) -> str:
    return f"{value:g}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """The lines of a text table (priora.tables): the first column left-aligned."""
    columns: list[list[Cell]] = [list(c) for c in zip(*rows, strict=True)]
    return render([Table("acceptance", None, header, columns)]).split("\n")


# ---------------------------------------------------------------- rerun

_COMPARED = ("analysis", "simulated", "misses", "jobs", "finding", "response", "blocking", "bound_response")


@record(frozen=True)
class Rerun:
    stored: dict[str, Any]
    now: dict[str, Any]

    @property
    def same(self) -> bool:
        return all(self.stored.get(k) == self.now.get(k) for k in _COMPARED)


def rerun(campaign: Campaign, con: sqlite3.Connection, row: int, path: Path) -> Rerun:
    """Row `row` computed again from the specification alone."""
    from priora.campaign.run import CampaignError

    stored = db.rows(con, "WHERE row = ?", (row,))
    if not stored:
        last = con.execute("SELECT MAX(row) FROM results").fetchone()[0]
        raise CampaignError(f"{path}: no row {row} (rows 1..{last or 0}, some may not have run yet)")
    point, set_index, protocol = campaign.locate(row)
    now = evaluate(campaign, point, set_index, [protocol])[0]
    return Rerun(stored[0], now)


def rerun_text(campaign: Campaign, r: Rerun, path: Path, scenario: Path | None) -> str:
    s = r.stored
    lines = [
        f"Row {s['row']} of {path}: {campaign.parameter} = {_value(s['axis_value'])} (point {s['point']}), "
        f"set {s['set_index']}, seed {s['seed']}, protocol {s['protocol']}",
    ]
    if scenario is not None:
        lines.append(f"  the set, with its protocol and cost model: {scenario} (priora simulate {scenario})")
    header = ["", "stored", "now"]
    table = [[k, _show(s.get(k)), _show(r.now.get(k))] for k in _COMPARED]
    lines += ["", *_table(header, table), "", f"reproduced: {'yes' if r.same else 'NO'}"]
    return "\n".join(lines) + "\n"


def _show(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str) and value.startswith("{"):
        return ", ".join(f"{k} {'-' if v is None else f'{v:g}'}" for k, v in json.loads(value).items())
    return str(value)


def scenario_text(campaign: Campaign, row: int) -> str:
    """The scenario file of a row's set, as the generator wrote it, with the
    row's protocol and the campaign's cost model in [system]: `priora
    simulate FILE` runs what the row ran."""
    point, set_index, protocol = campaign.locate(row)
    params = campaign.params[point]
    text = generate(params, derive_seed(campaign.seed, point, set_index)).toml()
    system = [f'protocol = "{campaign.protocols[protocol]}"']
    if campaign.cost_model != "zero":
        system.append(f'cost_model = "{campaign.cost_model}"')
    if campaign.cpu_hz is not None:
        system.append(f"cpu_hz = {campaign.cpu_hz}")
    text = text.replace(f'protocol = "{params.protocol}"', "\n".join(system), 1)
    set_scenario(campaign, point, set_index, text)  # what the campaign ran: it loads
    return text

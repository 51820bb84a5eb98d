"""A campaign specification: the `[campaign]` and `[generator]` tables of
SPEC.toml, validated (docs/campaigns.md, "The specification").

Every mistake is one SpecError naming the file, the table and key, and the
value. Each point of the axis gets its own validated generator parameters,
so a point that cannot be generated is refused before anything runs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Literal, TypeVar

from priora.costs import model as costs
from priora.errors import SpecError, describe_value
from priora.generate import AXIS_KEYS, Params, Reader, parse_params
from priora.record import record
from priora.scenario.model import PROTOCOLS

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from priora.scenario.model import Protocol

Run = Literal["analysis", "simulation"]
RUNS: tuple[Run, ...] = ("analysis", "simulation")
HORIZONS = ("hyperperiod", "busy-period")
COST_MODELS = ("zero", "rtmach93", "measured")  # priora.costs.model.NAMES
# Generator keys whose axis points are integers.
INTEGER_KEYS = ("tasks", "mutexes", "sections_per_job", "nesting_depth")
MAX_POINTS = 10_000

_T = TypeVar("_T", bound=str)

_TOP_KEYS = ("campaign", "generator")
_CAMPAIGN_KEYS = ("title", "seed", "sets", "protocols", "run", "horizon", "cost_model", "cpu_hz", "axis")
_AXIS_KEYS = ("parameter", "points", "from", "to", "step", "count")


@record(frozen=True)
class Campaign:
    source: str  # the spec file, for messages
    text: str  # the spec as written: the database keeps it, a rerun reads it back
    title: str
    seed: int
    sets: int  # per point
    protocols: tuple[Protocol, ...]
    runs: tuple[Run, ...]
    horizon: str | int  # "hyperperiod", "busy-period", or ticks
    cost_model: str
    cpu_hz: int | None
    parameter: str  # the generator key the axis varies
    points: tuple[float, ...]  # the axis values, as numbers
    params: tuple[Params, ...]  # the generator at each point

    @property
    def total_sets(self) -> int:
        return len(self.points) * self.sets

    def row(self, point: int, set_index: int, protocol: int) -> int:
        """The row number of one set under one protocol: fixed by the spec,
        whatever order the sets are run in, from 1."""
        return (point * self.sets + set_index) * len(self.protocols) + protocol + 1

    def locate(self, row: int) -> tuple[int, int, int]:
        """(point, set, protocol index) of a row number."""
        index, protocol = divmod(row - 1, len(self.protocols))
        point, set_index = divmod(index, self.sets)
        return point, set_index, protocol


def canonical(doc: Mapping[str, object]) -> str:
    """A decoded TOML document as JSON, numbers as written: what two specs
    must share for one database to hold both."""

    def plain(value: object) -> object:
        if isinstance(value, Decimal):
            return str(value)
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value

    return json.dumps(plain(doc), sort_keys=True)


def parse_campaign(source: str, text: str, doc: Mapping[str, object]) -> Campaign:
    for key in doc:
        if key not in _TOP_KEYS:
            raise SpecError(source, key, "unknown table (expected [campaign] and [generator])")
    table = _table(source, "[campaign]", doc.get("campaign"), required=True)
    generator = _table(source, "[generator]", doc.get("generator", {}), required=False)
    r = Reader(source, "[campaign]", table)
    r.check_keys(_CAMPAIGN_KEYS)
    title = table.get("title", "")
    if not isinstance(title, str):
        r.fail("title", f"must be a string, got {describe_value(title)}")
    seed = r.integer("seed", 1, 0, 2**63 - 1)
    sets = r.integer("sets", 10, 1, 1_000_000)
    protocols = _names(r, "protocols", PROTOCOLS)
    runs = _names(r, "run", RUNS)
    cost_model = r.choice("cost_model", "zero", COST_MODELS)
    cpu_hz = None
    if r.has("cpu_hz"):
        cpu_hz = r.integer("cpu_hz", None, 1, 10**12)
        if cost_model != "measured":
            r.fail("cpu_hz", 'only with cost_model = "measured" (it converts instruction counts to time)')
    elif cost_model == "measured":
        r.fail("cost_model", '"measured" needs cpu_hz, the simulated CPU\'s clock rate')

    axis = _table(source, "[campaign.axis]", table.get("axis"), required=True)
    a = Reader(source, "[campaign.axis]", axis)
    a.check_keys(_AXIS_KEYS)
    if not a.has("parameter"):
        a.fail("parameter", _MISSING)
    parameter = a.choice("parameter", "", AXIS_KEYS)
    if parameter in generator:
        raise SpecError(
            source, f"[generator] {parameter}", "is the axis' parameter: its value comes from the axis points"
        )
    values = _points(a, parameter)
    params = []
    for i, value in enumerate(values):
        place = f"[campaign.axis] points[{i}] ({parameter} = {value})"
        params.append(parse_params(source, {**generator, parameter: value}, {parameter: place}))
    if cost_model == "measured":  # a model whose tick takes the whole tick period never progresses
        for p in params:
            problem = costs.stalls(costs.named(cost_model, cpu_hz, tick_hz=p.tick_hz), p.tick_hz)
            if problem is not None:
                r.fail("cpu_hz", f"{cpu_hz} Hz: {problem}")
    first = params[0]
    horizon = _horizon(r, first)
    if "simulation" in runs and horizon == "hyperperiod":
        _check_hyperperiod(r, first)
    return Campaign(
        source=source,
        text=text,
        title=title,
        seed=seed,
        sets=sets,
        protocols=protocols,
        runs=runs,
        horizon=horizon,
        cost_model=cost_model,
        cpu_hz=cpu_hz,
        parameter=parameter,
        points=tuple(float(v) for v in values),
        params=tuple(params),
    )


_MISSING = f"missing: name the generator parameter the axis varies ({', '.join(AXIS_KEYS)})"


def _table(source: str, where: str, value: object, *, required: bool) -> dict[str, object]:
    if value is None:
        if required:
            raise SpecError(source, where, "missing: a campaign needs this table")
        return {}
    if not isinstance(value, dict):
        raise SpecError(source, where, f"must be a table, got {describe_value(value)}")
    return value


def _names(r: Reader, key: str, allowed: tuple[_T, ...]) -> tuple[_T, ...]:
    """A list of distinct names from `allowed`, kept in `allowed`'s order."""
    value = r.table.get(key, list(allowed))
    if not isinstance(value, list) or not value:
        r.fail(key, f"must be a non-empty list of names ({', '.join(allowed)}), got {describe_value(value)}")
    for item in value:
        if not isinstance(item, str) or item not in allowed:
            shown = json.dumps(item) if isinstance(item, str) else describe_value(item)
            r.fail(key, f"unknown name {shown} (expected {', '.join(allowed)})")
    return tuple(name for name in allowed if name in value)


def _points(a: Reader, parameter: str) -> list[int | Decimal]:
    """The axis values: `points = [...]`, or `from`, `to` and `step` (or
    `count`), computed in exact decimals so that 0.1 steps land on 0.3."""
    integer = parameter in INTEGER_KEYS
    if a.has("points"):
        for key in ("from", "to", "step", "count"):
            if a.has(key):
                a.fail(key, "give either points or from/to with step or count, not both")
        value = a.table["points"]
        if not isinstance(value, list) or not value:
            a.fail("points", f"must be a non-empty list of values, got {describe_value(value)}")
        if len(value) > MAX_POINTS:
            a.fail("points", f"{len(value)} points, more than {MAX_POINTS}")
        points: list[int | Decimal] = []
        for i, item in enumerate(value):
            if isinstance(item, bool) or not isinstance(item, int | Decimal):
                raise SpecError(
                    a.source, f"[campaign.axis] points[{i}]", f"must be a number, got {describe_value(item)}"
                )
            points.append(item)
        return points
    if not (a.has("from") and a.has("to")):
        a.fail("points", "missing: give points = [...], or from and to with step or count")
    start, stop = _decimal(a, "from"), _decimal(a, "to")
    if stop < start:
        a.fail("to", f"is below from ({a.table['from']})")
    if a.has("step") == a.has("count"):
        a.fail("step", "give one of step and count")
    if a.has("step"):
        step = _decimal(a, "step")
        if step <= 0:
            a.fail("step", f"must be > 0, got {a.table['step']}")
        n = int((stop - start) / step) + 1
    else:
        n = a.integer("count", None, 1, MAX_POINTS)
        step = (stop - start) / (n - 1) if n > 1 else Decimal(0)
    if n > MAX_POINTS:
        a.fail("step", f"gives {n} points, more than {MAX_POINTS}")
    values = [start + k * step for k in range(n)]
    if integer:
        return [int(v) if v == v.to_integral_value() else v for v in values]
    return [v.normalize() if v != 0 else Decimal(0) for v in values]


def _decimal(a: Reader, key: str) -> Decimal:
    value = a.table[key]
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        a.fail(key, f"must be a number, got {describe_value(value)}")
    return Decimal(value)


def _horizon(r: Reader, params: Params) -> str | int:
    value = r.table.get("horizon", "hyperperiod")
    if isinstance(value, str):
        if value not in HORIZONS:
            r.fail("horizon", f'must be "hyperperiod", "busy-period" or a time, got {json.dumps(value)}')
        return value
    return r.time("horizon", value, params.tick_hz, params.time_unit)


def _check_hyperperiod(r: Reader, params: Params) -> None:
    """Log-uniform periods without a bound have hyperperiods far beyond any run."""
    if params.period_set is None and params.hyperperiod_max is None:
        r.fail(
            "horizon",
            '"hyperperiod" with log-uniform periods needs [generator] hyperperiod_max '
            '(or give horizon = "busy-period" or a time)',
        )

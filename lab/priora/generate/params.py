"""The generator's parameters: the `[generator]` table of a generator or
campaign specification, validated into `Params` (docs/campaigns.md,
"Generator parameters").

Every mistake gives one SpecError naming the file, the key and the value, in
the scenario loader's form. Times are read exactly (TOML floats as Decimal)
and held in ticks, as in the scenario model; ratios are floats.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Literal, NoReturn, TypeVar

from priora.errors import SpecError, describe_value
from priora.limits import MAX_RESOURCES, MAX_TASKS
from priora.record import record
from priora.scenario.loader import PERIOD_MAX, TICK_HZ_MAX
from priora.scenario.model import PRIORITY_MAX, PRIORITY_MIN, PROTOCOLS, TIME_UNITS, UNITS_PER_SECOND

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from priora.scenario.model import Protocol, TimeUnit

Method = Literal["uunifast-discard", "randfixedsum", "dirichlet-rescale"]
Deadlines = Literal["implicit", "constrained", "arbitrary"]
PriorityOrder = Literal["rm", "dm", "random", "given"]
Phases = Literal["synchronous", "random"]
Sharing = Literal["all", "random", "chain"]

METHODS: tuple[Method, ...] = ("uunifast-discard", "randfixedsum", "dirichlet-rescale")
DEADLINES: tuple[Deadlines, ...] = ("implicit", "constrained", "arbitrary")
PRIORITY_ORDERS: tuple[str, ...] = ("rm", "dm", "random")
PHASES: tuple[Phases, ...] = ("synchronous", "random")
SHARING: tuple[Sharing, ...] = ("all", "random", "chain")

# The divisors of 1000 from 10 up: any choice of them has a hyperperiod of at
# most 1000, so a generated file runs over its hyperperiod without a horizon.
DEFAULT_PERIODS = (10, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1000)
DEFAULT_DEADLINE_FACTOR: dict[Deadlines, tuple[float, float]] = {
    "implicit": (1.0, 1.0),
    "constrained": (0.0, 1.0),
    "arbitrary": (0.0, 2.0),
}

KEYS = (
    "tasks",
    "utilisation",
    "utilisation_method",
    "task_utilisation_min",
    "task_utilisation_max",
    "periods",
    "period_min",
    "period_max",
    "period_granularity",
    "hyperperiod_max",
    "deadlines",
    "deadline_factor",
    "priorities",
    "phases",
    "mutexes",
    "sections_per_job",
    "section_length",
    "nesting_depth",
    "sharing",
    "sharing_factor",
    "tick_hz",
    "time_unit",
    "protocol",
    "horizon",
)
# The keys a campaign's axis may vary: the numbers.
AXIS_KEYS = (
    "tasks",
    "utilisation",
    "task_utilisation_max",
    "period_max",
    "mutexes",
    "sections_per_job",
    "section_length",
    "nesting_depth",
    "sharing_factor",
)


@record(frozen=True)
class Params:
    """A validated generator specification. Times in ticks."""

    tasks: int
    utilisation: tuple[float, float]  # each set draws its total in [lo, hi]; lo == hi: fixed
    method: Method
    task_min: tuple[float, ...]  # per task, lower bound of u_i
    task_max: tuple[float, ...]  # per task, upper bound of u_i
    period_set: tuple[int, ...] | None  # periods drawn from this set, else log-uniform
    period_min: int
    period_max: int
    period_granularity: int
    hyperperiod_max: int | None
    deadlines: Deadlines
    deadline_factor: tuple[float, float]  # D = C + f (T - C), f uniform in the range
    priorities: PriorityOrder
    given_priorities: tuple[int, ...]  # priorities == "given"
    phases: Phases
    mutexes: int
    sections_per_job: tuple[int, int]
    section_length: tuple[float, float]  # fraction of C per outermost section
    nesting_depth: int
    sharing: Sharing
    sharing_factor: float
    tick_hz: int
    time_unit: TimeUnit
    protocol: Protocol
    horizon: int | None  # written to [system] horizon when given

    def ticks_in_unit(self, ticks: int) -> str:
        """A time in ticks as the exact decimal of the file's unit (tick_hz
        divides 10^9, so the decimal ends)."""
        if self.time_unit == "tick":
            return str(ticks)
        value = Fraction(ticks * UNITS_PER_SECOND[self.time_unit], self.tick_hz)
        text = format(Decimal(value.numerator) / Decimal(value.denominator), "f")
        return text.rstrip("0").rstrip(".") if "." in text else text


_T = TypeVar("_T", bound=str)


class Reader:
    """Reads the keys of one TOML table, each failure one SpecError naming the
    file, the key (or the place given for it) and the value."""

    def __init__(
        self, source: str, prefix: str, table: Mapping[str, object], places: Mapping[str, str] | None = None
    ) -> None:
        self.source = source
        self.prefix = prefix
        self.table = table
        self.places = dict(places or {})

    def where(self, key: str) -> str:
        return self.places.get(key, f"{self.prefix} {key}")

    def fail(self, key: str, reason: str) -> NoReturn:
        raise SpecError(self.source, self.where(key), reason)

    def check_keys(self, allowed: tuple[str, ...]) -> None:
        for key in self.table:
            if key not in allowed:
                raise SpecError(
                    self.source,
                    f"{self.prefix} {key}",
                    f"unknown key (expected one of: {', '.join(allowed)})",
                )

    def has(self, key: str) -> bool:
        return key in self.table

    def integer(self, key: str, default: int | None, least: int, most: int) -> int:
        value = self.table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"must be an integer, got {describe_value(value)}")
        if not least <= value <= most:
            self.fail(key, f"must be in {least}..{most}, got {value}")
        return value

    def number(
        self, key: str, default: float | None, least: float, most: float, *, above: bool = False
    ) -> float:
        """A number in [least, most] ((least, most] with `above`)."""
        return self._bounded(key, self.table.get(key, default), least, most, above)

    def _bounded(self, key: str, value: object, least: float, most: float, above: bool) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
            self.fail(key, f"must be a number, got {describe_value(value)}")
        number = float(value)
        if not math.isfinite(number):
            self.fail(key, f"must be a finite number, got {value}")
        low = number <= least if above else number < least
        if low or number > most:
            interval = f"({least:g}, {most:g}]" if above else f"[{least:g}, {most:g}]"
            self.fail(key, f"must be in {interval}, got {value}")
        return number

    def number_range(
        self, key: str, default: tuple[float, float], least: float, most: float, *, above: bool = False
    ) -> tuple[float, float]:
        """A number x (the range [x, x]) or a pair [lo, hi] with lo <= hi."""
        value = self.table.get(key, list(default))
        if isinstance(value, list):
            if len(value) != 2:
                self.fail(key, f"must be a number or a pair [low, high], got an array of {len(value)}")
            lo = self._bounded(key, value[0], least, most, above)
            hi = self._bounded(key, value[1], least, most, above)
            if lo > hi:
                self.fail(key, f"the low end {value[0]} is above the high end {value[1]}")
            return lo, hi
        x = self._bounded(key, value, least, most, above)
        return x, x

    def int_range(self, key: str, default: tuple[int, int], least: int, most: int) -> tuple[int, int]:
        value = self.table.get(key, list(default))
        items = value if isinstance(value, list) else [value, value]
        if len(items) != 2:
            self.fail(key, f"must be an integer or a pair [low, high], got an array of {len(items)}")
        pair = []
        for item in items:
            if isinstance(item, bool) or not isinstance(item, int):
                self.fail(key, f"must be an integer or a pair of integers, got {describe_value(item)}")
            if not least <= item <= most:
                self.fail(key, f"must be in {least}..{most}, got {item}")
            pair.append(item)
        if pair[0] > pair[1]:
            self.fail(key, f"the low end {pair[0]} is above the high end {pair[1]}")
        return pair[0], pair[1]

    def choice(self, key: str, default: str, choices: tuple[_T, ...]) -> _T:
        value = self.table.get(key, default)
        if not isinstance(value, str):
            self.fail(key, f"must be a string, got {describe_value(value)}")
        for choice in choices:
            if value == choice:
                return choice
        self.fail(key, f"unknown value {json.dumps(value)} (expected {_alternatives(choices)})")

    def time(self, key: str, value: object, tick_hz: int, unit: TimeUnit) -> int:
        """A time > 0 in the file's unit, in whole ticks."""
        if isinstance(value, bool) or not isinstance(value, int | Decimal | float):
            self.fail(key, f"must be a number, got {describe_value(value)}")
        exact = Fraction(Decimal(str(value)) if isinstance(value, float) else value)
        if exact <= 0:
            self.fail(key, f"must be > 0, got {value}")
        ticks = exact if unit == "tick" else exact * tick_hz / UNITS_PER_SECOND[unit]
        if ticks.denominator != 1:
            self.fail(key, f"{value} {unit} is not a whole number of ticks at tick_hz {tick_hz}")
        if ticks > PERIOD_MAX:
            self.fail(key, f"{value} {unit} is {ticks} ticks, beyond the kernel's {PERIOD_MAX}")
        return int(ticks)


def _alternatives(choices: tuple[str, ...]) -> str:
    quoted = [json.dumps(c) for c in choices]
    return ", ".join(quoted[:-1]) + " or " + quoted[-1] if len(quoted) > 1 else quoted[0]


def parse_params(source: str, table: Mapping[str, object], places: Mapping[str, str] | None = None) -> Params:
    """Validates a `[generator]` table. `places` names where a key's value
    came from when it is not the table (a campaign's axis point)."""
    r = Reader(source, "[generator]", table, places)
    r.check_keys(KEYS)
    tick_hz = r.integer("tick_hz", 10_000, 1, TICK_HZ_MAX)
    if 1_000_000_000 % tick_hz:
        r.fail("tick_hz", f"must divide 1000000000 so that a tick is a whole number of ns, got {tick_hz}")
    unit = r.choice("time_unit", "ms", TIME_UNITS)
    n = r.integer("tasks", 8, 1, MAX_TASKS)

    method = r.choice("utilisation_method", "uunifast-discard", METHODS)
    task_min = _bounds(r, "task_utilisation_min", 0.0, n, method)
    task_max = _bounds(r, "task_utilisation_max", 1.0, n, method)
    for i, (lo, hi) in enumerate(zip(task_min, task_max, strict=True)):
        if lo > hi:
            r.fail("task_utilisation_min", f"{lo:g} is above task_utilisation_max {hi:g} (task {i})")
    utilisation = r.number_range("utilisation", (0.7, 0.7), 0.0, float(n), above=True)
    if utilisation[1] > sum(task_max) + 1e-12:
        r.fail(
            "utilisation",
            f"{utilisation[1]:g} cannot be split over {n} tasks of at most "
            f"{_show_bounds(task_max)} each (at most {sum(task_max):g})",
        )
    if utilisation[0] < sum(task_min) - 1e-12:
        r.fail(
            "utilisation",
            f"{utilisation[0]:g} is below the {sum(task_min):g} that {n} tasks of at least "
            f"{_show_bounds(task_min)} each need",
        )

    period_set, period_min, period_max, granularity = _periods(r, tick_hz, unit)
    hyperperiod_max = None
    if r.has("hyperperiod_max"):
        hyperperiod_max = r.time("hyperperiod_max", r.table["hyperperiod_max"], tick_hz, unit)
        if hyperperiod_max < period_min:
            r.fail("hyperperiod_max", "is below the shortest period: no task set can have it")

    deadlines = r.choice("deadlines", "implicit", DEADLINES)
    most = 1.0 if deadlines == "constrained" else 1e6
    factor = r.number_range("deadline_factor", DEFAULT_DEADLINE_FACTOR[deadlines], 0.0, most)
    if deadlines == "implicit" and r.has("deadline_factor"):
        r.fail("deadline_factor", 'only with deadlines = "constrained" or "arbitrary"')

    priorities, given = _priorities(r, n)
    phases = r.choice("phases", "synchronous", PHASES)

    mutexes = r.integer("mutexes", 0, 0, MAX_RESOURCES)
    sections = r.int_range("sections_per_job", (1, 2), 0, 64)
    length = r.number_range("section_length", (0.05, 0.25), 0.0, 1.0, above=True)
    depth = r.integer("nesting_depth", 1, 1, MAX_RESOURCES)
    if depth > max(1, mutexes):
        r.fail("nesting_depth", f"{depth} needs at least {depth} mutexes, got mutexes = {mutexes}")
    sharing = r.choice("sharing", "all", SHARING)
    sharing_factor = r.number("sharing_factor", 0.5, 0.0, 1.0)
    if r.has("sharing_factor") and sharing != "random":
        r.fail("sharing_factor", 'only with sharing = "random"')

    protocol = r.choice("protocol", "pip", PROTOCOLS)
    horizon = r.time("horizon", r.table["horizon"], tick_hz, unit) if r.has("horizon") else None
    return Params(
        tasks=n,
        utilisation=utilisation,
        method=method,
        task_min=task_min,
        task_max=task_max,
        period_set=period_set,
        period_min=period_min,
        period_max=period_max,
        period_granularity=granularity,
        hyperperiod_max=hyperperiod_max,
        deadlines=deadlines,
        deadline_factor=factor,
        priorities=priorities,
        given_priorities=given,
        phases=phases,
        mutexes=mutexes,
        sections_per_job=sections,
        section_length=length,
        nesting_depth=depth,
        sharing=sharing,
        sharing_factor=sharing_factor,
        tick_hz=tick_hz,
        time_unit=unit,
        protocol=protocol,
        horizon=horizon,
    )


def _show_bounds(bounds: tuple[float, ...]) -> str:
    distinct = sorted(set(bounds))
    return f"{distinct[0]:g}" if len(distinct) == 1 else f"{distinct[0]:g}..{distinct[-1]:g}"


def _bounds(r: Reader, key: str, default: float, n: int, method: Method) -> tuple[float, ...]:
    """A bound on each task's utilisation: one number for all, or (Dirichlet-
    Rescale only, which takes a constraint per task) a list of n numbers."""
    value = r.table.get(key, default)
    if isinstance(value, list):
        if method != "dirichlet-rescale":
            r.fail(key, 'a list of bounds, one per task, needs utilisation_method = "dirichlet-rescale"')
        if len(value) != n:
            r.fail(key, f"must have one bound per task ({n}), got {len(value)}")
        return tuple(r._bounded(key, v, 0.0, 1.0, False) for v in value)
    return (r.number(key, default, 0.0, 1.0),) * n


def _periods(r: Reader, tick_hz: int, unit: TimeUnit) -> tuple[tuple[int, ...] | None, int, int, int]:
    """(the set, or None for log-uniform; min; max; granularity), in ticks."""
    value = r.table.get("periods", list(DEFAULT_PERIODS))
    if isinstance(value, list):
        if not value:
            r.fail("periods", "an empty set: give at least one period")
        for key in ("period_min", "period_max", "period_granularity"):
            if r.has(key):
                r.fail(key, 'only with periods = "log-uniform" (the periods are the set given)')
        ticks = tuple(sorted({r.time("periods", v, tick_hz, unit) for v in value}))
        return ticks, ticks[0], ticks[-1], 1
    if value != "log-uniform":
        r.fail("periods", f'must be "log-uniform" or a list of periods, got {describe_value(value)}')
    low = r.time("period_min", r.table.get("period_min", 10), tick_hz, unit)
    high = r.time("period_max", r.table.get("period_max", 1000), tick_hz, unit)
    if high < low:
        r.fail("period_max", f"is below period_min ({r.table.get('period_min', 10)})")
    granularity = r.time("period_granularity", r.table.get("period_granularity", 1), tick_hz, unit)
    for key, bound in (("period_min", low), ("period_max", high)):
        if bound % granularity:
            r.fail(key, "must be a multiple of period_granularity")
    return None, low, high, granularity


def _priorities(r: Reader, n: int) -> tuple[PriorityOrder, tuple[int, ...]]:
    value = r.table.get("priorities", "rm")
    if isinstance(value, list):
        if len(value) != n:
            r.fail("priorities", f"a list of given priorities needs one per task ({n}), got {len(value)}")
        given = []
        for item in value:
            if isinstance(item, bool) or not isinstance(item, int):
                r.fail("priorities", f"must be integers, got {describe_value(item)}")
            if not PRIORITY_MIN <= item <= PRIORITY_MAX:
                r.fail(
                    "priorities",
                    f"must be in {PRIORITY_MIN}..{PRIORITY_MAX} (the kernel's range), got {item}",
                )
            given.append(item)
        return "given", tuple(given)
    if not isinstance(value, str) or value not in PRIORITY_ORDERS:
        r.fail(
            "priorities",
            f'must be "rm", "dm", "random" or a list of priorities, got {describe_value(value)}',
        )
    order: PriorityOrder = "rm" if value == "rm" else "dm" if value == "dm" else "random"
    return order, ()

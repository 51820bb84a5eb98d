"""Scenario files: TOML text in, the validated model (priora.scenario.model.Scenario) out.

Every mistake a user can make in a file is caught here and reported as one
ScenarioError naming the file, where in it (table and field, or line) and the
reason. What comes out is what the kernel accepts: names, priorities and
semaphore attributes in its ranges, times in whole ticks, critical sections
balanced. So a later stage (simulate, analyze, a target run) never fails on a
user's mistake. The format is documented in docs/scenario-format.md.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping

from priora import inputs
from priora.errors import ScenarioError, describe_value
from priora.limits import MAX_EVENTS, MAX_QUEUES, MAX_RESOURCES, MAX_TASKS, MAX_TIMERS, NAME_MAX
from priora.record import record, replace
from priora.scenario.model import (
    DEFAULT_PRIORITY_MAX,
    NEEDS_PRIORITY_ORDER,
    NS_PER_SECOND,
    ORDERS,
    PRIORITY_MAX,
    PRIORITY_MIN,
    PROTOCOLS,
    RESOURCE_KINDS,
    TIME_UNITS,
    UNITS_PER_SECOND,
    Action,
    EventFlags,
    Periodic,
    Queue,
    Resource,
    Scenario,
    System,
    Task,
    top_level,
)

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from decimal import Decimal
    from fractions import Fraction
    from typing import NoReturn, TypeVar

    from priora.costs.model import CostModel
    from priora.scenario.model import ActionKind, Order, Protocol, ResourceKind, TimeUnit

    _T = TypeVar("_T", bound=str)

# ---- the kernel's limits (priora.limits), and the lab's own ----

MAX_INTERRUPTS = 32  # the lab's own limit: interrupt bodies run in the tick interrupt
QUEUE_LENGTH_MAX = 1024  # the lab's limit: a queue's buffer is allocated for every run
MASK_MAX = 2**32 - 1  # event flags are 32 bits
PERIOD_MAX = 2**32 - 1  # period and deadline: at most UINT32_MAX ticks (pr_task_create)
WAIT_MAX = 2**32 - 2  # timeouts and delays are pr_timeout_t; 0xFFFFFFFF is PR_FOREVER
VALUE_MAX = 2**31 - 1  # a semaphore's value and max are C ints
CLOCK_MAX_NS = 2**62  # the host port's clock: simulate runs "forever" up to this time
TICK_HZ_MAX = 1_000_000  # pr_kernel_init accepts tick_hz 1..1000000 (kernel/core/kernel.c)

DEFAULT_TICK_HZ = 1000

_NAME = re.compile(r"[A-Za-z0-9_-]+")
# A time in a body action, as TOML writes a decimal number (no "inf", no "_";
# ASCII digits only: \d and Decimal() also take other scripts' digits).
_NUMBER = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
# Where tomllib puts the position in its messages.
_AT_LINE = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_AT_END = re.compile(r"\s*\(at end of document\)$")

_TOP_KEYS = ("system", "resources", "tasks", "timers", "interrupts", "groups")
_SYSTEM_KEYS = (
    "tick_hz", "time_unit", "horizon", "protocol", "quantum", "cost_model", "cpu_hz",
    "timer_service_priority", "timeshare_levels", "timeshare_quantum", "timeshare_decay",
)  # fmt: skip
_RESOURCE_KEYS = (
    "kind", "protocol", "ceiling", "recovery", "initial", "max", "order", "length", "message_order", "inherit"
)  # fmt: skip
_TASK_KEYS = (
    "priority", "period", "phase", "deadline", "body", "min_interarrival", "arrivals", "early_release",
    "jitter", "bcet", "wcet", "distribution", "seed", "deadline_kind", "importance", "abort_time", "start",
    "offset", "class", "nice", "group",
)  # fmt: skip
# Privilege groups (privilege.h): 1 is the system group (every privilege);
# [groups.N] gives group N, 2 .. PRIV_GROUPS, its privileges.
PRIV_GROUPS = 8  # PR_CONFIG_PRIV_GROUPS
PRIVILEGES = {"rtprio": 1, "setprio": 2, "ceiling": 4, "groups": 8}  # PR_PRIV_*
_DEADLINE_KINDS = ("soft", "hard")
IMPORTANCE_MAX = 2**32 - 1  # pr_task_attr_t.importance is a uint32_t
_EARLY_RELEASES = ("refuse", "defer")
_DISTRIBUTIONS = ("uniform",)
SEED_MAX = 2**32 - 1  # the kernel's and the interpreter's xorshift32 seeds are uint32_t
ARRIVALS_MAX = 4096  # the lab's limit: arrivals of all sporadic tasks of a scenario
_CLASSES = ("realtime", "timeshare")
NICE_MIN, NICE_MAX = -20, 19  # timeshare.h
# The time-sharing band a file gets when it has time-sharing tasks and does
# not say: 8 levels, 0..7, below the real-time 8..31.
DEFAULT_TIMESHARE_LEVELS = 8
_TIMER_KEYS = ("phase", "period", "priority", "body")
_INTERRUPT_KEYS = ("phase", "period", "body")
_ACTIONS: tuple[ActionKind, ...] = (
    "compute", "lock", "unlock", "down", "up", "delay", "send", "receive", "set", "clear", "wait", "rtprio",
    "nice", "release",
)  # fmt: skip
_ACTIONS_TEXT = (
    "compute, lock, unlock, down, up, delay, send, receive, set, clear, wait, rtprio, nice or release"
)
# What a timer's or an interrupt's body may do: nothing that waits or computes.
_ONCE_ACTIONS: tuple[ActionKind, ...] = ("up", "send", "set", "clear", "release")
# Resource kinds that are not semaphores, and the keys they take.
_OBJECT_KINDS = ("queue", "events")
_QUEUE_KEYS = ("kind", "length", "message_order", "inherit")
_EVENTS_KEYS = ("kind",)
_QUEUE_ONLY_KEYS = ("length", "message_order", "inherit")

# Keys of [resources.NAME] that only some kinds take, with why the others don't.
_NOT_FOR_KIND: dict[tuple[str, ResourceKind], str] = {
    ("protocol", "counting"): "only mutexes have a locking protocol",
    ("protocol", "binary"): "only mutexes have a locking protocol",
    ("ceiling", "counting"): "only mutexes have a ceiling",
    ("ceiling", "binary"): "only mutexes have a ceiling",
    ("recovery", "counting"): "only an rcs mutex has a recovery",
    ("recovery", "binary"): "only an rcs mutex has a recovery",
    ("initial", "mutex"): "a mutex always starts free",
    ("max", "mutex"): "a mutex has no count",
    ("max", "binary"): 'its max is 1; use kind = "counting" for another max',
}
_KIND_NAME: dict[str, str] = {
    "mutex": "a mutex",
    "counting": "a counting semaphore",
    "binary": "a binary semaphore",
    "queue": "a message queue",
    "events": "event flags",
}

# Any object a body names: a semaphore, a queue or event flags.
_Object = Resource | Queue | EventFlags


# A number as read: its exact value, and its text for messages. A whole
# number is an int; any other a Fraction. The imports of fractions and
# decimal (with numbers) cost a tenth of the interpreter's start-up, and a
# file of whole numbers needs neither.
_Number = tuple["int | Fraction", str]


def _fraction(value: int | Decimal, denominator: int = 1) -> Fraction:
    from fractions import Fraction

    return Fraction(value) / denominator


# ---- reading the file ----


def load(path: str | os.PathLike[str], *, check_default_horizon: bool = True) -> Scenario:
    """Reads and validates the scenario file at `path` (named as given in messages).

    check_default_horizon=False is for a caller that gives the horizon itself
    (the --horizon option): a file without a horizon whose default one is
    beyond the host port's clock is then not refused for it."""
    source = os.fspath(path)
    return parse(read_text(path), source, check_default_horizon=check_default_horizon)


def read_text(path: str | os.PathLike[str]) -> str:
    """The UTF-8 text of the file at `path`; a ScenarioError (the file named
    as given) when it cannot be read, is not a regular file, is longer than
    inputs.MAX_FILE_BYTES or is not UTF-8."""
    source = os.fspath(path)
    try:
        data = inputs.read_bytes(path)
    except OSError as e:
        raise ScenarioError(source, "", f"cannot read the file: {e.strerror or e}") from e
    except inputs.InputError as e:  # not a regular file, or too long
        raise ScenarioError(source, "", e.reason) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ScenarioError(source, f"line {line}", "not UTF-8 text (TOML files are UTF-8)") from e


def decode_toml(text: str, source: str) -> dict[str, object]:
    """The TOML document in `text`, floats read exactly as Decimal; malformed
    TOML is one ScenarioError with its line. The generator and campaign
    specifications are read by it too."""
    return _decode(text, source)


def parse(text: str, source: str, *, check_default_horizon: bool = True) -> Scenario:
    """Validates the scenario in `text`; `source` names it in messages."""
    doc = _decode(text, source)
    _check_top_level(source, doc)
    system, clock = _system(_At(source, "[system]"), doc.get("system", {}))
    system = replace(system, groups=_groups(_At(source, "[groups]"), doc.get("groups", {})))
    resources, queues, events = _resources(
        _At(source, "[resources]"), doc.get("resources", {}), system, clock
    )
    objects: dict[str, _Object] = {r.name: r for r in resources}
    objects.update({q.name: q for q in queues})
    objects.update({e.name: e for e in events})
    tasks, system = _tasks(_At(source, "[tasks]"), doc.get("tasks", {}), objects, clock, system)
    timers = _periodics(_At(source, "[timers]"), "timers", doc.get("timers", {}), objects, clock)
    interrupts = _periodics(
        _At(source, "[interrupts]"), "interrupts", doc.get("interrupts", {}), objects, clock
    )
    if timers and len(tasks) + 1 > MAX_TASKS:
        _At(source, "[timers]").fail(
            f"{len(tasks)} tasks and the timer service task, the kernel has room for {MAX_TASKS}"
        )
    scenario = Scenario(
        source=source, system=system, resources=resources, tasks=tasks, queues=queues, events=events,
        timers=timers, interrupts=interrupts,
    )  # fmt: skip
    _check_ceilings(source, scenario)
    _check_releases(source, scenario)
    system_table = doc.get("system", {})
    if timers and not (isinstance(system_table, Mapping) and "timer_service_priority" in system_table):
        # By default the service runs at the top level: 31 while the file's
        # priorities fit the default 32 levels, else PRIORITY_MAX.
        given = [t.priority for t in tasks] + [r.ceiling for r in resources if r.ceiling is not None]
        service = top_level([*given, *(t.priority for t in timers)])
        scenario = replace(scenario, system=replace(system, timer_service_priority=service))
    periodic = any(t.period for t in tasks) or any(t.period for t in timers)
    sporadic = next((t for t in tasks if t.arrivals), None)
    if sporadic is not None and not periodic:
        # The arrivals are interrupts of the lab's (simulate.py): the same rule.
        _At(source, _label("tasks", sporadic.name)).field("arrivals").fail(
            "arrivals need a periodic task or a periodic timer in the scenario: a port ends a run when "
            "nothing is ready and no kernel timer is armed"
        )
    if interrupts and not periodic:
        # A port stops a run when nothing is ready and no kernel timer is
        # armed: the kernel cannot know that an interrupt is still to come.
        _At(source, "[interrupts]").fail(
            "a scenario with interrupts needs a periodic task or a periodic timer "
            "(a run stops when no kernel timer is armed: the kernel does not know an interrupt is to come)"
        )
    if system.horizon is None and check_default_horizon:
        _check_default_horizon(_At(source, "[system] horizon"), scenario, clock)
    return scenario


def parse_time(text: str, scenario: Scenario, where: str) -> int:
    """Ticks of the time `text`, written in the scenario's time unit as in a
    body action ("6", "0.5", "1e3"): > 0, a whole number of ticks, within the
    host port's clock, like [system] horizon. Raises the ScenarioError a file
    time would raise, at `where` (the --horizon option uses it)."""
    at = _At(scenario.source, where)
    clock = _Clock(scenario.system.tick_hz, scenario.system.time_unit)
    return _time(at, _text_number(at, text, ""), clock, positive=True, limit=clock.max_ticks())


def _check_top_level(source: str, doc: Mapping[str, object]) -> None:
    for key, value in doc.items():
        if key in _TOP_KEYS:
            continue
        expected = (
            "expected [system], [resources.NAME], [tasks.NAME], [timers.NAME], [interrupts.NAME]"
            " and [groups.N]"
        )
        if isinstance(value, dict):
            _At(source, f"[{_key(key)}]").fail(f"unknown table ({expected})")
        _At(source, _key(key)).fail(f"unknown top-level key ({expected})")


def _decode(text: str, source: str) -> dict[str, object]:
    # Floats are read as Decimal, exactly as written: 0.1 ms must be one tenth
    # of a ms (one tick at 10 kHz), which the binary float 0.1 is not.
    # toml_reader reads the TOML scenario files use, as tomllib would, without
    # tomllib's import (a fifth of the interpreter's start-up); every other
    # document, and every message about a malformed one, is tomllib's.
    from priora.scenario import toml_reader

    try:
        return toml_reader.loads(text)
    except toml_reader.Unsupported:
        pass
    import tomllib

    try:
        return tomllib.loads(text, parse_float=_exact_float)
    except tomllib.TOMLDecodeError as e:
        where, reason = _toml_position(str(e), text)
        raise ScenarioError(source, where, f"malformed TOML: {reason}") from e
    except _FloatOutOfRange as e:  # tomllib gives no position: the float's first line
        line = text[: text.find(e.written)].count("\n") + 1
        reason = f"malformed TOML: float {e.written}: its exponent is beyond what can be held"
        raise ScenarioError(source, f"line {line}", reason) from None
    except ValueError as e:  # an integer too long for Python's int(), from tomllib
        raise ScenarioError(source, "", f"malformed TOML: {e}") from e
    except RecursionError as e:  # arrays or inline tables nested thousands deep: no line known
        raise ScenarioError(source, "", "malformed TOML: nested too deeply") from e


class _FloatOutOfRange(ValueError):
    """A TOML float whose exponent Decimal cannot hold (1e99999999999999999999)."""

    def __init__(self, written: str) -> None:
        super().__init__(written)
        self.written = written


def _exact_float(written: str) -> Decimal:
    from decimal import Decimal

    try:
        return Decimal(written)
    except ArithmeticError:  # decimal.InvalidOperation: no traceback for a user's file
        raise _FloatOutOfRange(written) from None


def _toml_position(message: str, text: str) -> tuple[str, str]:
    """(where, reason) of a tomllib message: its position moves to the where part."""
    at = _AT_LINE.search(message)
    if at:
        return f"line {at[1]}", f"{message[: at.start()]} (column {at[2]})"
    end = _AT_END.search(message)
    if end:
        return f"line {max(1, len(text.splitlines()))}", f"{message[: end.start()]} (at the end of the file)"
    return "", message


# ---- where a value is, for messages ----


class _At:
    """A place in the file: raises the ScenarioError about it. A field's or
    an item's place is written out only when a message names it: a file has
    hundreds of places and most files none in error (a campaign reads a
    generated set at each step)."""

    __slots__ = ("source", "_where", "_parent", "_key", "_index")

    def __init__(self, source: str, where: str) -> None:
        self.source = source
        self._where: str | None = where
        self._parent: _At | None = None
        self._key: str | None = None
        self._index = 0

    @property
    def where(self) -> str:
        if self._where is None:
            assert self._parent is not None  # only a field or an item has no text yet
            above = self._parent.where
            self._where = f"{above} {_key(self._key)}" if self._key is not None else f"{above}[{self._index}]"
        return self._where

    def fail(self, reason: str) -> NoReturn:
        raise ScenarioError(self.source, self.where, reason)

    def field(self, key: str) -> _At:
        return self._below(key, 0)

    def item(self, index: int) -> _At:
        return self._below(None, index)

    def _below(self, key: str | None, index: int) -> _At:
        place = _At.__new__(_At)
        place.source, place._where, place._parent, place._key, place._index = (
            self.source,
            None,
            self,
            key,
            index,
        )
        return place


def _key(key: str) -> str:
    """A key as TOML would write it: bare when it can be, else quoted."""
    return key if _NAME.fullmatch(key) else json.dumps(key)


def _choices(choices: tuple[str, ...]) -> str:
    quoted = [json.dumps(c) for c in choices]
    if len(quoted) == 1:
        return quoted[0]
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]


# ---- typed values ----


def _table(at: _At, value: object) -> dict[str, object]:
    if not isinstance(value, dict):
        at.fail(f"must be a table, got {describe_value(value)}")
    return value


def _check_keys(at: _At, table: Mapping[str, object], allowed: tuple[str, ...]) -> None:
    for key in table:
        if key not in allowed:
            at.field(key).fail(f"unknown key (expected one of: {', '.join(allowed)})")


def _int(at: _At, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        at.fail(f"must be an integer, got {describe_value(value)}")
    return value


def _choice(at: _At, value: object, choices: tuple[_T, ...], what: str) -> _T:
    """One of `choices` (returned as the choice itself, so its Literal type holds)."""
    if not isinstance(value, str):
        at.fail(f"must be a string, got {describe_value(value)}")
    for choice in choices:
        if value == choice:
            return choice
    at.fail(f"unknown {what} {json.dumps(value)} (expected {_choices(choices)})")


def _toml_number(at: _At, value: object) -> _Number:
    if isinstance(value, int) and not isinstance(value, bool):
        return value, str(value)
    from decimal import Decimal  # a float (toml_reader made it one), or a mistake

    if isinstance(value, bool) or not isinstance(value, Decimal):
        at.fail(f"must be a number, got {describe_value(value)}")
    return _exact(at, value, str(value))


def _text_number(at: _At, text: str, what: str) -> _Number:
    """A time written inside an action string."""
    if not _NUMBER.fullmatch(text):
        at.fail(f"{what}must be a number, got {json.dumps(text)}")
    if len(text) <= 18 and text.lstrip("+-").isdigit():  # whole, and far inside _exact's range
        return int(text), text
    from decimal import Decimal

    return _exact(at, Decimal(text), text)


def _exact(at: _At, value: Decimal, shown: str) -> _Number:
    if not value.is_finite():
        at.fail(f"must be a finite number, got {shown.lower().replace('infinity', 'inf')}")
    # Fraction(1e999999) would build a million-digit integer: refuse first.
    if value and abs(value.adjusted()) > 40:
        at.fail(f"{shown} is out of range")
    return _fraction(value), shown


# ---- times ----


@record(frozen=True)
class _Clock:
    """The file's time unit against the kernel's tick."""

    tick_hz: int
    unit: TimeUnit

    def ticks(self, value: int | Fraction) -> int | Fraction:
        if self.unit == "tick":
            return value
        scaled, units = value * self.tick_hz, UNITS_PER_SECOND[self.unit]
        if not isinstance(scaled, int):
            return scaled / units
        return scaled // units if scaled % units == 0 else _fraction(scaled, units)

    def max_ticks(self) -> int:
        """Longest span the host port's clock can hold."""
        return CLOCK_MAX_NS // (NS_PER_SECOND // self.tick_hz)

    def show(self, shown: str, ticks: int | Fraction) -> str:
        """A time as written, with its ticks when the unit is not the tick."""
        if self.unit == "tick":
            return f"{shown} ticks"
        return f"{shown} {self.unit} ({ticks} ticks)"

    def not_whole(self, shown: str) -> str:
        if self.unit == "tick":
            return f'{shown} is not representable in ticks (time_unit is "tick": times are whole numbers)'
        tick = _decimal(_fraction(UNITS_PER_SECOND[self.unit], self.tick_hz))
        return (
            f"{shown} {self.unit} is not representable in ticks "
            f"(a tick is {tick} {self.unit} at tick_hz {self.tick_hz})"
        )


def _decimal(value: Fraction) -> str:
    """An exact decimal's text (the tick length: tick_hz divides 10^9, so it ends)."""
    from decimal import Decimal

    digits = Decimal(value.numerator) / Decimal(value.denominator)
    return format(digits.normalize(), "f")


def _time(at: _At, number: _Number, clock: _Clock, *, positive: bool, limit: int, what: str = "") -> int:
    """Ticks of a time in the file's unit. `what` prefixes the reason (in bodies)."""
    value, shown = number
    if value < 0 or (positive and value == 0):
        at.fail(f"{what}must be {'> 0' if positive else '>= 0'}, got {shown}")
    ticks = clock.ticks(value)
    if ticks.denominator != 1:
        at.fail(what + clock.not_whole(shown))
    if ticks > limit:
        at.fail(f"{what}{clock.show(shown, ticks)} exceeds the limit of {limit} ticks")
    return int(ticks)


# ---- [system] ----


def _system(at: _At, value: object) -> tuple[System, _Clock]:
    table = _table(at, value)
    _check_keys(at, table, _SYSTEM_KEYS)
    tick_hz = _tick_hz(at.field("tick_hz"), table.get("tick_hz", DEFAULT_TICK_HZ))
    unit = _choice(at.field("time_unit"), table.get("time_unit", "tick"), TIME_UNITS, "time unit")
    protocol = _choice(at.field("protocol"), table.get("protocol", "pip"), PROTOCOLS, "protocol")
    clock = _Clock(tick_hz, unit)
    horizon = None
    if "horizon" in table:
        number = _toml_number(at.field("horizon"), table["horizon"])
        horizon = _time(at.field("horizon"), number, clock, positive=True, limit=clock.max_ticks())
    quantum = 0
    if "quantum" in table:
        # 0 is the kernel's "no round robin"; any other value is a slice of
        # whole ticks, within the host port's clock like every time.
        number = _toml_number(at.field("quantum"), table["quantum"])
        quantum = _time(at.field("quantum"), number, clock, positive=False, limit=clock.max_ticks())
    cost_model = _cost_model(at, table, tick_hz)
    service = DEFAULT_PRIORITY_MAX  # or PRIORITY_MAX, once the tasks are read (load)
    if "timer_service_priority" in table:
        service = _priority(at.field("timer_service_priority"), table["timer_service_priority"])
    levels = -1  # not given: chosen from the tasks (_timeshare_band)
    if "timeshare_levels" in table:
        levels = _int(at.field("timeshare_levels"), table["timeshare_levels"])
        if not 0 <= levels <= PRIORITY_MAX:
            at.field("timeshare_levels").fail(
                f"must be in 0..{PRIORITY_MAX} (the kernel's levels below its highest), got {levels}"
            )
    band = []
    for key in ("timeshare_quantum", "timeshare_decay"):
        ticks = 0
        if key in table:
            number = _toml_number(at.field(key), table[key])
            ticks = _time(at.field(key), number, clock, positive=True, limit=PERIOD_MAX)
        band.append(ticks)
    system = System(tick_hz, unit, horizon, protocol, cost_model, quantum, service, levels, band[0], band[1])
    return system, clock


def _cost_model(at: _At, table: Mapping[str, object], tick_hz: int) -> CostModel | None:
    """[system] cost_model and cpu_hz (priora.costs.model validates the model,
    imported only for a file that has either)."""
    if "cpu_hz" not in table and "cost_model" not in table:
        return None
    from priora.costs import model as costs

    cpu_hz = None
    if "cpu_hz" in table:
        cpu_hz = _int(at.field("cpu_hz"), table["cpu_hz"])
        if cpu_hz <= 0:
            at.field("cpu_hz").fail(f"must be > 0, got {cpu_hz}")
    if "cost_model" not in table:
        if cpu_hz is not None:
            at.field("cpu_hz").fail(costs.CPU_HZ_ONLY)
        return None
    return costs.from_file(at.source, table["cost_model"], cpu_hz, tick_hz)


def _tick_hz(at: _At, value: object) -> int:
    hz = _int(at, value)
    if hz <= 0:
        at.fail(f"must be > 0, got {hz}")
    if hz > TICK_HZ_MAX:
        at.fail(f"must be at most {TICK_HZ_MAX} (the kernel's range is 1..{TICK_HZ_MAX}), got {hz}")
    # The host port counts ns: a tick must be a whole number of them.
    if NS_PER_SECOND % hz:
        at.fail(f"must divide {NS_PER_SECOND} so that a tick is a whole number of ns, got {hz}")
    return hz


# ---- names ----


def _label(table: str, name: str) -> str:
    return f"[{table}.{_key(name)}]"


def _check_name(at: _At, name: str) -> None:
    if not name:
        at.fail("the name is empty")
    if not _NAME.fullmatch(name):
        at.fail(f'the name {json.dumps(name)} may only have letters, digits, "_" and "-"')
    if len(name) > NAME_MAX:
        at.fail(f"the name is {len(name)} characters long, the kernel's limit is {NAME_MAX}")


# ---- [resources.NAME] ----


def _resources(
    at: _At, value: object, system: System, clock: _Clock
) -> tuple[tuple[Resource, ...], tuple[Queue, ...], tuple[EventFlags, ...]]:
    """The semaphores, the message queues and the event flags, each in file order."""
    table = _table(at, value)
    objects = [
        _resource(_At(at.source, _label("resources", name)), name, item, system, clock)
        for name, item in table.items()
    ]
    sems = tuple(o for o in objects if isinstance(o, Resource))
    queues = tuple(o for o in objects if isinstance(o, Queue))
    events = tuple(o for o in objects if isinstance(o, EventFlags))
    if len(sems) > MAX_RESOURCES:
        at.fail(f"{len(sems)} semaphores, the kernel has room for {MAX_RESOURCES}")
    if len(queues) > MAX_QUEUES:
        at.fail(f"{len(queues)} message queues, the kernel has room for {MAX_QUEUES}")
    if len(events) > MAX_EVENTS:
        at.fail(f"{len(events)} event flags objects, the kernel has room for {MAX_EVENTS}")
    return sems, queues, events


def _resource(at: _At, name: str, value: object, system: System, clock: _Clock) -> _Object:
    _check_name(at, name)
    table = _table(at, value)
    _check_keys(at, table, _RESOURCE_KEYS)
    kinds = (*RESOURCE_KINDS, *_OBJECT_KINDS)
    if "kind" not in table:
        at.field("kind").fail(f"missing (expected {_choices(kinds)})")
    any_kind = _choice(at.field("kind"), table["kind"], kinds, "kind")
    if any_kind == "queue":
        return _queue(at, name, table)
    if any_kind == "events":
        for key in table:
            if key not in _EVENTS_KEYS:
                at.field(key).fail("not allowed on event flags (they take no key but kind)")
        return EventFlags(name)
    kind = _choice(at.field("kind"), any_kind, RESOURCE_KINDS, "kind")
    for key in table:
        if key in _QUEUE_ONLY_KEYS:
            at.field(key).fail(f"not allowed on {_KIND_NAME[kind]} (only a message queue has {key})")
    _check_kind_keys(at, table, kind)
    order = _choice(at.field("order"), table.get("order", "priority"), ORDERS, "order")
    if kind == "mutex":
        return _mutex(at, name, table, order, system, clock)
    return _semaphore(at, name, table, kind, order)


def _queue(at: _At, name: str, table: Mapping[str, object]) -> Queue:
    for key in table:
        if key not in _QUEUE_KEYS:
            at.field(key).fail(f"not allowed on a message queue (expected one of: {', '.join(_QUEUE_KEYS)})")
    if "length" not in table:
        at.field("length").fail("missing: a queue holds 1 or more messages")
    length = _int(at.field("length"), table["length"])
    if not 1 <= length <= QUEUE_LENGTH_MAX:
        at.field("length").fail(
            f"must be in 1..{QUEUE_LENGTH_MAX} (the lab allocates every queue's buffer), got {length}"
        )
    order = _choice(
        at.field("message_order"), table.get("message_order", "priority"), ORDERS, "message order"
    )
    inherit = table.get("inherit", False)
    if not isinstance(inherit, bool):
        at.field("inherit").fail(f"must be true or false, got {describe_value(inherit)}")
    return Queue(name, length, order, inherit)


def _check_kind_keys(at: _At, table: Mapping[str, object], kind: ResourceKind) -> None:
    for key in table:
        why = _NOT_FOR_KIND.get((key, kind))
        if why is not None:
            at.field(key).fail(f"not allowed on {_KIND_NAME[kind]} ({why})")


# Why a protocol needs priority-ordered waiters (NEEDS_PRIORITY_ORDER).
_NEEDS_ORDER_WHY: dict[Protocol, str] = {
    "pip": "priority inheritance",
    "pcp": "the priority ceiling protocol",
    "ipcp": "the immediate ceiling protocol",
    "rcs": "a restartable section",
}


def _mutex(
    at: _At, name: str, table: Mapping[str, object], order: Order, system: System, clock: _Clock
) -> Resource:
    protocol: Protocol = system.protocol
    if "protocol" in table:
        protocol = _choice(at.field("protocol"), table["protocol"], PROTOCOLS, "protocol")
    origin = "" if "protocol" in table else " (from [system])"
    # The kernel's policies find the most urgent waiter in the priority queue.
    if protocol in NEEDS_PRIORITY_ORDER and order == "fifo":
        at.field("order").fail(
            f'"fifo" cannot go with protocol "{protocol}"{origin}: {_NEEDS_ORDER_WHY[protocol]} needs '
            'priority order; set protocol = "none" or "npcs", or drop order'
        )
    ceiling = _priority(at.field("ceiling"), table["ceiling"]) if "ceiling" in table else None
    recovery = 0
    if "recovery" in table:
        where = at.field("recovery")
        if protocol != "rcs":
            # Only rcs aborts a section, so only rcs has a state to restore.
            where.fail(
                f'only an rcs mutex has a recovery, its protocol is "{protocol}"{origin}: '
                'set protocol = "rcs", or drop recovery'
            )
        number = _toml_number(where, table["recovery"])
        recovery = _time(where, number, clock, positive=False, limit=clock.max_ticks())
    return Resource(
        name=name,
        kind="mutex",
        protocol=protocol,
        initial=1,
        max=None,
        order=order,
        ceiling=ceiling,
        recovery=recovery,
    )


def _semaphore(at: _At, name: str, table: Mapping[str, object], kind: ResourceKind, order: Order) -> Resource:
    initial = _count(at.field("initial"), table.get("initial", 0), 0)
    if kind == "binary":
        if initial > 1:
            at.field("initial").fail(f"must be 0 or 1 for a binary semaphore, got {initial}")
        limit: int | None = 1
    else:
        limit = None
        if "max" in table:
            limit = _count(at.field("max"), table["max"], 1)
            if limit < initial:
                at.field("max").fail(f"must be >= initial ({initial}), got {limit}")
    return Resource(name=name, kind=kind, protocol="none", initial=initial, max=limit, order=order)


def _count(at: _At, value: object, least: int) -> int:
    """A semaphore value: an integer in least..VALUE_MAX."""
    count = _int(at, value)
    if count < least:
        at.fail(f"must be >= {least}, got {count}")
    if count > VALUE_MAX:
        at.fail(f"must be at most {VALUE_MAX} (a C int), got {count}")
    return count


# ---- [tasks.NAME] ----


@record(frozen=True)
class _Draft:
    """A task read from its table; its priority may still be to assign."""

    at: _At
    name: str
    priority: int | None
    period: int | None
    phase: int
    deadline: int | None
    body: tuple[Action, ...]
    arrival: _Arrival
    timeshare: bool = False
    nice: int = 0
    group: int = 1


@record(frozen=True)
class _Arrival:
    """A task's arrival and execution-time keys (model.Task's fields of the same names)."""

    min_interarrival: int | None = None
    arrivals: tuple[int, ...] = ()
    defer_early: bool = False
    jitter: int = 0
    bcet: int | None = None
    seed: int = 0
    hard: bool = False
    importance: int = 0
    abort_time: int | None = None
    start: int = 0
    offset: int = 0


def _tasks(
    at: _At, value: object, objects: Mapping[str, _Object], clock: _Clock, system: System
) -> tuple[tuple[Task, ...], System]:
    table = _table(at, value)
    if not table:
        at.fail("no tasks: a scenario needs at least one [tasks.NAME] table")
    if len(table) > MAX_TASKS:
        at.fail(f"{len(table)} tasks, the kernel has room for {MAX_TASKS}")
    drafts = [_task(_At(at.source, _label("tasks", n)), n, v, objects, clock) for n, v in table.items()]
    system = _timeshare_band(at, drafts, system)
    _check_band_actions(drafts, system.timeshare_levels)
    realtime = [d for d in drafts if not d.timeshare]
    priorities = iter(_priorities(at, realtime, system.timeshare_levels) if realtime else [])
    top = system.timeshare_levels - 1  # a time-sharing task's level is at most this
    tasks = tuple(
        Task(d.name, top if d.timeshare else next(priorities), d.period, d.phase, d.deadline, d.body,
             d.timeshare, d.nice, group=d.group, **vars(d.arrival))
        for d in drafts
    )  # fmt: skip
    total = sum(len(t.arrivals) for t in tasks)
    if total > ARRIVALS_MAX:
        at.fail(f"{total} arrivals in all, the lab has room for {ARRIVALS_MAX}")
    return tasks, system


def _groups(at: _At, value: object) -> tuple[tuple[int, int], ...]:
    """[groups.N] privileges = [...]: (N, the privileges' bits), N in 2 ..
    PRIV_GROUPS, in file order (the system group, 1, holds every privilege)."""
    table = _table(at, value)
    out = []
    for key, item in table.items():
        where = _At(at.source, f"[groups.{_key(key)}]")
        if not key.isascii() or not key.isdigit() or not 2 <= int(key) <= PRIV_GROUPS:
            where.fail(
                f"a group is a number in 2..{PRIV_GROUPS} (1, the system group, holds every privilege)"
            )
        entry = _table(where, item)
        _check_keys(where, entry, ("privileges",))
        names = entry.get("privileges", [])
        if not isinstance(names, list):
            where.field("privileges").fail(
                f"must be an array of privilege names, got {describe_value(names)}"
            )
        bits = 0
        for i, name in enumerate(names):
            if name not in PRIVILEGES:
                where.field("privileges").item(i).fail(
                    f"unknown privilege {json.dumps(name)} (expected one of: {', '.join(PRIVILEGES)})"
                )
            bits |= PRIVILEGES[name]
        out.append((int(key), bits))
    return tuple(out)


def _timeshare_band(at: _At, drafts: list[_Draft], system: System) -> System:
    """The band's levels: as given, or DEFAULT_TIMESHARE_LEVELS when some task
    is time-sharing, else none; a time-sharing task needs a band."""
    shared = [d for d in drafts if d.timeshare]
    levels = system.timeshare_levels
    if levels < 0:
        levels = DEFAULT_TIMESHARE_LEVELS if shared else 0
    elif levels == 0 and shared:
        shared[0].at.field("class").fail(
            '"timeshare" needs a time-sharing band, and [system] timeshare_levels is 0'
        )
    return replace(system, timeshare_levels=levels)


def _task(at: _At, name: str, value: object, resources: Mapping[str, _Object], clock: _Clock) -> _Draft:
    _check_name(at, name)
    table = _table(at, value)
    if "quantum" in table:
        # A natural guess, but the kernel's slice (pr_kernel_config_t.quantum,
        # pr_sched_set_quantum) is one for the whole system.
        at.field("quantum").fail(
            "no per-task quantum: the kernel's round-robin quantum is system-wide; "
            "give it as [system] quantum"
        )
    _check_keys(at, table, _TASK_KEYS)
    kind = _choice(at.field("class"), table.get("class", "realtime"), _CLASSES, "class")
    timeshare = kind == "timeshare"
    nice = 0
    if "nice" in table:
        if not timeshare:
            at.field("nice").fail('only a time-sharing task has a nice value (class = "timeshare")')
        nice = _int(at.field("nice"), table["nice"])
        if not NICE_MIN <= nice <= NICE_MAX:
            at.field("nice").fail(f"must be in {NICE_MIN}..{NICE_MAX}, got {nice}")
    group = 1
    if "group" in table:
        group = _int(at.field("group"), table["group"])
        if not 1 <= group <= PRIV_GROUPS:
            at.field("group").fail(
                f"must be in 1..{PRIV_GROUPS} (1: the system group, every privilege), got {group}"
            )
    if timeshare and "priority" in table:
        at.field("priority").fail(
            "a time-sharing task has no priority of its own: "
            "the kernel sets its level from its CPU usage and nice"
        )
    priority = _priority(at.field("priority"), table["priority"]) if "priority" in table else None
    period = _optional_time(at.field("period"), table.get("period"), clock, PERIOD_MAX)
    phase_number = _toml_number(at.field("phase"), table.get("phase", 0))
    phase = _time(at.field("phase"), phase_number, clock, positive=False, limit=clock.max_ticks())
    deadline = _optional_time(at.field("deadline"), table.get("deadline"), clock, PERIOD_MAX)
    body = _body(at.field("body"), table.get("body"), resources, clock)
    arrival = _arrival(at, table, clock, period, deadline, body)
    gap = period if arrival.min_interarrival is None else arrival.min_interarrival
    # The first arrival: the start time plus the phase, its offset ([Tokuda-Nakajima 1993], section 2.1).
    phase += arrival.start
    if phase > clock.max_ticks():
        at.field("start").fail(
            f"start + phase ({phase} ticks) exceeds the limit of {clock.max_ticks()} ticks"
        )
    return _Draft(
        at,
        name,
        priority,
        period,
        phase,
        gap if deadline is None else deadline,
        body,
        arrival,
        timeshare,
        nice,
        group,
    )


def _arrival(
    at: _At,
    table: Mapping[str, object],
    clock: _Clock,
    period: int | None,
    deadline: int | None,
    body: tuple[Action, ...],
) -> _Arrival:
    """The sporadic, jitter and execution-time keys, with the kernel's rules
    (pr_task_create: docs/api.md) checked here so that each gets its line."""
    mit = _optional_time(at.field("min_interarrival"), table.get("min_interarrival"), clock, PERIOD_MAX)
    if mit is not None and period is not None:
        at.field("min_interarrival").fail(
            "not with period: a task is periodic (period) or sporadic (min_interarrival), not both"
        )
    if mit is not None and "phase" in table:
        at.field("phase").fail("not for a sporadic task: its jobs arrive at its arrivals")
    for key in ("arrivals", "early_release"):
        if key in table and mit is None:
            at.field(key).fail("only for a sporadic task: give min_interarrival too")
    if mit is not None and deadline is not None and deadline > mit:
        at.field("deadline").fail(
            f"must be at most min_interarrival ({mit} ticks) for a sporadic task, got {deadline} ticks"
        )
    arrivals = _arrivals(at.field("arrivals"), table.get("arrivals", []), clock)
    early = _choice(
        at.field("early_release"), table.get("early_release", "refuse"), _EARLY_RELEASES, "early_release"
    )
    jitter = offset = 0
    gap = period if mit is None else mit
    limit_deadline = deadline if deadline is not None else gap
    for key in ("offset", "jitter"):  # the release, offset + jitter after the arrival, comes before both
        if key not in table:
            continue
        ticks = _time(at.field(key), _toml_number(at.field(key), table[key]), clock,
                      positive=False, limit=PERIOD_MAX)  # fmt: skip
        offset, jitter = (ticks, jitter) if key == "offset" else (offset, ticks)
        alone = key == "offset" or offset == 0
        what = f"{ticks} ticks" if alone else f"offset + jitter ({offset + ticks} ticks)"
        if gap is not None and offset + jitter >= gap:
            gap_name = "period" if mit is None else "min_interarrival"
            at.field(key).fail(f"{what} must be below the {gap_name} ({gap} ticks)")
        if limit_deadline is not None and offset + jitter >= limit_deadline:
            at.field(key).fail(f"{what} must be below the deadline ({limit_deadline} ticks)")
    wcet = sum(a.ticks for a in body if a.kind == "compute")
    if "wcet" in table:
        given = _time(at.field("wcet"), _toml_number(at.field("wcet"), table["wcet"]), clock,
                      positive=True, limit=clock.max_ticks())  # fmt: skip
        if given != wcet:
            at.field("wcet").fail(
                f"{given} ticks differs from the body's compute total {wcet} ticks (the worst case)"
            )
    bcet = None
    if "bcet" in table:
        bcet = _time(at.field("bcet"), _toml_number(at.field("bcet"), table["bcet"]), clock,
                     positive=False, limit=clock.max_ticks())  # fmt: skip
        if bcet > wcet:
            at.field("bcet").fail(
                f"{bcet} ticks exceeds the body's compute total {wcet} ticks (the worst case)"
            )
    if "distribution" in table:
        _choice(at.field("distribution"), table["distribution"], _DISTRIBUTIONS, "distribution")
        if bcet is None:
            at.field("distribution").fail("needs bcet: the execution times are drawn from bcet to the wcet")
    seed = 0
    if "seed" in table:
        seed = _int(at.field("seed"), table["seed"])
        if not 0 <= seed <= SEED_MAX:
            at.field("seed").fail(f"must be in 0..{SEED_MAX} (a 32-bit seed), got {seed}")
    hard = _choice(
        at.field("deadline_kind"), table.get("deadline_kind", "soft"), _DEADLINE_KINDS, "deadline_kind"
    )
    importance = 0
    if "importance" in table:
        importance = _int(at.field("importance"), table["importance"])
        if not 0 <= importance <= IMPORTANCE_MAX:
            at.field("importance").fail(f"must be in 0..{IMPORTANCE_MAX}, got {importance}")
    abort_time = _optional_time(at.field("abort_time"), table.get("abort_time"), clock, PERIOD_MAX)
    if abort_time is not None:
        gap = period if mit is None else mit
        if hard == "hard":
            at.field("abort_time").fail("not for a hard task: its deadline aborts its job")
        if gap is not None and abort_time > gap:
            what = "period" if mit is None else "min_interarrival"
            at.field("abort_time").fail(f"{abort_time} ticks exceeds the {what} ({gap} ticks)")
    if hard == "hard" and deadline is None and period is None and mit is None:
        at.field("deadline_kind").fail("a hard task needs a deadline (or a period)")
    start = 0
    if "start" in table:
        if mit is not None:
            at.field("start").fail("not for a sporadic task: its jobs arrive at its arrivals")
        start = _time(at.field("start"), _toml_number(at.field("start"), table["start"]), clock,
                      positive=False, limit=clock.max_ticks())  # fmt: skip
    return _Arrival(
        mit, arrivals, early == "defer", jitter, bcet, seed, hard == "hard", importance, abort_time, start,
        offset,
    )  # fmt: skip


def _arrivals(at: _At, value: object, clock: _Clock) -> tuple[int, ...]:
    """Ticks at which a sporadic task's jobs are asked for, in order."""
    if not isinstance(value, list):
        at.fail(f"must be an array of times, got {describe_value(value)}")
    ticks: list[int] = []
    for i, item in enumerate(value):
        t = _time(at.item(i), _toml_number(at.item(i), item), clock, positive=False, limit=clock.max_ticks())
        if ticks and t < ticks[-1]:
            at.item(i).fail(f"{t} ticks comes before the arrival before it ({ticks[-1]} ticks)")
        ticks.append(t)
    return tuple(ticks)


def _periodics(
    at: _At, table_name: str, value: object, objects: Mapping[str, _Object], clock: _Clock
) -> tuple[Periodic, ...]:
    """[timers.NAME] or [interrupts.NAME]: bodies run at phase, phase +
    period, ... that never wait."""
    table = _table(at, value)
    limit = MAX_TIMERS if table_name == "timers" else MAX_INTERRUPTS
    what = "timers" if table_name == "timers" else "interrupts"
    if len(table) > limit:
        at.fail(f"{len(table)} {what}, the {'kernel' if what == 'timers' else 'lab'} has room for {limit}")
    return tuple(
        _periodic(_At(at.source, _label(table_name, n)), table_name, n, v, objects, clock)
        for n, v in table.items()
    )


def _periodic(
    at: _At, table_name: str, name: str, value: object, objects: Mapping[str, _Object], clock: _Clock
) -> Periodic:
    _check_name(at, name)
    table = _table(at, value)
    is_timer = table_name == "timers"
    _check_keys(at, table, _TIMER_KEYS if is_timer else _INTERRUPT_KEYS)
    period = 0
    if "period" in table:
        number = _toml_number(at.field("period"), table["period"])
        period = _time(at.field("period"), number, clock, positive=False, limit=PERIOD_MAX)
    if "phase" in table:
        number = _toml_number(at.field("phase"), table["phase"])
        where = at.field("phase")
        phase = _time(where, number, clock, positive=False, limit=clock.max_ticks())
        if phase == 0:
            where.fail("must be > 0, got 0 (tick 0 has no tick interrupt: the first is at tick 1)")
    elif period:
        phase = period
    else:
        at.field("phase").fail("missing: a body that runs once (period 0) needs the tick it runs at")
    priority = _priority(at.field("priority"), table["priority"]) if "priority" in table else 0
    runs_in = (
        "a timer's body runs in the timer service task"
        if is_timer
        else "an interrupt's body runs in the tick interrupt"
    )
    body = _body(at.field("body"), table.get("body"), objects, clock, once=runs_in)
    return Periodic(name, phase, period, priority, body)


def _check_releases(source: str, scenario: Scenario) -> None:
    """Each "release T" of a task's, a timer's or an interrupt's body names a
    sporadic task of the file (pr_task_release: an external event makes its
    job arrive, refused or deferred when it comes too early)."""
    sporadic = {t.name for t in scenario.tasks if t.sporadic}
    names = {t.name for t in scenario.tasks}
    bodies = [("tasks", t.name, t.body) for t in scenario.tasks]
    bodies += [("timers", p.name, p.body) for p in scenario.timers]
    bodies += [("interrupts", p.name, p.body) for p in scenario.interrupts]
    for table, name, body in bodies:
        for i, a in enumerate(body):
            if a.kind != "release" or a.resource in sporadic:
                continue
            where = _At(source, _label(table, name)).field("body").item(i)
            if a.resource not in names:
                where.fail(f"release {a.resource}: no task {a.resource} in the file")
            where.fail(f"release {a.resource}: not a sporadic task (give it min_interarrival)")


def _check_ceilings(source: str, scenario: Scenario) -> None:
    """A ceiling given in the file covers every task that locks the mutex:
    the kernel refuses a lock by a task whose base priority is above the
    ceiling (PR_ECEILING, pcp and ipcp), so the file is refused first, under
    any protocol (--protocol may choose pcp or ipcp later). The most urgent
    such task is named (ties: the first in the file)."""
    for r in scenario.resources:
        if r.ceiling is None:
            continue
        above = [t for t in scenario.lockers(r.name) if t.priority > r.ceiling]
        if above:
            task = max(above, key=lambda t: t.priority)
            _At(source, _label("resources", r.name)).field("ceiling").fail(
                f"{r.ceiling} is below the priority {task.priority} of task {task.name}, which locks "
                f"{r.name}: the kernel would refuse {task.name}'s lock with PR_ECEILING; give at least "
                f"{task.priority}, or no ceiling to have it computed"
            )


def _check_default_horizon(at: _At, scenario: Scenario, clock: _Clock) -> None:
    """Without a horizon the run lasts the hyperperiod plus the largest phase
    (Scenario.default_horizon), which must fit the host port's clock too."""
    horizon = scenario.default_horizon()
    if horizon is not None and horizon > clock.max_ticks():
        phase = max(t.phase for t in scenario.tasks)
        at.fail(
            f"the default horizon (the hyperperiod {horizon - phase} ticks plus the largest phase {phase}) "
            f"exceeds the limit of {clock.max_ticks()} ticks: give a horizon"
        )


def _optional_time(at: _At, value: object, clock: _Clock, limit: int) -> int | None:
    """A time that must be > 0 when given (period, deadline); None when absent."""
    if value is None:  # TOML has no null: None means the key is absent
        return None
    return _time(at, _toml_number(at, value), clock, positive=True, limit=limit)


def _priority(at: _At, value: object) -> int:
    priority = _int(at, value)
    if not PRIORITY_MIN <= priority <= PRIORITY_MAX:
        at.fail(f"must be in {PRIORITY_MIN}..{PRIORITY_MAX} (the kernel's range), got {priority}")
    return priority


def _priorities(at: _At, drafts: list[_Draft], band: int) -> list[int]:
    """Each real-time task's priority: as given on every one, or
    rate-monotonic when none has one; above the time-sharing band's `band`
    levels."""
    given = [d for d in drafts if d.priority is not None]
    for d in given:
        if d.priority is not None and d.priority < band:
            d.at.field("priority").fail(
                f"{d.priority} is in the time-sharing band (levels 0..{band - 1}: "
                f"[system] timeshare_levels = {band}); a real-time priority is {band}..{PRIORITY_MAX}"
            )
    if not given:
        return _rate_monotonic(at, drafts, band)
    missing = [d for d in drafts if d.priority is None]
    if missing:
        missing[0].at.field("priority").fail(
            f"missing, while {given[0].at.where} has one: give every task a priority, "
            "or none for rate-monotonic order"
        )
    return [d.priority for d in drafts if d.priority is not None]  # all of them, as none is missing


def _rate_monotonic(at: _At, drafts: list[_Draft], band: int) -> list[int]:
    """Shorter period = more urgent: the shortest gets the top level (31, the
    default build's, while 32 levels are enough, else PRIORITY_MAX), each
    longer distinct period one level lower; equal periods share a level; all
    above the time-sharing band's `band` levels. A sporadic task's period is
    its minimum interarrival time."""
    periods: list[int] = []
    for d in drafts:
        period = d.period if d.period is not None else d.arrival.min_interarrival
        if period is None:
            d.at.field("period").fail(
                "missing: rate-monotonic order needs a period on every task (or give every task a priority)"
            )
        periods.append(period)
    levels = sorted(set(periods))
    lowest = max(PRIORITY_MIN, band)  # above the time-sharing band
    if len(levels) > PRIORITY_MAX - lowest + 1:
        at.fail(
            f"rate-monotonic order needs {len(levels)} priority levels (one per distinct period), "
            f"the kernel has {PRIORITY_MAX - lowest + 1} real-time levels"
        )
    top = DEFAULT_PRIORITY_MAX if len(levels) <= DEFAULT_PRIORITY_MAX - lowest + 1 else PRIORITY_MAX
    level = {period: top - rank for rank, period in enumerate(levels)}
    return [level[p] for p in periods]


# ---- bodies ----


def _body(
    at: _At, value: object, resources: Mapping[str, _Object], clock: _Clock, once: str | None = None
) -> tuple[Action, ...]:
    """A body's actions. `once` (a timer's or an interrupt's body) says where
    it runs: it may only up, send, set, clear and release, never waiting."""
    if value is None:
        at.fail("missing: a task needs a body, a list of actions")
    if not isinstance(value, list):
        at.fail(f"must be an array of action strings, got {describe_value(value)}")
    if not value:
        at.fail("empty: a task needs at least one action")
    actions = tuple(_action(at.item(i), item, resources, clock) for i, item in enumerate(value))
    if once is not None:
        for i, action in enumerate(actions):
            if action.kind not in _ONCE_ACTIONS:
                at.item(i).fail(
                    f"{action.kind}: {once} and never waits (expected up, send, set, clear or release)"
                )
            if action.timeout is not None:
                at.item(i).fail(f"timeout: {once} and never waits (its calls take timeout 0)")
    _check_sections(at, actions)
    return actions


def _action(at: _At, item: object, resources: Mapping[str, _Object], clock: _Clock) -> Action:
    if not isinstance(item, str):
        at.fail(f"must be a string, got {describe_value(item)}")
    words = item.split()
    if not words:
        at.fail(f"empty action (expected {_ACTIONS_TEXT})")
    kind = _pick(words[0], _ACTIONS)
    if kind is None:
        at.fail(f"unknown action {json.dumps(item)} (expected {_ACTIONS_TEXT})")
    if kind in ("compute", "delay"):
        return _timed_action(at, item, kind, words[1:], clock)
    if kind in ("send", "receive"):
        return _queue_action(at, item, kind, words[1:], resources, clock)
    if kind in ("set", "clear", "wait"):
        return _events_action(at, item, kind, words[1:], resources, clock)
    if kind in ("rtprio", "nice"):
        return _band_action(at, item, kind, words[1:])
    if kind == "release":  # its task is checked once every task is known (_check_releases)
        if len(words) != 2:
            _malformed(at, item, kind)
        return Action("release", resource=words[1])
    return _resource_action(at, item, kind, words[1:], resources, clock)


def _band_action(at: _At, item: str, kind: ActionKind, args: list[str]) -> Action:
    """ "rtprio N" / "rtprio off" and "nice N": the task moves itself between
    the bands, or sets its nice value (pr_task_rtprio, pr_task_set_nice); the
    band's bounds are checked once it is known (_check_band_actions)."""
    if len(args) != 1:
        _malformed(at, item, kind)
    if kind == "rtprio" and args[0] == "off":
        return Action("rtprio")
    if not re.fullmatch(r"-?[0-9]+", args[0]):
        _malformed(at, item, kind)
    value = int(args[0])
    if kind == "nice":
        if not NICE_MIN <= value <= NICE_MAX:
            at.fail(f"nice {value}: must be in {NICE_MIN}..{NICE_MAX}")
        return Action("nice", nice=value)
    if not PRIORITY_MIN <= value <= PRIORITY_MAX:
        at.fail(f"rtprio {value}: must be in {PRIORITY_MIN}..{PRIORITY_MAX} (the kernel's range), or off")
    return Action("rtprio", priority=value)


def _check_band_actions(drafts: list[_Draft], band: int) -> None:
    """A body's "rtprio N" names a real-time priority, above the band; its
    "rtprio off" needs a band to go to."""
    for d in drafts:
        for i, a in enumerate(d.body):
            if a.kind != "rtprio":
                continue
            where = d.at.field("body").item(i)
            if a.priority is None and band == 0:
                where.fail("rtprio off: there is no time-sharing band ([system] timeshare_levels is 0)")
            if a.priority is not None and a.priority < band:
                where.fail(
                    f"rtprio {a.priority}: in the time-sharing band (levels 0..{band - 1}); "
                    f"a real-time priority is {band}..{PRIORITY_MAX}"
                )


def _pick(word: str, choices: tuple[_T, ...]) -> _T | None:
    for choice in choices:
        if word == choice:
            return choice
    return None


def _malformed(at: _At, item: str, kind: ActionKind) -> NoReturn:
    shapes = {
        "compute": '"compute T"',
        "delay": '"delay T"',
        "lock": '"lock R" or "lock R timeout T"',
        "down": '"down R" or "down R timeout T"',
        "unlock": '"unlock R"',
        "up": '"up R"',
        "send": '"send Q", "send Q priority N", "send Q timeout T" or "send Q priority N timeout T"',
        "receive": '"receive Q" or "receive Q timeout T"',
        "set": '"set E MASK"',
        "clear": '"clear E MASK"',
        "wait": '"wait E MASK any|all [clear] [timeout T]"',
        "rtprio": '"rtprio N" or "rtprio off"',
        "nice": '"nice N"',
        "release": '"release T", T a sporadic task',
    }
    at.fail(f"malformed action {json.dumps(item)} (expected {shapes[kind]})")


def _timed_action(at: _At, item: str, kind: ActionKind, args: list[str], clock: _Clock) -> Action:
    if len(args) != 1:
        _malformed(at, item, kind)
    what = f"{kind} time "
    number = _text_number(at, args[0], what)
    if kind == "compute":
        ticks = _time(at, number, clock, positive=True, limit=clock.max_ticks(), what=what)
    else:  # a delay of 0 is a yield
        ticks = _time(at, number, clock, positive=False, limit=WAIT_MAX, what=what)
    return Action(kind, ticks=ticks)


def _timeout(at: _At, text: str, clock: _Clock) -> int:
    # timeout 0 is the kernel's PR_NO_WAIT: fail at once rather than wait.
    number = _text_number(at, text, "timeout ")
    return _time(at, number, clock, positive=False, limit=WAIT_MAX, what="timeout ")


def _object(at: _At, kind: ActionKind, name: str, objects: Mapping[str, _Object], wanted: str) -> None:
    """The object `name` exists and is of kind `wanted` ("queue" or "events")."""
    found = objects.get(name)
    if found is None:
        at.fail(f"unknown resource {json.dumps(name)}")
    is_kind = (
        "queue" if isinstance(found, Queue) else "events" if isinstance(found, EventFlags) else found.kind
    )
    if is_kind != wanted:
        at.fail(f"{kind} needs {_KIND_NAME[wanted]}, {json.dumps(name)} is {_KIND_NAME[is_kind]}")


def _queue_action(
    at: _At, item: str, kind: ActionKind, args: list[str], objects: Mapping[str, _Object], clock: _Clock
) -> Action:
    """send Q [priority N] [timeout T]; receive Q [timeout T]."""
    if not args:
        _malformed(at, item, kind)
    rest = args[1:]
    priority = None
    if kind == "send" and len(rest) >= 2 and rest[0] == "priority":
        if not re.fullmatch(r"[+-]?\d+", rest[1]):
            at.fail(f"priority must be an integer, got {json.dumps(rest[1])}")
        priority = int(rest[1])
        if not PRIORITY_MIN <= priority <= PRIORITY_MAX:
            at.fail(
                f"priority must be in {PRIORITY_MIN}..{PRIORITY_MAX} (the kernel's range), got {priority}"
            )
        rest = rest[2:]
    timeout = None
    if len(rest) == 2 and rest[0] == "timeout":
        timeout = _timeout(at, rest[1], clock)
        rest = []
    if rest:
        _malformed(at, item, kind)
    _object(at, kind, args[0], objects, "queue")
    return Action(kind, resource=args[0], timeout=timeout, priority=priority)


def _mask(at: _At, text: str) -> int:
    """MASK: 0x... or a decimal, 1 .. 2^32-1."""
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", text):
        mask = int(text, 16)
    elif re.fullmatch(r"\d+", text):
        mask = int(text)
    else:
        at.fail(f"mask must be a number (0x... or decimal), got {json.dumps(text)}")
    if not 1 <= mask <= MASK_MAX:
        at.fail(f"mask must be in 1..0xffffffff (32 flags), got {text}")
    return mask


def _events_action(
    at: _At, item: str, kind: ActionKind, args: list[str], objects: Mapping[str, _Object], clock: _Clock
) -> Action:
    """set E MASK; clear E MASK; wait E MASK any|all [clear] [timeout T]."""
    if len(args) < 2 or (kind != "wait" and len(args) != 2):
        _malformed(at, item, kind)
    rest = args[2:]
    wait_all = clear = False
    timeout = None
    if kind == "wait":
        if not rest or rest[0] not in ("any", "all"):
            _malformed(at, item, kind)
        wait_all = rest[0] == "all"
        rest = rest[1:]
        if rest and rest[0] == "clear":
            clear = True
            rest = rest[1:]
        if len(rest) == 2 and rest[0] == "timeout":
            timeout = _timeout(at, rest[1], clock)
            rest = []
        if rest:
            _malformed(at, item, kind)
    mask = _mask(at, args[1])
    _object(at, kind, args[0], objects, "events")
    return Action(kind, resource=args[0], timeout=timeout, mask=mask, wait_all=wait_all, clear=clear)


def _resource_action(
    at: _At, item: str, kind: ActionKind, args: list[str], resources: Mapping[str, _Object], clock: _Clock
) -> Action:
    waits = kind in ("lock", "down")
    if len(args) == 3 and waits and args[1] == "timeout":
        # timeout 0 is the kernel's PR_NO_WAIT: fail at once rather than block.
        number = _text_number(at, args[2], "timeout ")
        timeout: int | None = _time(at, number, clock, positive=False, limit=WAIT_MAX, what="timeout ")
    elif len(args) == 1:
        timeout = None  # wait forever
    else:
        _malformed(at, item, kind)
    _check_resource_kind(at, kind, args[0], resources)
    return Action(kind, resource=args[0], timeout=timeout)


def _check_resource_kind(at: _At, kind: ActionKind, name: str, resources: Mapping[str, _Object]) -> None:
    resource = resources.get(name)
    if resource is None:
        at.fail(f"unknown resource {json.dumps(name)}")
    if not isinstance(resource, Resource):
        other = "queue" if isinstance(resource, Queue) else "events"
        use = "send/receive" if other == "queue" else "set/clear/wait"
        at.fail(f"{kind} needs a semaphore, {json.dumps(name)} is {_KIND_NAME[other]} (use {use})")
    is_mutex = resource.kind == "mutex"
    if kind in ("lock", "unlock") and not is_mutex:
        at.fail(f"{kind} needs a mutex, {json.dumps(name)} is {_KIND_NAME[resource.kind]} (use down/up)")
    if kind in ("down", "up") and is_mutex:
        at.fail(
            f"{kind} needs a counting or binary semaphore, {json.dumps(name)} is a mutex (use lock/unlock)"
        )


def _check_sections(at: _At, actions: tuple[Action, ...]) -> None:
    """Every lock closed by a later unlock of the same mutex, none nested on
    itself: what the kernel's pr_script_check demands, said in the file's terms.
    Sections may cross (lock A, lock B, unlock A, unlock B): the interpreter
    skips them consistently when a lock fails (kernel/scenario/interp.c)."""
    held: dict[str, int] = {}  # mutex -> index of the lock that took it
    for i, action in enumerate(actions):
        name = action.resource
        if name is None:
            continue
        if action.kind == "lock":
            if name in held:
                at.item(i).fail(f"lock {json.dumps(name)}: already held (locked at body[{held[name]}])")
            held[name] = i
        elif action.kind == "unlock":
            if name not in held:
                at.item(i).fail(f"unlock {json.dumps(name)}: not held at this point of the body")
            del held[name]
    for name, i in held.items():
        at.fail(f"ends holding {json.dumps(name)} (locked at body[{i}], never unlocked after)")

"""The cost model of a simulation: what the kernel's own work costs in
virtual time on the host port (docs/cost-model.md).

By default the host port's kernel calls take no time ("zero"). A cost model
charges, in ns:

- at every context switch (`switch_ns`), and on top of it when the task
  switched out is still ready, a preemption or a yield (`preempt_ns`);
- at every tick interrupt (`tick_ns`);
- per semaphore operation, by the semaphore's kind and, for a mutex, its
  protocol: taken at once, failed without waiting, blocked, given back with
  nobody woken, given back waking a waiter;
- per kernel event: a job released, a job ended, a priority changed, an rcs
  abort, a timeout, a delay begun and ended.

An rcs mutex's recovery is not a kernel cost: it is the scenario's own
(`recovery`), computed by the aborted holder (docs/cost-model.md).

The host port charges each cost at the trace record of the operation, inside
the kernel call (ports/host/clock.c, pr_port_traced), so a simulation shows
the overheads as a real kernel has them. Three named models:

    zero      nothing (the default)
    rtmach93  Real-Time Mach on a 25 MHz MC68030 (Tables 1 and 2 of
              [Tokuda-Nakajima 1993])
    measured  Priora's own instruction counts on QEMU (benchmarks/riscv,
              scripts/bench.sh) at the file's cpu_hz, one instruction a cycle

and a table of ns per operation that adjusts one of them (`base`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from fractions import Fraction
from functools import cache

from priora.errors import ScenarioError, describe_value
from priora.record import field, fields, record, replace
from priora.scenario.model import PROTOCOLS, Resource

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from typing import Any

NAMES = ("zero", "rtmach93", "measured")
BUILDS = ("rv32-trace-on", "rv32-trace-off", "rv64-trace-on", "rv64-trace-off")
DEFAULT_BUILD = "rv32-trace-on"
NS_PER_SECOND = 1_000_000_000
CPU_HZ_ONLY = 'only with the cost model "measured" (it converts instruction counts to time)'
NEEDS_CPU_HZ = '"measured" needs the clock rate of the CPU: give [system] cpu_hz'


@record(frozen=True)
class SemCosts:
    """ns per operation on one semaphore (the host port's PR_HOST_OP_*, in
    that order)."""

    take: int = 0  # taken at once (a unit, a free mutex, an rcs take-over)
    take_failed: int = 0  # a down that did not wait and got nothing (no-wait)
    block: int = 0  # the caller waits
    give: int = 0  # an up that woke nobody
    give_wake: int = 0  # an up that woke a waiter (handed it the mutex)


OPS = tuple(f.name for f in fields(SemCosts))

# Per-event costs: key in a table -> the trace event charged.
EVENTS: dict[str, str] = {
    "release": "RELEASE",
    "job_end": "JOB_DONE",
    "priority_change": "PRIO",
    "abort": "ABORT",
    "timeout": "TIMEOUT",
    "delay": "DELAY",
    "delay_end": "DELAY_END",
}

# Table keys of the semaphore operations: (mutex word, semaphore word) per op.
_OP_KEYS: dict[str, tuple[str, str]] = {
    "take": ("lock", "down"),
    "take_failed": ("lock_failed", "down_failed"),
    "block": ("lock_blocked", "down_blocked"),
    "give": ("unlock", "up"),
    "give_wake": ("unlock_wake", "up_wake"),
}
MUTEX_KEYS = tuple(f"{m}_ns" for m, _ in _OP_KEYS.values())
SEMAPHORE_KEYS = tuple(f"{s}_ns" for _, s in _OP_KEYS.values())
GLOBAL_KEYS = ("switch_ns", "preempt_ns", "tick_ns", *(f"{e}_ns" for e in EVENTS))
TABLE_KEYS = ("base", "build", *GLOBAL_KEYS, *MUTEX_KEYS, *SEMAPHORE_KEYS, *PROTOCOLS)


@record(frozen=True)
class CostModel:
    """Every cost in ns. `name` says where they come from, for reports."""

    name: str
    switch: int = 0
    preempt: int = 0
    tick: int = 0
    events: Mapping[str, int] = field(default_factory=dict)  # EVENTS keys
    mutex: Mapping[str, SemCosts] = field(default_factory=dict)  # per protocol; missing = 0
    semaphore: SemCosts = SemCosts()  # counting and binary

    def is_zero(self) -> bool:
        return (
            self.switch == self.preempt == self.tick == 0
            and not any(self.events.values())
            and all(c == SemCosts() for c in (*self.mutex.values(), self.semaphore))
        )

    def sem_costs(self, resource: Resource) -> SemCosts:
        if resource.kind == "mutex":
            return self.mutex.get(resource.protocol, SemCosts())
        return self.semaphore


ZERO = CostModel("zero")


# ---------------------------------------------------------------- rtmach93


def _us(value: int | float) -> int:
    return round(value * 1000)


# [Tokuda-Nakajima 1993], Table 1 (us).
C_WAKEUP = 72
C_SCHED_CALL = 72
C_BLOCK_REINCAR = 672
C_BLOCK = 84
C_CHOOSE = 40
C_DISPATCH = 48
C_CLOCKINT = 108
# Table 2's note 5, and section 4.2.
C_ACTIVATE = 108
C_ABORT = 816
# Section 4.2: C_restart^rcs = C_abort + C_recover, where C_recover, restoring
# the shared state, depends on the application: the paper gives no figure. It
# is a mutex's `recovery` in the scenario, which the aborted holder computes
# at the requester's priority after the abort and before the requester
# enters (pr_script_recover), where the paper puts it; this model adds no
# kernel cost to it.
# Table 2 (us): lock acquired, lock not acquired (+ C_block), unlock (no waiter, waking one).
_TABLE2: dict[str, tuple[int, int | None, int, int]] = {
    "none": (120, 208, 144, 144 + C_ACTIVATE),  # BP: unlock 144 + C_activate x n, n = 1 woken
    "npcs": (132, None, 156, 180),  # KM: not acquired N.A. (no one can preempt); unlock 156/180
    "pip": (196, 340, 192, 192),  # BPI
    "pcp": (232, 508, 256, 256),  # PCP
    "rcs": (256, 628, 196, 196),  # RCS
}


def _rtmach_mutex(protocol: str) -> SemCosts:
    lock, not_acquired, unlock, unlock_wake = _TABLE2[protocol]
    if not_acquired is None:  # KM cannot block; if it ever does (a holder that suspends), BP's
        not_acquired = _TABLE2["none"][1]
        assert not_acquired is not None
    return SemCosts(
        take=_us(lock),
        take_failed=_us(not_acquired),
        block=_us(not_acquired + C_BLOCK),
        give=_us(unlock),
        give_wake=_us(unlock_wake),
    )


# The paper does not give Real-Time Mach's clock rate: a 10 ms clock is
# assumed, so its interrupt (C_clockint) costs 108 us every 10 ms, whatever
# the simulation's own tick (docs/cost-model.md, "The clock").
RTMACH_CLOCK_HZ = 100


def rtmach93(tick_hz: int = RTMACH_CLOCK_HZ) -> CostModel:
    """Real-Time Mach's costs [Tokuda-Nakajima 1993], mapped onto Priora's
    operations (docs/cost-model.md), for a simulation whose tick is tick_hz:
    the clock interrupt's cost is spread over its ticks at RT-Mach's assumed
    rate."""
    mutex = {p: _rtmach_mutex(p) for p in _TABLE2}
    mutex["ipcp"] = mutex["pcp"]  # no figure: the ceiling protocol's
    return CostModel(
        "rtmach93",
        switch=_us(C_CHOOSE + C_DISPATCH),
        preempt=_us(C_SCHED_CALL + C_BLOCK),
        tick=round(Fraction(C_CLOCKINT * 1000 * RTMACH_CLOCK_HZ, tick_hz)),
        events={
            "release": _us(C_WAKEUP),
            "job_end": _us(C_BLOCK_REINCAR),
            "priority_change": 0,
            "abort": _us(C_ABORT),
            "timeout": _us(C_WAKEUP),
            "delay": _us(C_BLOCK),
            "delay_end": _us(C_WAKEUP),
        },
        mutex=mutex,
        semaphore=_rtmach_mutex("none"),  # no figure: BP's, the mechanism without a policy
    )


# ---------------------------------------------------------------- measured


@cache
def measured_figures() -> dict[str, Any]:
    """The instruction counts shipped with the package (measured_costs.json,
    from scripts/bench.sh --json)."""
    from importlib import resources  # only here: its import costs start-up

    text = resources.files("priora").joinpath("measured_costs.json").read_text()
    doc: dict[str, Any] = json.loads(text)
    return doc


def _instructions(build: str, doc: Mapping[str, Any] | None = None) -> dict[str, Fraction]:
    """Instructions per Priora operation on one build (docs/cost-model.md,
    "measured"), from `doc` (measured_costs.json's layout; default: the
    shipped one)."""
    source = doc if doc is not None else measured_figures()
    figures = {k: Fraction(str(v)) for k, v in source["builds"][build].items()}
    switch = figures["yield_switch"] - figures["yield_alone"]  # the switch without the yield call
    return {
        "switch": switch,
        "tick": figures["tick"],
        "release": max(Fraction(0), figures["irq_tick"] - figures["tick"] - switch),
        "lock": figures["mutex_down"],
        "unlock": figures["mutex_up"],
        "lock_failed": figures["trydown_fail"],
        "pip_block": figures["pi_split_a"] - switch,
        "pip_wake": figures["pi_split_b"] - switch,
        "none_path": figures["nopi_path"] - 2 * switch,  # block + wake, protocol none
        "down": figures["counting_pair"] / 2,
        "counting_round": figures["pingpong_round"] - 2 * switch,  # 2 blocking downs, 2 waking ups
    }


def measured(cpu_hz: int, build: str = DEFAULT_BUILD, doc: Mapping[str, Any] | None = None) -> CostModel:
    """Priora's instruction counts at cpu_hz, one instruction a cycle (from
    `doc`, measured_costs.json's layout; default: the shipped figures)."""
    n = _instructions(build, doc)

    def ns(instructions: Fraction) -> int:
        return round(instructions * NS_PER_SECOND / cpu_hz)

    # none's block and wake: the measured path split as pip's is.
    pip_path = n["pip_block"] + n["pip_wake"]
    none_block = n["none_path"] * n["pip_block"] / pip_path if pip_path else Fraction(0)
    pip = SemCosts(
        take=ns(n["lock"]),
        take_failed=ns(n["lock_failed"]),
        block=ns(n["pip_block"]),
        give=ns(n["unlock"]),
        give_wake=ns(n["pip_wake"]),
    )
    none = replace(pip, block=ns(none_block), give_wake=ns(n["none_path"] - none_block))
    counting = SemCosts(
        take=ns(n["down"]),
        take_failed=ns(n["lock_failed"]),
        block=ns(n["counting_round"] / 4),
        give=ns(n["down"]),
        give_wake=ns(n["counting_round"] / 4),
    )
    mutex = {"none": none, "pip": pip, "pcp": pip, "ipcp": pip, "npcs": none, "rcs": pip}
    return CostModel(
        f"measured ({build}, {cpu_hz} Hz)",
        switch=ns(n["switch"]),
        tick=ns(n["tick"]),
        events={"release": ns(n["release"])},
        mutex=mutex,
        semaphore=counting,
    )


def measured_from_bench(bench: Mapping[str, Any]) -> dict[str, Any]:
    """The figures measured_costs.json keeps, from bench.py's --json document
    ({"provenance": ..., "builds": {"rv32 trace on": {"figures": {name: {key:
    value}}}, ...}}; bench.schema.json), or from one of schema 1, the builds
    alone."""
    builds: dict[str, dict[str, float]] = {}
    for label, results in (bench["builds"] if "provenance" in bench else bench).items():
        arch, _, trace = label.split()  # "rv32 trace on"
        figures = results["figures"]
        builds[f"{arch}-trace-{trace}"] = {
            name: float(figures[bench_name][key]) for name, (bench_name, key) in BENCH_FIGURES.items()
        }
    return {"source": "scripts/bench.sh --json (benchmarks/riscv/bench.py)", "builds": builds}


# measured_costs.json's figures: name -> (benchmark, key) in bench.py's --json document.
BENCH_FIGURES = {
    "yield_switch": ("yield_switch", "per_op"),
    "yield_alone": ("yield_alone", "per_op"),
    "tick": ("tick", "per_op"),
    "irq_tick": ("irq_tick", "per_op"),
    "mutex_down": ("mutex_down", "per_op"),
    "mutex_up": ("mutex_up", "per_op"),
    "trydown_fail": ("trydown_fail", "per_op"),
    "pi_split_a": ("pi_split", "a"),
    "pi_split_b": ("pi_split", "b"),
    "nopi_path": ("nopi_path", "per_op"),
    "counting_pair": ("counting_pair", "per_op"),
    "pingpong_round": ("pingpong_round", "per_op"),
    "prodcons_test1": ("prodcons_test1", "per_pair"),
    "prodcons_test2": ("prodcons_test2", "per_pair"),
    "prodcons_test3": ("prodcons_test3", "per_pair"),
    "prodcons_test4": ("prodcons_test4", "per_pair"),
}


# ---------------------------------------------------------------- from a file


def named(name: str, cpu_hz: int | None, build: str = DEFAULT_BUILD, tick_hz: int = 1000) -> CostModel:
    """A named model for a simulation ticking at tick_hz; "measured" needs
    cpu_hz (checked by the caller)."""
    if name != "measured" and cpu_hz is not None:
        raise ValueError(CPU_HZ_ONLY)
    if name == "rtmach93":
        return rtmach93(tick_hz)
    if name == "measured":
        assert cpu_hz is not None
        return measured(cpu_hz, build)
    return ZERO


def stalls(model: CostModel, tick_hz: int) -> str | None:
    """Why `model` cannot make progress at tick_hz, or None. The host port
    charges the tick's cost after each tick: at the tick period or more, the
    next tick is due as soon as one ends, and nothing else ever runs."""
    period = NS_PER_SECOND // tick_hz  # tick_hz divides 10^9 (the scenario loader checks)
    if model.tick < period:
        return None
    return (
        f"the tick costs {model.tick} ns, not less than the tick period ({period} ns at tick_hz {tick_hz}): "
        "the tick interrupt would take all the time and nothing else would ever run"
    )


def from_file(source: str, value: object, cpu_hz: int | None, tick_hz: int) -> CostModel:
    """The [system] cost_model of a scenario file: a name, or a table of ns
    per operation over a `base` model. ScenarioError names the key, also
    when the model cannot make progress (`stalls`)."""
    where = "[system] cost_model"
    if isinstance(value, str):
        name = _name(source, where, value)
        _check_cpu_hz(source, name, cpu_hz, where)
        model = named(name, cpu_hz, tick_hz=tick_hz)
        blame = "[system] cpu_hz" if name == "measured" else where
    elif isinstance(value, dict):
        model = _table(source, value, cpu_hz, tick_hz)
        blame = "[system.cost_model] tick_ns" if "tick_ns" in value else "[system] cpu_hz"
    else:
        raise ScenarioError(source, where, f"must be a name or a table, got {describe_value(value)}")
    problem = stalls(model, tick_hz)
    if problem is not None:
        raise ScenarioError(source, blame, problem)
    return model


def _check_cpu_hz(source: str, name: str, cpu_hz: int | None, where: str) -> None:
    if name == "measured" and cpu_hz is None:
        raise ScenarioError(source, where, NEEDS_CPU_HZ)
    if name != "measured" and cpu_hz is not None:
        raise ScenarioError(source, "[system] cpu_hz", CPU_HZ_ONLY)


def _name(source: str, where: str, value: object) -> str:
    if not isinstance(value, str):
        raise ScenarioError(source, where, f"must be a string, got {describe_value(value)}")
    if value not in NAMES:
        raise ScenarioError(
            source, where, f'unknown cost model "{value}" (expected "zero", "rtmach93" or "measured")'
        )
    return value


def _ns(source: str, where: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(source, where, f"must be an integer number of ns, got {describe_value(value)}")
    if value < 0:
        raise ScenarioError(source, where, f"must be >= 0, got {value}")
    if value >= 2**40:  # about 18 minutes: far beyond any kernel operation
        raise ScenarioError(source, where, f"must be below 2^40 ns, got {value}")
    return value


def _table(source: str, table: Mapping[str, object], cpu_hz: int | None, tick_hz: int) -> CostModel:
    where = "[system.cost_model]"
    for key in table:
        if key not in TABLE_KEYS:
            raise ScenarioError(
                source,
                f"{where} {key}",
                "unknown key (expected base, build, *_ns keys or a protocol table: see docs/cost-model.md)",
            )
    name = _name(source, f"{where} base", table.get("base", "zero"))
    build = DEFAULT_BUILD
    if "build" in table:
        value = table["build"]
        if name != "measured":
            raise ScenarioError(source, f"{where} build", 'only with base = "measured"')
        if not isinstance(value, str) or value not in BUILDS:
            shown = json.dumps(value) if isinstance(value, str) else describe_value(value)
            raise ScenarioError(
                source, f"{where} build", f"unknown build {shown} (expected {', '.join(BUILDS)})"
            )
        build = value
    _check_cpu_hz(source, name, cpu_hz, f"{where} base")
    model = named(name, cpu_hz, build, tick_hz)
    got = {k: _ns(source, f"{where} {k}", v) for k, v in table.items() if k.endswith("_ns")}
    events = dict(model.events)
    for event in EVENTS:
        if f"{event}_ns" in got:
            events[event] = got[f"{event}_ns"]
    mutex_all = _ops(got, 0)
    mutex: dict[str, SemCosts] = {p: _merge(model.mutex.get(p, SemCosts()), mutex_all) for p in PROTOCOLS}
    for p in PROTOCOLS:
        if p in table:
            sub = table[p]
            if not isinstance(sub, dict):
                raise ScenarioError(source, f"{where} {p}", f"must be a table, got {describe_value(sub)}")
            for key in sub:
                if key not in MUTEX_KEYS:
                    raise ScenarioError(
                        source,
                        f"[system.cost_model.{p}] {key}",
                        f"unknown key (expected {', '.join(MUTEX_KEYS)})",
                    )
            own = {k: _ns(source, f"[system.cost_model.{p}] {k}", v) for k, v in sub.items()}
            mutex[p] = _merge(mutex[p], _ops(own, 0))
    return CostModel(
        "table" if name == "zero" else f"{model.name} adjusted",
        switch=got.get("switch_ns", model.switch),
        preempt=got.get("preempt_ns", model.preempt),
        tick=got.get("tick_ns", model.tick),
        events=events,
        mutex=mutex,
        semaphore=_merge(model.semaphore, _ops(got, 1)),
    )


def _ops(got: Mapping[str, int], which: int) -> dict[str, int]:
    """The semaphore operations among `got`: which 0 = the mutex keys, 1 = the semaphore keys."""
    return {op: got[f"{words[which]}_ns"] for op, words in _OP_KEYS.items() if f"{words[which]}_ns" in got}


def _merge(costs: SemCosts, changes: Mapping[str, int]) -> SemCosts:
    return replace(costs, **changes) if changes else costs


# ---------------------------------------------------------------- on the host port


def apply(lib: Any, resources_: tuple[Resource, ...], model: CostModel) -> None:
    """Sets `model` on the host port (after pr_host_init): resource i is
    semaphore i."""
    from priora.run import native

    ffi = native.ffi
    lib.pr_host_set_costs(ffi.new("pr_host_costs_t *", {"switch_ns": model.switch, "tick_ns": model.tick}))
    lib.pr_host_set_preempt_cost(model.preempt)
    for event, ns in model.events.items():
        if ns:
            lib.pr_host_set_event_cost(native.EVENT[EVENTS[event]], ns)
    for i, r in enumerate(resources_):
        costs = model.sem_costs(r)
        for op, name in enumerate(OPS):
            ns = getattr(costs, name)
            if ns:
                lib.pr_host_set_sem_cost(i, op, ns)


# ---------------------------------------------------------------- text


def describe(model: CostModel) -> list[str]:
    """The model as lines of "what: ns", for docs and reports."""
    lines = [
        f"switch {model.switch}",
        f"preempt {model.preempt}",
        f"tick {model.tick}",
        *(f"{e} {model.events.get(e, 0)}" for e in EVENTS),
    ]
    for p in PROTOCOLS:
        c = model.mutex.get(p, SemCosts())
        lines.append(f"mutex {p}: " + " ".join(f"{op} {getattr(c, op)}" for op in OPS))
    c = model.semaphore
    lines.append("semaphore: " + " ".join(f"{op} {getattr(c, op)}" for op in OPS))
    return lines


# python -m priora.costs.model build/bench.json [COMMIT] > lab/priora/measured_costs.json
if __name__ == "__main__":
    import sys

    with open(sys.argv[1]) as f:
        shipped = measured_from_bench(json.load(f))
    if len(sys.argv) > 2:
        shipped["source"] += f", commit {sys.argv[2]}"
    print(json.dumps(shipped, indent=1))

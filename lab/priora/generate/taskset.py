"""One random task set from the generator's parameters and a seed, written as
a scenario file (docs/scenario-format.md).

The draws come in a fixed order from one `random.Random(seed)`: the total
utilisation, the utilisations, the periods, the deadlines, the priorities,
the phases, then the critical sections. So a seed gives the same file, byte
for byte, on any machine with the same Python.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from fractions import Fraction

from priora.generate.params import Params
from priora.generate.utilisation import GenerateError, fixed_sum, uunifast_discard
from priora.record import record
from priora.scenario.model import DEFAULT_PRIORITY_MAX, PRIORITY_MAX

# Draws of a period vector whose hyperperiod is beyond hyperperiod_max before
# the generator gives up.
HYPERPERIOD_TRIES = 1000


def derive_seed(seed: int, *path: int) -> int:
    """The seed of one set of a series (priora generate's i-th file, a
    campaign's set j at point i): a hash, so that neighbouring series do not
    share draws, and the same on every platform."""
    text = ":".join(str(x) for x in (seed, *path))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


@record(frozen=True)
class GeneratedTask:
    name: str
    utilisation: float  # as drawn
    period: int  # ticks
    wcet: int  # ticks
    deadline: int  # ticks
    priority: int
    phase: int  # ticks
    body: tuple[str, ...]  # actions, times in ticks ("compute 12")


@record(frozen=True)
class TaskSet:
    """A generated set: what the file says, and what was asked of it."""

    seed: int
    params: Params
    target: float  # the total utilisation drawn for this set
    tasks: tuple[GeneratedTask, ...]
    mutexes: tuple[str, ...]

    @property
    def utilisation(self) -> Fraction:
        """What the set has: sum of C / T after rounding C to whole ticks."""
        return sum((Fraction(t.wcet, t.period) for t in self.tasks), Fraction(0))

    @property
    def hyperperiod(self) -> int:
        return math.lcm(*(t.period for t in self.tasks))

    def toml(self) -> str:
        return to_toml(self)


def generate(params: Params, seed: int) -> TaskSet:
    """The task set of `seed` under `params`. Raises GenerateError when the
    draws cannot meet the bounds (UUniFast-Discard, hyperperiod_max)."""
    rng = random.Random(seed)
    n = params.tasks
    lo, hi = params.utilisation
    target = lo if lo == hi else rng.uniform(lo, hi)
    if params.method == "uunifast-discard":
        shares = uunifast_discard(rng, n, target, params.task_min, params.task_max)
    else:
        shares = fixed_sum(rng, n, target, params.task_min, params.task_max)
    periods = _periods(rng, params)
    wcets = [min(period, max(1, round(u * period))) for u, period in zip(shares, periods, strict=True)]
    deadlines = [_deadline(rng, params, c, t) for c, t in zip(wcets, periods, strict=True)]
    priorities = _priorities(rng, params, periods, deadlines)
    phases = [rng.randrange(t) if params.phases == "random" else 0 for t in periods]
    mutexes = tuple(f"M{i}" for i in range(params.mutexes))
    usable = _sharing(rng, params)
    tasks = tuple(
        GeneratedTask(
            name=f"T{i}",
            utilisation=shares[i],
            period=periods[i],
            wcet=wcets[i],
            deadline=deadlines[i],
            priority=priorities[i],
            phase=phases[i],
            body=_body(rng, params, wcets[i], usable[i]),
        )
        for i in range(n)
    )
    return TaskSet(seed, params, target, tasks, mutexes)


def _periods(rng: random.Random, params: Params) -> list[int]:
    """From the set, or log-uniform over [min, max] in steps of the
    granularity [Emberson-Stafford-Davis 2010]; drawn again while the
    hyperperiod is beyond hyperperiod_max."""
    for _ in range(HYPERPERIOD_TRIES):
        if params.period_set is not None:
            periods = [rng.choice(params.period_set) for _ in range(params.tasks)]
        else:
            g = params.period_granularity
            low, high = math.log(params.period_min), math.log(params.period_max + g)
            periods = [
                min(params.period_max, max(params.period_min, int(math.exp(rng.uniform(low, high)) // g) * g))
                for _ in range(params.tasks)
            ]
        if params.hyperperiod_max is None or math.lcm(*periods) <= params.hyperperiod_max:
            return periods
    raise GenerateError(
        f"{HYPERPERIOD_TRIES} draws of {params.tasks} periods all had a hyperperiod beyond hyperperiod_max "
        f"({params.hyperperiod_max} ticks): give periods from a set whose multiples stay within it"
    )


def _deadline(rng: random.Random, params: Params, wcet: int, period: int) -> int:
    """D = C + f (T - C), f uniform in deadline_factor: constrained (f <= 1)
    keeps C <= D <= T, arbitrary lets D go beyond T."""
    if params.deadlines == "implicit":
        return period
    lo, hi = params.deadline_factor
    f = lo if lo == hi else rng.uniform(lo, hi)
    return max(wcet, min(2**32 - 1, round(wcet + f * (period - wcet))))


def _priorities(rng: random.Random, params: Params, periods: list[int], deadlines: list[int]) -> list[int]:
    """Priorities in rate-monotonic order (shorter period more urgent),
    deadline-monotonic (shorter deadline), a random order, or given; ties go
    to the earlier task. Distinct, from 31 down while 32 levels are enough
    (the default build's, as on QEMU), else from PRIORITY_MAX down; beyond
    PRIORITY_MAX + 1 tasks, neighbours in the order share a level (the
    levels split as evenly as they go, the most urgent first)."""
    n = params.tasks
    if params.priorities == "given":
        return list(params.given_priorities)
    if params.priorities == "random":
        order = list(range(n))
        rng.shuffle(order)
    else:
        keys = periods if params.priorities == "rm" else deadlines
        order = sorted(range(n), key=lambda i: (keys[i], i))
    priorities = [0] * n
    levels = PRIORITY_MAX + 1
    top = DEFAULT_PRIORITY_MAX if n <= DEFAULT_PRIORITY_MAX + 1 else PRIORITY_MAX
    for rank, i in enumerate(order):
        priorities[i] = top - (rank if n <= levels else rank * levels // n)
    return priorities


def _sharing(rng: random.Random, params: Params) -> list[list[int]]:
    """Per task, the mutexes its sections may take: all of them; each with
    probability sharing_factor; or its neighbours in a chain (task i: mutexes
    i and i + 1, modulo their number), which links the tasks in a line."""
    m = params.mutexes
    if m == 0:
        return [[] for _ in range(params.tasks)]
    if params.sharing == "all":
        return [list(range(m)) for _ in range(params.tasks)]
    if params.sharing == "chain":
        return [sorted({i % m, (i + 1) % m}) for i in range(params.tasks)]
    return [[k for k in range(m) if rng.random() < params.sharing_factor] for _ in range(params.tasks)]


def _split(rng: random.Random, total: int, parts: int) -> list[int]:
    """`total` ticks in `parts` pieces (some may be 0), cut at random."""
    cuts = sorted(rng.randint(0, total) for _ in range(parts - 1))
    edges = [0, *cuts, total]
    return [b - a for a, b in zip(edges, edges[1:], strict=False)]


def _body(rng: random.Random, params: Params, wcet: int, usable: list[int]) -> tuple[str, ...]:
    """`wcet` ticks of compute with its critical sections: sections_per_job
    of them, each of section_length times C, nested up to nesting_depth deep
    in increasing mutex order (so no two tasks can deadlock), between plain
    computes."""
    count = rng.randint(*params.sections_per_job) if usable else 0
    lengths = []
    for _ in range(count):
        lo, hi = params.section_length
        lengths.append(max(1, round((lo if lo == hi else rng.uniform(lo, hi)) * wcet)))
    while sum(lengths) > wcet:  # the sections cannot take more than the job
        lengths.pop()
    sections = []
    for length in lengths:
        depth = rng.randint(1, min(params.nesting_depth, len(usable)))
        sections.append(_section(rng, sorted(rng.sample(usable, depth)), length))
    gaps = _split(rng, wcet - sum(lengths), len(sections) + 1)
    body: list[str] = []
    for gap, section in zip(gaps, [*sections, []], strict=True):
        if gap:
            body.append(f"compute {gap}")
        body += section
    return tuple(body)


def _section(rng: random.Random, nest: list[int], length: int) -> list[str]:
    """lock M_a, [compute], lock M_b, ..., compute (>= 1 tick innermost), ...,
    unlock M_b, [compute], unlock M_a: `length` ticks inside M_a in all."""
    pieces = _split(rng, length - 1, 2 * len(nest) - 1)
    pieces[len(nest) - 1] += 1  # the innermost section computes at least a tick
    out: list[str] = []
    for k, m in enumerate(nest):
        out.append(f"lock M{m}")
        if pieces[k]:
            out.append(f"compute {pieces[k]}")
    for k, m in enumerate(reversed(nest)):
        out.append(f"unlock M{m}")
        after = pieces[len(nest) + k] if len(nest) + k < len(pieces) else 0
        if after:
            out.append(f"compute {after}")
    return out


def to_toml(ts: TaskSet) -> str:
    """The set as a scenario file: a header saying where it comes from, then
    [system], the mutexes and the tasks; every time in the file's unit."""
    p = ts.params
    show = p.ticks_in_unit
    method = {"uunifast-discard": "UUniFast-Discard", "randfixedsum": "RandFixedSum"}.get(
        p.method, "Dirichlet-Rescale"
    )
    mutexes = "mutex" if p.mutexes == 1 else "mutexes"
    lines = [
        f"# Generated by `priora generate` (docs/campaigns.md), seed {ts.seed}.",
        f"# {p.tasks} tasks, utilisation {ts.target:.6f} by {method} "
        f"(after rounding to ticks: {float(ts.utilisation):.6f}), {p.mutexes} {mutexes}.",
        "",
        "[system]",
        f"tick_hz = {p.tick_hz}",
        f'time_unit = "{p.time_unit}"',
        f'protocol = "{p.protocol}"',
    ]
    if p.horizon is not None:
        lines.append(f"horizon = {show(p.horizon)}")
    for m in ts.mutexes:
        lines += ["", f"[resources.{m}]", 'kind = "mutex"']
    for t in ts.tasks:
        lines += ["", f"[tasks.{t.name}]", f"priority = {t.priority}", f"period = {show(t.period)}"]
        if t.deadline != t.period:
            lines.append(f"deadline = {show(t.deadline)}")
        if t.phase:
            lines.append(f"phase = {show(t.phase)}")
        body = [_in_unit(a, p) for a in t.body]
        lines.append("body = [" + ", ".join(json.dumps(a) for a in body) + "]")
    return "\n".join(lines) + "\n"


def _in_unit(action: str, params: Params) -> str:
    word, arg = action.split(" ", 1)
    return f"{word} {params.ticks_in_unit(int(arg))}" if word == "compute" else action

"""The task set as the analysis sees it (docs/analysis.md, "The task model").

`extract` turns a validated scenario into `TaskSet`: per task its priority,
period, deadline, worst-case execution time C (every `compute` of the body),
the compute of its final non-preemptive region (read by npcs only) and its
body as a sequence of steps, each with the mutexes held after it; per
mutex its users, its ceiling and its longest critical section. What the
analysis does not cover is refused here with an `AnalysisError` naming the
file, the place and the reason (a `delay`, a `down` that may wait).

All times are integers in ticks. Nothing here depends on a protocol: the
rules of each protocol (blocking.py) choose which mutexes are *relevant* to a
task and read the steps through `stretches` and `charges`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

from priora.errors import PrioraError
from priora.record import field, record
from priora.scenario.model import SERVICE_WAITS, UNITS_PER_SECOND, Action, Resource, Scenario, Task, in_unit


class AnalysisError(PrioraError):
    """A task set the analysis does not cover. One line, like a ScenarioError:

    examples/x.toml: [tasks.T] body[2]: delay: the analysis does not cover a task that suspends itself
    """

    def __init__(self, source: str, where: str, reason: str) -> None:
        self.source = source
        self.where = where
        self.reason = reason
        super().__init__(f"{source}: {where}: {reason}")


@record(frozen=True)
class Step:
    """One action of a body: the compute it does (0 for lock and unlock) and
    the mutexes held after it, in the order they were taken."""

    ticks: int
    held: tuple[str, ...]


@record(frozen=True)
class Section:
    """One critical section: from `lock mutex` to its `unlock`, with the
    compute inside it (nested sections included), in ticks."""

    mutex: str
    ticks: int


@record(frozen=True)
class TaskInfo:
    name: str
    priority: int  # larger = more urgent
    period: int | None  # None: one job
    deadline: int | None  # relative; the period when not given; None: no deadline
    wcet: int  # C: every compute of the body
    steps: tuple[Step, ...]  # the body, the first step being "nothing held" before it
    sections: tuple[Section, ...]  # one per lock action, in body order
    # The compute of the job's final non-preemptive region under npcs (F): the
    # body's last stretch holding a mutex when the unlock that closes it is the
    # job's last action; 0 when the job can be preempted before it ends
    # (`final_region`).
    final_region: int = 0
    # A time-sharing task (docs/semantics.md, "Two bands"): its level moves
    # with its CPU usage, so no response time is bounded; `priority` is the
    # top of the band, which its sections' blocking of others assumes.
    timeshare: bool = False
    # Release jitter J: each job is released up to J ticks after its arrival
    # (a sporadic task's period is its minimum interarrival time).
    jitter: int = 0
    # Real-Time Mach's phase offset O: every job is released O ticks after its
    # arrival (before its jitter); its deadline still counts from the arrival.
    offset: int = 0
    # Per mutex it locks, its longest section there: computed once, so that
    # the rules read it in constant time whatever the body's length.
    _longest: Mapping[str, int] = field(init=False, repr=False, compare=False)
    # longest_stretch's answers by set of relevant mutexes: every protocol's
    # rule asks for the same few sets, task after task.
    _stretch: dict[frozenset[str], Stretch | None] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        longest: dict[str, int] = {}
        for s in self.sections:
            longest[s.mutex] = max(longest.get(s.mutex, 0), s.ticks)
        object.__setattr__(self, "_longest", longest)
        object.__setattr__(self, "_stretch", {})

    def locks(self) -> frozenset[str]:
        return frozenset(self._longest)

    def longest_section(self, mutex: str) -> int:
        """The longest section of this task on `mutex` (0 when it never locks it)."""
        return self._longest.get(mutex, 0)


@record(frozen=True)
class MutexInfo:
    name: str
    fifo: bool  # waiters in arrival order
    users: tuple[str, ...]  # the tasks that lock it, in file order
    ceiling: int | None  # given in the file, else the highest priority of its users; None: unused
    ceiling_given: bool
    highest: int | None  # the highest priority of its users; None: unused
    inheritance: int | None  # pip: the highest priority it can lend (below); None: unused
    longest: int  # its longest critical section over every task, in ticks
    recovery: int = 0  # rcs: ticks its aborted holder takes to restore its state (the file's); 0: none


@record(frozen=True)
class Edge:
    """`task` locks `locked` while it holds `held` (a nested or crossing section)."""

    held: str
    locked: str
    task: str


@record(frozen=True)
class UnboundedWait:
    """A wait of a body that the analysis does not bound: a receive, a send
    to a queue that may be full, a wait for event flags. B and R leave it
    out: they hold only for jobs whose such waits end at once."""

    task: str
    action: int  # index in the body
    text: str  # the action as the file writes it (times in ticks)
    reason: str


@record(frozen=True)
class TaskSet:
    source: str
    tick_hz: int
    time_unit: str
    tasks: tuple[TaskInfo, ...]  # in file order
    mutexes: dict[str, MutexInfo]  # in file order, mutexes only
    edges: tuple[Edge, ...]
    # Round robin among equal priorities, in ticks ([system] quantum); 0 =
    # none. The bounds do not depend on it: `interfering` counts every task
    # of equal priority whole, which holds under any order among equals.
    quantum: int = 0
    # What the analysis leaves out, said plainly in its output: the waits on
    # queues and event flags, and the work it does not count (the timer
    # service's, the interrupts', inheritance through a queue).
    unbounded_waits: tuple[UnboundedWait, ...] = ()
    not_counted: tuple[str, ...] = ()
    # What the rules compute once per task set and read many times (rcs's
    # abort costs, per aborter and floor): blocking.py fills it.
    memo: dict[tuple[str, str, int], int] = field(default_factory=dict, repr=False, compare=False)

    def task(self, name: str) -> TaskInfo:
        return next(t for t in self.tasks if t.name == name)

    def lower(self, task: TaskInfo) -> list[TaskInfo]:
        """The less urgent tasks: strictly lower priority."""
        return [k for k in self.tasks if k.priority < task.priority]

    def interfering(self, task: TaskInfo) -> list[TaskInfo]:
        """The tasks that can run before `task`: every other task of higher or
        equal priority (equal priorities never preempt, but one of them
        released first runs first, or takes its turn in the round robin:
        counted as higher)."""
        return [j for j in self.tasks if j is not task and j.priority >= task.priority]

    def periodic(self) -> bool:
        return all(t.period is not None for t in self.tasks)

    def in_unit(self, ticks: int) -> Fraction:
        """`ticks` in the file's time unit, exactly."""
        if self.time_unit == "tick":
            return Fraction(ticks)
        return Fraction(ticks * UNITS_PER_SECOND[self.time_unit], self.tick_hz)

    def show(self, ticks: int) -> str:
        """`ticks` for a message, in the file's unit: "12 ms", "0.5 ms", "7 tick"."""
        return f"{number(self.in_unit(ticks))} {self.time_unit}"


def number(value: Fraction) -> int | float:
    """An exact value as the reports write it: an int when whole, else a float
    rounded to 6 decimals (priora.report.build's convention)."""
    if value.denominator == 1:
        return int(value)
    rounded = round(float(value), 6)
    return int(rounded) if rounded.is_integer() else rounded


# ---------------------------------------------------------------- stretches


@record(frozen=True)
class Stretch:
    """A maximal part of a body during which the task holds at least one
    relevant mutex: its compute, and the first relevant mutex it took."""

    ticks: int
    mutex: str


def stretches(task: TaskInfo, relevant: frozenset[str]) -> list[Stretch]:
    """The task's stretches holding some mutex of `relevant`. With properly
    nested sections, a stretch is an outermost section among the relevant
    ones (its nested sections included); with crossing sections (lock A,
    lock B, unlock A, unlock B) it runs until no relevant mutex is held."""
    found: list[Stretch] = []
    ticks, first = 0, ""
    for step in task.steps:
        mine = [m for m in step.held if m in relevant]
        if mine:
            if not first:
                first = mine[0]
            ticks += step.ticks
        elif first:
            found.append(Stretch(ticks, first))
            ticks, first = 0, ""
    if first:  # unreachable for a validated body, which ends holding nothing
        found.append(Stretch(ticks, first))
    return found


def longest_stretch(task: TaskInfo, relevant: frozenset[str]) -> Stretch | None:
    """The first of the task's longest stretches holding a mutex of `relevant`
    (computed once per task and set)."""
    if relevant not in task._stretch:
        task._stretch[relevant] = max(stretches(task, relevant), key=lambda s: s.ticks, default=None)
    return task._stretch[relevant]


# ---------------------------------------------------------------- extraction


def _steps(task: Task) -> tuple[tuple[Step, ...], tuple[Section, ...], list[tuple[str, str]]]:
    """The body as steps, its sections, and its (held, locked) pairs."""
    held: list[str] = []
    steps = [Step(0, ())]
    open_sections: dict[str, int] = {}  # mutex -> compute so far inside it
    open_index: dict[str, int] = {}  # mutex -> index in sections of its open lock (never nested on itself)
    sections: list[Section] = []
    pairs: list[tuple[str, str]] = []
    for action in task.body:
        if action.kind == "compute":
            for m in open_sections:
                open_sections[m] += action.ticks
            steps.append(Step(action.ticks, tuple(held)))
        elif action.kind == "lock" and action.resource is not None:
            pairs.extend((h, action.resource) for h in held)
            held.append(action.resource)
            open_sections[action.resource] = 0
            open_index[action.resource] = len(sections)
            sections.append(Section(action.resource, 0))
            steps.append(Step(0, tuple(held)))
        elif action.kind == "unlock" and action.resource is not None:
            name = action.resource
            held.remove(name)
            index = open_index.pop(name)
            sections[index] = Section(name, open_sections.pop(name))
            steps.append(Step(0, tuple(held)))
        # up, and a down that never waits (timeout 0), take no time and hold nothing.
    return tuple(steps), tuple(sections), pairs


def final_region(body: Sequence[Action]) -> int:
    """npcs: the compute of the job's final non-preemptive region, which
    nothing preempts once it has started. A job can be preempted wherever it
    holds no mutex, except at its very end: the interpreter runs a job's last
    action under the scheduler lock, and the job ends as that action
    completes (semantics.md, "Job completion"). So the region is the compute
    after the last instant the body holds nothing before its end, and 0 when
    the job does anything after its last unlock (a compute, an up)."""
    held: list[str] = []
    ticks = 0
    for i, action in enumerate(body):
        if action.kind == "compute":
            ticks = ticks + action.ticks if held else 0
        elif action.kind == "lock" and action.resource is not None:
            held.append(action.resource)
        elif action.kind == "unlock" and action.resource in held:
            held.remove(action.resource)
        if not held and i + 1 < len(body):  # a preemption point before the job's end
            ticks = 0
    return ticks


def _check_body(source: str, task: Task) -> None:
    where = f"[tasks.{task.name}]"
    for i, action in enumerate(task.body):
        if action.kind == "delay":
            raise AnalysisError(
                source,
                f"{where} body[{i}]",
                "delay: the analysis does not cover a task that suspends itself or yields",
            )
        if action.kind in ("rtprio", "nice"):
            raise AnalysisError(
                source,
                f"{where} body[{i}]",
                f"{action.text()}: the analysis does not cover a task that changes its band or nice value "
                "within its job",
            )
        if action.kind == "down" and action.timeout != 0:
            raise AnalysisError(
                source,
                f"{where} body[{i}]",
                f"down {action.resource}: a down that may wait for another task's up is not covered "
                "(the blocking analysis covers mutexes; only a down with timeout 0 never waits)",
            )


def _explicit_ceiling(resource: Resource) -> int | None:
    """The ceiling given in the file (`ceiling = N`); None when absent."""
    return resource.ceiling


def _inheritance_levels(
    priority: Mapping[str, int], users: Mapping[str, list[str]], edges: Iterable[Edge]
) -> dict[str, int]:
    """pip lends a mutex's holder the priority of its most urgent waiter, and
    a waiter may itself be lifted by the mutexes it holds (transitive
    inheritance). So the holder of m can run at the priority of any task that
    locks m, or, through a task that locks m while holding h, at any level
    lent to the holder of h: the least fixed point of
        level(m) = max(users of m, level(h) for every edge h -> m)."""
    level = {m: max((priority[t] for t in ts), default=-1) for m, ts in users.items()}
    edges = list(edges)
    changed = True
    while changed:
        changed = False
        for e in edges:
            if level[e.held] > level[e.locked]:
                level[e.locked] = level[e.held]
                changed = True
    return level


def _unbounded_waits(scenario: Scenario, task: Task) -> list[UnboundedWait]:
    waits = []
    for i, a in enumerate(task.body):
        if a.kind not in SERVICE_WAITS or a.timeout == 0:  # timeout 0 never waits
            continue
        what = {
            "receive": f"waits for a message in {a.resource}, which another task or an interrupt must send",
            "send": f"waits for room in {a.resource} while it is full, until another task receives",
            "wait": f"waits for flags of {a.resource}, which another task or an interrupt must set",
        }[a.kind]
        unit = scenario.system.time_unit
        limit = (
            "for ever" if a.timeout is None else f"up to its timeout of {in_unit(scenario, a.timeout)} {unit}"
        )
        text = a.text(lambda ticks: in_unit(scenario, ticks))
        waits.append(UnboundedWait(task.name, i, text, f"{what}, {limit}: not bounded, left out of B and R"))
    return waits


def _not_counted(scenario: Scenario) -> list[str]:
    lines = []
    if scenario.timers:
        names = ", ".join(t.name for t in scenario.timers)
        lines.append(
            f"the timer service task (priority {scenario.system.timer_service_priority}) and the bodies of "
            f"timers {names}: not counted as interference"
        )
    for irq in scenario.interrupts:
        lines.append(f"interrupt {irq.name}'s body: not counted as interference")
    for q in scenario.queues:
        if q.inherit:
            lines.append(
                f"inheritance through queue {q.name}: its receiver may run at its senders' priority, "
                "not counted as blocking or interference"
            )
    return lines


def extract(scenario: Scenario) -> TaskSet:
    """The analysis' view of `scenario`, or an AnalysisError for what it does not cover."""
    source = scenario.source
    for task in scenario.tasks:
        _check_body(source, task)
    tasks: list[TaskInfo] = []
    edges: list[Edge] = []
    for task in scenario.tasks:
        steps, sections, pairs = _steps(task)
        wcet = sum(a.ticks for a in task.body if a.kind == "compute")
        tasks.append(
            TaskInfo(
                task.name,
                task.priority,
                task.period if task.period is not None else task.min_interarrival,
                task.deadline,
                wcet,
                steps,
                sections,
                final_region(task.body),
                timeshare=task.timeshare,
                jitter=task.jitter,
                offset=task.offset,
            )
        )
        edges.extend(Edge(h, m, task.name) for h, m in pairs)
    mutexes = [r for r in scenario.resources if r.kind == "mutex"]
    users = {r.name: [t.name for t in tasks if r.name in t.locks()] for r in mutexes}
    priority = {t.name: t.priority for t in tasks}
    levels = _inheritance_levels(priority, users, edges)
    infos: dict[str, MutexInfo] = {}
    for r in mutexes:
        given = _explicit_ceiling(r)
        highest = max((priority[t] for t in users[r.name]), default=None)
        ceiling = given if given is not None else highest
        infos[r.name] = MutexInfo(
            name=r.name,
            fifo=r.order == "fifo",
            users=tuple(users[r.name]),
            ceiling=ceiling,
            ceiling_given=given is not None,
            highest=highest,
            inheritance=levels[r.name] if users[r.name] else None,
            longest=max((t.longest_section(r.name) for t in tasks), default=0),
            recovery=r.recovery,
        )
    return TaskSet(
        source=source,
        tick_hz=scenario.system.tick_hz,
        time_unit=scenario.system.time_unit,
        tasks=tuple(tasks),
        mutexes=infos,
        edges=tuple(edges),
        quantum=scenario.system.quantum,
        unbounded_waits=tuple(w for task in scenario.tasks for w in _unbounded_waits(scenario, task)),
        not_counted=tuple(_not_counted(scenario)),
    )


# ---------------------------------------------------------------- deadlock


def deadlock(ts: TaskSet) -> str | None:
    """A cycle of lock orders that involves two tasks or more (T1 locks B
    while holding A, T2 locks A while holding B): under none and pip the
    tasks can deadlock (the kernel refuses the closing lock with PR_EDEADLK
    and the job skips its section). Returns a description, or None."""
    graph: dict[str, set[str]] = {m: set() for m in ts.mutexes}
    for e in ts.edges:
        graph[e.held].add(e.locked)
    for component in _cycles(graph):
        inside = [e for e in ts.edges if e.held in component and e.locked in component]
        if len({e.task for e in inside}) >= 2:
            shown = ", ".join(f"{e.task} locks {e.locked} while holding {e.held}" for e in inside)
            return f"deadlock possible ({shown})"
    return None


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with a cycle (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component: set[str] = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in graph:
        if v not in index:
            visit(v)
    return found

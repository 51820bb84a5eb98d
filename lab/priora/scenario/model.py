"""The validated model of a scenario: the one structure every lab command shares.

A `Scenario` is only ever built by `priora.scenario.loader.load` (or `parse`), which
validates everything; once built, it is consistent: every resource a body names
exists, every critical section is closed, every time is a whole number of ticks.
All times in the model are in ticks; `Scenario.to_unit` converts kernel times
(ns on the host port) back to the file's time unit for reports.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from priora.errors import ScenarioError
from priora.limits import DEFAULT_PRIORITY_MAX as DEFAULT_PRIORITY_MAX
from priora.limits import PRIORITY_MAX as PRIORITY_MAX
from priora.limits import PRIORITY_MIN as PRIORITY_MIN
from priora.record import record, replace

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from typing import Literal

    from priora.costs.model import CostModel

    # The value sets of the model's fields, for the type checker: at run time
    # they are only names in annotations (from __future__ import annotations).
    TimeUnit = Literal["tick", "us", "ms"]
    Protocol = Literal["none", "pip", "pcp", "ipcp", "npcs", "rcs"]
    ResourceKind = Literal["mutex", "counting", "binary"]
    Order = Literal["priority", "fifo"]
    ActionKind = Literal[
        "compute",
        "lock",
        "unlock",
        "down",
        "up",
        "delay",
        "send",
        "receive",
        "set",
        "clear",
        "wait",
        "rtprio",
        "nice",
        "release",
    ]

TIME_UNITS: tuple[TimeUnit, ...] = ("tick", "us", "ms")
PROTOCOLS: tuple[Protocol, ...] = ("none", "pip", "pcp", "ipcp", "npcs", "rcs")
# The protocols whose kernel policy needs priority-ordered waiters (pr_sem_alloc
# refuses them on a FIFO mutex): they find the most urgent waiter to lend its
# priority, or to hand over to first.
NEEDS_PRIORITY_ORDER: tuple[Protocol, ...] = ("pip", "pcp", "ipcp", "rcs")
# The protocols that use a mutex's ceiling (pr_sem_attr_t.ceiling); the kernel
# refuses a ceiling other than 0 for the others.
CEILING_PROTOCOLS: tuple[Protocol, ...] = ("pcp", "ipcp")
RESOURCE_KINDS: tuple[ResourceKind, ...] = ("mutex", "counting", "binary")
ORDERS: tuple[Order, ...] = ("priority", "fifo")
# The actions that may wait for another task (or an interrupt) on a message
# queue or event flags: what the analysis does not bound.
SERVICE_WAITS: tuple[ActionKind, ...] = ("send", "receive", "wait")

# The priority levels (priora.limits): 256 in the lab's build; the default
# build's 32 (DEFAULT_PRIORITY_MAX = 31) are what the RISC-V images keep. What
# the lab chooses itself (rate-monotonic order, the timer service's priority)
# stays at or below 31 while the file does, so that a file runs alike on the
# host and on QEMU.


def top_level(priorities: Iterable[int]) -> int:
    """The top level of the smallest build that holds `priorities`: 31 (the
    default 32 levels) while every one is at most 31, else PRIORITY_MAX."""
    return DEFAULT_PRIORITY_MAX if all(p <= DEFAULT_PRIORITY_MAX for p in priorities) else PRIORITY_MAX


NS_PER_SECOND = 1_000_000_000
UNITS_PER_SECOND: dict[str, int] = {"us": 1_000_000, "ms": 1_000}


@record(frozen=True)
class Action:
    """One step of a task body.

    kind     compute | lock | unlock | down | up | delay | send | receive |
             set | clear | wait | rtprio | nice | release
    resource the object named: a semaphore (lock/unlock/down/up), a queue
             (send/receive), event flags (set/clear/wait), a sporadic task
             (release: pr_task_release); else None
    ticks    compute and delay: the amount, in ticks; else 0
    timeout  lock, down, send, receive, wait: ticks to wait, None = forever
    priority send: the message's priority; None = the sender's;
             rtprio: the real-time priority to move to; None = out of the
             real-time band, to time sharing ("rtprio off")
    nice     nice: the task's new nice value
    mask     set, clear, wait: the event flags (1 .. 2^32-1)
    wait_all wait: every flag of the mask (else any)
    clear    wait: clear the mask's flags when satisfied
    """

    kind: ActionKind
    resource: str | None = None
    ticks: int = 0
    timeout: int | None = None
    priority: int | None = None
    mask: int = 0
    wait_all: bool = False
    clear: bool = False
    nice: int = 0

    def text(self, time: Callable[[int], object] = str) -> str:
        """The action as a file writes it; `time` writes a time given in
        ticks (default: the ticks)."""
        words: list[str] = [self.kind]
        if self.kind == "rtprio":
            return f"rtprio {'off' if self.priority is None else self.priority}"
        if self.kind == "nice":
            return f"nice {self.nice}"
        if self.resource is not None:
            words.append(self.resource)
        if self.kind in ("set", "clear", "wait"):
            words.append(f"0x{self.mask:x}")
        if self.kind == "wait":
            words.append("all" if self.wait_all else "any")
            if self.clear:
                words.append("clear")
        if self.kind in ("compute", "delay"):
            words.append(str(time(self.ticks)))
        if self.priority is not None:
            words += ["priority", str(self.priority)]
        if self.timeout is not None:
            words += ["timeout", str(time(self.timeout))]
        return " ".join(words)


@record(frozen=True)
class Resource:
    """A semaphore. kind "binary" is a counting semaphore with max 1."""

    name: str
    kind: ResourceKind
    protocol: Protocol  # mutexes only; "none" for counting and binary
    initial: int  # 1 for a mutex
    max: int | None  # counting/binary: largest value (binary: 1); None = no limit
    order: Order
    # Mutexes only: the ceiling given in the file (`ceiling = N`), None when
    # omitted (then Scenario.ceiling computes it from the tasks that lock it).
    ceiling: int | None = None
    # rcs mutexes: ticks of CPU time its aborted holder takes to restore the
    # shared state (`recovery = T`) while the requester waits; 0 = none, the
    # requester takes the mutex over at once. Kept under --protocol, used
    # only while the mutex is rcs.
    recovery: int = 0


@record(frozen=True)
class Queue:
    """A message queue ([resources.NAME] kind = "queue"): kernel queue i is
    the i-th queue of the file. Messages are PR_SCRIPT_MSG_SIZE bytes."""

    name: str
    length: int  # messages it holds
    message_order: Order  # which message leaves first: the most urgent, or the oldest
    inherit: bool  # PR_MSGQ_INHERIT: its server inherits its senders' priorities


@record(frozen=True)
class EventFlags:
    """Event flags ([resources.NAME] kind = "events"): 32 flags, all clear
    at the start; kernel event flags i are the i-th of the file."""

    name: str


@record(frozen=True)
class Periodic:
    """A software timer ([timers.NAME]) or an interrupt ([interrupts.NAME]):
    its body runs at ticks phase, phase + period, ... (period 0: once),
    never waiting. A timer's body runs in the timer service task, most
    urgent timer first; an interrupt's in the tick interrupt, in file order."""

    name: str
    phase: int  # ticks, >= 1
    period: int  # ticks; 0 = once
    priority: int  # timers: the order among timers due at once; interrupts: 0
    body: tuple[Action, ...]


@record(frozen=True)
class Task:
    """A task: periodic when `period` is set, sporadic when
    `min_interarrival` is, else one job released at `phase`."""

    name: str
    priority: int  # larger = more urgent
    period: int | None  # ticks
    phase: int  # ticks, first arrival
    deadline: int | None  # ticks, relative to each arrival (default: the period, or the minimum interarrival)
    body: tuple[Action, ...]
    # The time-sharing band (docs/semantics.md, "Two bands"): the kernel sets
    # such a task's level from its usage and nice; `priority` is then the top
    # of the band (System.timeshare_levels - 1), the most its level can be,
    # which is what its ceilings and blocking terms must assume.
    timeshare: bool = False
    nice: int = 0
    group: int = 1  # its privilege group (privilege.h): 1, the system group, holds every privilege
    # Sporadic (docs/scenario-format.md, "Sporadic tasks"): jobs arrive at
    # the ticks `arrivals` (pr_task_release), at least min_interarrival apart:
    # an earlier one is refused, or deferred with defer_early.
    min_interarrival: int | None = None  # ticks
    arrivals: tuple[int, ...] = ()  # ticks, in order
    defer_early: bool = False
    # Each job is released at its arrival + a draw in [0, jitter] ticks.
    jitter: int = 0
    # Each job computes between bcet and the body's compute total (ticks),
    # uniformly; None: always the total.
    bcet: int | None = None
    seed: int = 0  # of the jitter and execution-time draws
    # A hard task's miss aborts a job, the least important one (docs/semantics.md).
    hard: bool = False
    importance: int = 0
    abort_time: int | None = None  # ticks after each arrival: a soft job still running is aborted
    start: int = 0  # ticks: the start time; `phase` (the first arrival) is start + the file's phase
    # Real-Time Mach's phase offset: each job is released this long after its
    # arrival (then its jitter), its deadline still counted from the arrival.
    offset: int = 0

    @property
    def sporadic(self) -> bool:
        return self.min_interarrival is not None

    def effective_arrivals(self) -> tuple[int, ...]:
        """The ticks its jobs arrive at: `arrivals`, less those the kernel
        refuses as too early, or with defer_early those moved to the
        earliest allowed tick (pr_task_release)."""
        gap = self.min_interarrival or 0
        taken: list[int] = []
        for a in self.arrivals:
            if not taken or a >= taken[-1] + gap:
                taken.append(a)
            elif self.defer_early:
                taken.append(taken[-1] + gap)
        return tuple(taken)

    @property
    def wcet(self) -> int:
        """The body's compute total, in ticks."""
        return sum(a.ticks for a in self.body if a.kind == "compute")


@record(frozen=True)
class System:
    tick_hz: int
    time_unit: TimeUnit
    horizon: int | None  # ticks, as given in the file; None = the default
    protocol: Protocol  # default protocol of mutexes
    # What the kernel's own work costs in virtual time ([system] cost_model,
    # priora.costs.model, docs/cost-model.md); None = zero costs.
    cost_model: CostModel | None = None
    # The kernel's round-robin quantum among equal priorities, in ticks
    # (pr_kernel_config_t.quantum: system-wide); 0 = none.
    quantum: int = 0
    # The priority of the timer service task (pr_timer_service_start), which
    # runs the timers' bodies; it exists when the file has timers.
    timer_service_priority: int = 31
    # The time-sharing band (pr_kernel_config_t.timeshare_*): levels
    # 0 .. timeshare_levels - 1, 0 = none; a slice and a decay period in ticks
    # (0 = the kernel's defaults: 10 ticks, one second).
    timeshare_levels: int = 0
    timeshare_quantum: int = 0
    timeshare_decay: int = 0
    # Privilege groups 2 .. 8 given privileges ([groups.N]): (N, PR_PRIV_* bits).
    groups: tuple[tuple[int, int], ...] = ()


@record(frozen=True)
class Scenario:
    """A validated scenario. Resource i is kernel semaphore i; task i is kernel task i."""

    source: str  # the file it came from, for messages
    system: System
    resources: tuple[Resource, ...]
    tasks: tuple[Task, ...]
    queues: tuple[Queue, ...] = ()
    events: tuple[EventFlags, ...] = ()
    timers: tuple[Periodic, ...] = ()
    interrupts: tuple[Periodic, ...] = ()

    # ---- time ----

    @property
    def tick_ns(self) -> float:
        return NS_PER_SECOND / self.system.tick_hz

    def ticks_to_ns(self, ticks: int) -> int:
        """The host port's time of tick `ticks` (exact, as the kernel computes it)."""
        hz = self.system.tick_hz
        return (ticks // hz) * NS_PER_SECOND + (ticks % hz) * NS_PER_SECOND // hz

    def to_unit(self, ns: int | float) -> float:
        """Kernel time (ns) in the file's time unit."""
        unit = self.system.time_unit
        if unit == "tick":
            return ns * self.system.tick_hz / NS_PER_SECOND
        return ns * UNITS_PER_SECOND[unit] / NS_PER_SECOND

    def default_horizon(self) -> int | None:
        """Ticks: the hyperperiod plus the largest phase when some task,
        timer or interrupt is periodic; None (run until every job has
        finished and no timer is armed) when none is."""
        periodics = (*self.timers, *self.interrupts)
        periods = [t.period for t in self.tasks if t.period is not None]
        periods += [p.period for p in periodics if p.period]
        if not periods:
            return None
        phases = [t.phase for t in self.tasks] + [p.phase for p in periodics]
        # A sporadic task's last job arrives by then and is due one minimum
        # interarrival time later at most (its deadline and jitter are below it).
        ends = [t.effective_arrivals()[-1] + (t.min_interarrival or 0) for t in self.tasks if t.arrivals]
        return max([math.lcm(*periods) + max(phases), *ends])

    def horizon_ticks(self) -> int | None:
        return self.system.horizon if self.system.horizon is not None else self.default_horizon()

    # ---- ceilings ----

    def lockers(self, resource: str) -> tuple[Task, ...]:
        """The tasks whose body locks `resource`, in file order."""
        return tuple(
            t for t in self.tasks if any(a.kind == "lock" and a.resource == resource for a in t.body)
        )

    def ceiling(self, resource: str) -> int:
        """The ceiling of mutex `resource`: as given in the file, else the
        highest base priority among the tasks that lock it (0 when none
        does). What pcp and ipcp use; the other protocols ignore it."""
        r = self.resources[self.resource_index(resource)]
        if r.ceiling is not None:
            return r.ceiling
        return max((t.priority for t in self.lockers(resource)), default=PRIORITY_MIN)

    def kernel_ceiling(self, resource: str) -> int | None:
        """The ceiling the kernel applies to `resource` under its protocol:
        pcp and ipcp, the mutex's ceiling; npcs, PRIORITY_MAX (its holder
        runs above every task); None for none, pip, rcs and semaphores."""
        r = self.resources[self.resource_index(resource)]
        if r.kind != "mutex":
            return None
        if r.protocol in CEILING_PROTOCOLS:
            return self.ceiling(resource)
        return PRIORITY_MAX if r.protocol == "npcs" else None

    # ---- variants (command-line overrides) ----

    def with_protocol(self, protocol: Protocol) -> Scenario:
        """Every mutex under `protocol` (the --protocol option). pip, pcp,
        ipcp and rcs need priority-ordered waiting, so on a FIFO mutex they
        are refused."""
        if protocol in NEEDS_PRIORITY_ORDER:
            for r in self.resources:
                if r.kind == "mutex" and r.order == "fifo":
                    raise ScenarioError(
                        self.source,
                        f"[resources.{r.name}] order",
                        f'protocol "{protocol}" needs order "priority" '
                        "(the kernel refuses it on a FIFO mutex)",
                    )
        resources = tuple(replace(r, protocol=protocol) if r.kind == "mutex" else r for r in self.resources)
        return replace(self, resources=resources, system=replace(self.system, protocol=protocol))

    def with_horizon(self, ticks: int) -> Scenario:
        return replace(self, system=replace(self.system, horizon=ticks))

    def queue_index(self, name: str) -> int:
        return [q.name for q in self.queues].index(name)

    def events_index(self, name: str) -> int:
        return [e.name for e in self.events].index(name)

    def task_index(self, name: str) -> int:
        return [t.name for t in self.tasks].index(name)

    @property
    def timer_service(self) -> int | None:
        """The kernel task id of the timer service (created after the
        file's tasks), or None without timers."""
        return len(self.tasks) if self.timers else None

    def resource_index(self, name: str) -> int:
        for i, r in enumerate(self.resources):
            if r.name == name:
                return i
        raise KeyError(name)


def in_unit(scenario: Scenario, ticks: int) -> int | float:
    """Ticks in the file's unit, as a file would write them: an int when
    whole, else 6 decimals (an int again if those round to a whole)."""
    unit = scenario.system.time_unit
    if unit == "tick":
        return int(ticks)
    scaled, hz = ticks * UNITS_PER_SECOND[unit], scenario.system.tick_hz
    if scaled % hz == 0:
        return int(scaled // hz)
    rounded = round(scaled / hz, 6)  # int / int is the nearest float to the exact quotient
    return int(rounded) if rounded.is_integer() else rounded

"""A validated scenario as the kernel objects that run it, on any port.

Resource i becomes semaphore i and task i becomes task i, with the kernel's
own attribute values (pr_sem_attr_t, pr_task_attr_t, and each job's actions
as pr_action_t for the scenario interpreter), and an rcs mutex's recovery:
the amount the interpreter's pr_script_recover computes. Times are in the kernel's
units: periods, phases, deadlines, delays and timeouts in ticks, computes in
port time (ns on both ports). The host run (priora.run.simulate) and the QEMU
run (priora.run.blob, priora.run.qemu_run) create the same objects from these.
"""

from __future__ import annotations

from priora.record import record
from priora.run import native
from priora.scenario.model import CEILING_PROTOCOLS, Action, Periodic, Queue, Resource, Scenario, Task


@record(frozen=True)
class KernelSemaphore:
    """pr_sem_attr_t of one resource."""

    name: str
    value: int  # initial value (1 for a mutex)
    max: int  # 0: no limit (1 for a binary semaphore)
    flags: int  # PR_SEM_PRIO | PR_SEM_MUTEX | PR_SEM_BINARY
    protocol: int  # pr_protocol_t (PR_PROTOCOL_NONE .. PR_PROTOCOL_RCS); NONE unless a mutex
    ceiling: int = 0  # pcp, ipcp: the mutex's ceiling; 0 for every other semaphore
    # rcs: ns of CPU time its recovery (pr_script_recover, set with
    # PR_SEM_CTL_RECOVERY) computes; 0: no recovery, the immediate take-over.
    recovery: int = 0


@record(frozen=True)
class KernelAction:
    """pr_action_t of one body action."""

    kind: int  # PR_ACT_*
    sem: int  # the object's id (semaphore, queue or event flags); 0 when the action uses none
    timeout: int  # ticks; PR_FOREVER, or 0 for PR_NO_WAIT
    amount: int  # compute: ns; delay: ticks; send: the message's priority; set, clear, wait: the mask; else 0
    options: int = 0  # send: PR_ACT_SEND_PRIORITY; wait: PR_EVENTS_ALL | PR_EVENTS_CLEAR; else 0


@record(frozen=True)
class KernelTask:
    """pr_task_attr_t of one task, and its script."""

    name: str
    priority: int
    period: int  # ticks; 0 = one job
    phase: int  # ticks
    deadline: int  # ticks, relative; 0 = the period (none if both are 0)
    actions: tuple[KernelAction, ...]
    sched_class: int = 0  # PR_CLASS_REALTIME (0) or PR_CLASS_TIMESHARE (1): then priority is ignored
    nice: int = 0
    priv_group: int = 1  # privilege.h: 1, the system group
    flags: int = 0  # PR_TASK_SPORADIC | PR_TASK_DEFER_EARLY
    min_interarrival: int = 0  # ticks (sporadic)
    jitter: int = 0  # ticks
    jitter_seed: int = 0
    exec_spread: int = 0  # pr_script_t.exec_spread: 65536 - ceil(65536 bcet / wcet); 0 = always the wcet
    exec_seed: int = 0  # pr_script_t.exec_state before it runs
    arrivals: tuple[int, ...] = ()  # ticks at which pr_task_release is called (sporadic)
    importance: int = 0
    abort_time: int = 0  # ticks; 0 = none
    offset: int = 0  # ticks: the phase offset of every release


@record(frozen=True)
class KernelQueue:
    """pr_msgq_attr_t of one queue (msg_size PR_SCRIPT_MSG_SIZE)."""

    name: str
    length: int
    flags: int  # PR_MSGQ_FIFO_MESSAGES | PR_MSGQ_INHERIT


@record(frozen=True)
class KernelPeriodic:
    """A software timer (pr_timer_attr_t, started with delay = phase) or a
    scenario interrupt (pr_script_interrupt_t), and its body."""

    name: str
    phase: int  # ticks
    period: int  # ticks; 0 = once
    priority: int  # timers only
    actions: tuple[KernelAction, ...]


@record(frozen=True)
class KernelScenario:
    tick_hz: int
    quantum: int  # ticks: round robin among equal priorities ([system] quantum); 0 = none
    semaphores: tuple[KernelSemaphore, ...]
    tasks: tuple[KernelTask, ...]
    queues: tuple[KernelQueue, ...] = ()
    events: tuple[str, ...] = ()  # the names of the event flags objects
    timers: tuple[KernelPeriodic, ...] = ()
    interrupts: tuple[KernelPeriodic, ...] = ()
    timer_service_priority: int = 0  # the service task's priority, when there are timers
    # pr_kernel_config_t's time-sharing band: levels (0 = none), slice, decay (ticks; 0 = defaults)
    timeshare: tuple[int, int, int] = (0, 0, 0)
    groups: tuple[tuple[int, int], ...] = ()  # privilege groups given privileges: (group, PR_PRIV_* bits)


def kernel_action(scenario: Scenario, a: Action) -> KernelAction:
    """The interpreter's action for `a` (pr_action_t)."""
    timeout = native.PR_FOREVER if a.timeout is None else a.timeout  # 0 is PR_NO_WAIT
    if a.resource is None:
        sem = 0
    elif a.kind in ("send", "receive"):
        sem = scenario.queue_index(a.resource)
    elif a.kind in ("set", "clear", "wait"):
        sem = scenario.events_index(a.resource)
    elif a.kind == "release":
        sem = scenario.task_index(a.resource)
    else:
        sem = scenario.resource_index(a.resource)
    options = amount = 0
    if a.kind == "compute":
        amount = scenario.ticks_to_ns(a.ticks)
    elif a.kind == "delay":
        amount = a.ticks
    elif a.kind == "send" and a.priority is not None:
        options, amount = native.PR_ACT_SEND_PRIORITY, a.priority
    elif a.kind == "rtprio":
        amount = native.PR_ACT_RTPRIO_OFF if a.priority is None else a.priority
    elif a.kind == "nice":
        amount = a.nice - native.NICE_MIN
    elif a.kind in ("set", "clear", "wait"):
        amount = a.mask
        if a.kind == "wait":
            options = (native.PR_EVENTS_ALL if a.wait_all else 0) | (native.PR_EVENTS_CLEAR if a.clear else 0)
    return KernelAction(native.ACTION_NUMBER[a.kind], sem, timeout, amount, options)


def kernel_semaphore(scenario: Scenario, r: Resource) -> KernelSemaphore:
    """pr_sem_attr_t of `r`, and its recovery. A ceiling goes to the kernel
    under pcp and ipcp only (given in the file, or computed:
    Scenario.ceiling); pr_sem_alloc refuses any ceiling but 0 for the other
    protocols (npcs always runs its holder at PR_PRIO_MAX). A recovery goes
    with an rcs mutex only (the kernel refuses it under the others): one
    kept from the file under another --protocol is not used."""
    flags = native.PR_SEM_PRIO if r.order == "priority" else 0
    protocol = ceiling = recovery = 0
    if r.kind == "mutex":
        flags |= native.PR_SEM_MUTEX
        protocol = native.PROTOCOL_NUMBER[r.protocol]
        if r.protocol in CEILING_PROTOCOLS:
            ceiling = scenario.ceiling(r.name)
        if r.protocol == "rcs":
            recovery = scenario.ticks_to_ns(r.recovery)
    elif r.kind == "binary":
        flags |= native.PR_SEM_BINARY
    limit = r.max if r.max is not None else 0
    return KernelSemaphore(r.name, r.initial, limit, flags, protocol, ceiling, recovery)


# The execution-time draws' seed is the file's seed with its bits mixed
# (docs/scenario-format.md), so that the jitter and the execution times of
# one task are not the same sequence.
EXEC_SEED_MIX = 0x9E3779B9
RATIO_ONE = 65536  # pr_script_t: a job's ratio r is at most 65536 (the wcet)


def exec_spread(bcet: int | None, wcet: int) -> int:
    """pr_script_t.exec_spread for jobs between bcet and wcet ticks: the
    least ratio is ceil(65536 bcet / wcet), so no job computes less than
    bcet but for the rounding down of each compute (under 1 ns each)."""
    if bcet is None or wcet == 0:
        return 0
    return RATIO_ONE - -(-RATIO_ONE * bcet // wcet)


def kernel_task(scenario: Scenario, t: Task) -> KernelTask:
    actions = tuple(kernel_action(scenario, a) for a in t.body)
    flags = 0
    if t.sporadic:
        flags = native.PR_TASK_SPORADIC | (native.PR_TASK_DEFER_EARLY if t.defer_early else 0)
    if t.hard:
        flags |= native.PR_TASK_HARD
    sched_class = native.PR_CLASS_TIMESHARE if t.timeshare else native.PR_CLASS_REALTIME
    return KernelTask(
        t.name, t.priority, t.period or 0, t.phase, t.deadline or 0, actions, sched_class, t.nice, t.group,
        flags=flags, min_interarrival=t.min_interarrival or 0, jitter=t.jitter, jitter_seed=t.seed,
        exec_spread=exec_spread(t.bcet, t.wcet),
        exec_seed=t.seed ^ EXEC_SEED_MIX if t.bcet is not None else 0, arrivals=t.arrivals,
        importance=t.importance, abort_time=t.abort_time or 0, offset=t.offset,
    )  # fmt: skip


def kernel_queue(q: Queue) -> KernelQueue:
    flags = native.PR_MSGQ_FIFO_MESSAGES if q.message_order == "fifo" else 0
    if q.inherit:
        flags |= native.PR_MSGQ_INHERIT
    return KernelQueue(q.name, q.length, flags)


def kernel_periodic(scenario: Scenario, p: Periodic) -> KernelPeriodic:
    actions = tuple(kernel_action(scenario, a) for a in p.body)
    return KernelPeriodic(p.name, p.phase, p.period, p.priority, actions)


# The tasks compiled last, and what they depend on: the tasks themselves (the
# very tuple, held here so that it stays the same object), the names of the
# objects their actions name, and the tick rate. A campaign runs one set under
# each protocol: variants (Scenario.with_protocol) share their tasks.
_last_tasks: tuple[tuple[Task, ...], tuple[tuple[str, ...], ...], int, tuple[KernelTask, ...]] | None = None


def _kernel_tasks(scenario: Scenario) -> tuple[KernelTask, ...]:
    global _last_tasks
    names = tuple(
        tuple(x.name for x in objects) for objects in (scenario.resources, scenario.queues, scenario.events)
    )
    last = _last_tasks
    if (
        last is not None
        and last[0] is scenario.tasks
        and last[1] == names
        and last[2] == scenario.system.tick_hz
    ):
        return last[3]
    tasks = tuple(kernel_task(scenario, t) for t in scenario.tasks)
    _last_tasks = (scenario.tasks, names, scenario.system.tick_hz, tasks)
    return tasks


def compile_scenario(scenario: Scenario) -> KernelScenario:
    """Every kernel object of `scenario`, in id order."""
    return KernelScenario(
        tick_hz=scenario.system.tick_hz,
        quantum=scenario.system.quantum,
        semaphores=tuple(kernel_semaphore(scenario, r) for r in scenario.resources),
        tasks=_kernel_tasks(scenario),
        queues=tuple(kernel_queue(q) for q in scenario.queues),
        events=tuple(e.name for e in scenario.events),
        timers=tuple(kernel_periodic(scenario, t) for t in scenario.timers),
        interrupts=tuple(kernel_periodic(scenario, i) for i in scenario.interrupts),
        timer_service_priority=scenario.system.timer_service_priority if scenario.timers else 0,
        timeshare=(
            scenario.system.timeshare_levels,
            scenario.system.timeshare_quantum,
            scenario.system.timeshare_decay,
        ),
        groups=tuple(g for g in scenario.system.groups if g[1] != 0),  # a group starts with none
    )


def arrival_interrupts(tasks: tuple[KernelTask, ...]) -> tuple[KernelPeriodic, ...]:
    """The sporadic tasks' arrivals after tick 0 as interrupts of the lab's:
    one per tick that has some, which releases each task arriving then
    (pr_task_release, in task order), after the scenario's own interrupts."""
    by_tick: dict[int, list[KernelAction]] = {}
    for index, task in enumerate(tasks):
        for tick in task.arrivals:
            if tick > 0:
                by_tick.setdefault(tick, []).append(KernelAction(native.PR_ACT_RELEASE, index, 0, 0))
    return tuple(KernelPeriodic("arrivals", tick, 0, 0, tuple(by_tick[tick])) for tick in sorted(by_tick))

"""Run a validated scenario on the kernel's host port, in process.

The scenario is compiled into kernel objects (one semaphore per resource, one
task per task, each running the kernel's scenario interpreter over its
actions), the kernel runs on its virtual clock, and the result keeps the
kernel's own trace plus one accounting row per job, computed from that trace
by the lab's C pass (lab/native/metrics.c). Nothing here re-implements the
kernel: what happened is what the trace says.
"""

from __future__ import annotations

from priora.errors import NativeError
from priora.record import field, record
from priora.run import native
from priora.run.compiled import (
    KernelAction,
    KernelPeriodic,
    KernelQueue,
    KernelSemaphore,
    KernelTask,
    arrival_interrupts,
    compile_scenario,
)
from priora.scenario.model import NS_PER_SECOND, Scenario

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from typing import Any

    import numpy as np

    from priora.costs.model import CostModel

# Run "until every job has finished" (no periodic task): the host port stops
# earlier, as soon as nothing can happen any more (quiescent).
UNBOUNDED_NS = 2**62


@record(frozen=True)
class SemaphoreCounters:
    """The kernel's pr_sem_stats of one semaphore, and the longest hold and
    the recovery time the job accounting measured."""

    ups: int
    downs: int
    max_waiters: int
    aborts: int  # rcs: holders whose section on it was aborted
    longest_hold_ns: int | None  # mutexes only
    recovery_ns: int = 0  # rcs: CPU time its aborted holders spent recovering


@record(frozen=True)
class ScriptCounters:
    """What the scenario interpreter counted for one task (pr_script_t),
    over the whole run."""

    timeouts: int
    errors: int
    aborts: int  # rcs: sections restarted after PR_EABORTED
    lost_ns: int  # rcs: CPU time spent in sections that were aborted


@record(frozen=True)
class QueueCounters:
    """The kernel's pr_msgq_status of one queue at the end of the run."""

    sends: int
    receives: int
    most_messages: int  # the most messages ever waiting in it at once
    send_waits: int  # sends that waited for room
    receive_waits: int  # receives that waited for a message
    messages: int  # messages left in it


@record(frozen=True)
class EventsCounters:
    """The kernel's pr_events_status of one event flags object at the end."""

    sets: int
    wakeups: int  # waits that a set satisfied
    flags: int  # the flags at the end


@record(frozen=True)
class TimerCounters:
    """The kernel's pr_timer_status of one software timer at the end."""

    expiries: int  # expiries whose body ran
    dropped: int  # expiries dropped: the previous one's body had not run yet
    max_lateness: int  # ticks: the latest a body started after its expiry
    failed: int = 0  # calls of its body that failed (no room, no unit, an error): its script's count


@record(frozen=True)
class InterruptCounters:
    """What one scenario interrupt did (pr_script_interrupt_t)."""

    runs: int  # how many times its body ran
    failed: int  # calls of its body that failed: its script's timeouts and errors


@record(frozen=True)
class ArrivalCounters:
    """The kernel's arrival counters of one task (pr_task_status) at the end."""

    arrivals: int  # jobs that arrived
    refused: int  # sporadic: pr_task_release calls refused as too early
    deferred: int  # sporadic: early calls deferred to the earliest allowed tick
    max_jitter: int  # ticks: the largest release - arrival
    misses: int = 0  # deadline misses
    hard_misses: int = 0  # ... of a hard task
    aborted: int = 0  # jobs aborted (a hard miss chose them, or their abort time)


@record(frozen=True)
class SimResult:
    """What one run produced. Times are kernel times in ns; the report converts.

    The trace and the job rows are kept as the C structures' bytes
    (pr_trace_record_t, pr_lab_job_t), which the report reads in C; `trace`
    and `jobs` are numpy's views of them (read-only), made when first asked
    for, so that a run read only by the report does not import numpy."""

    scenario: Scenario
    trace_records: bytes  # pr_trace_record_t records, in order
    job_rows: bytes  # pr_lab_job_t rows, in release order
    end_ns: int  # when the run stopped
    quiescent: bool  # stopped because nothing could happen any more
    busy_ns: int  # CPU time of tasks (not idle)
    context_switches: int
    priority_changes: int
    semaphores: tuple[SemaphoreCounters, ...]  # per resource, in model order
    scripts: tuple[ScriptCounters, ...]  # per task, in model order
    queues: tuple[QueueCounters, ...] = ()  # per queue, in model order
    events: tuple[EventsCounters, ...] = ()  # per event flags object, in model order
    timers: tuple[TimerCounters, ...] = ()  # per timer, in model order
    interrupts: tuple[InterruptCounters, ...] = ()  # per interrupt, in model order
    arrivals: tuple[ArrivalCounters, ...] = ()  # per task, in model order
    _arrays: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def trace(self) -> np.ndarray[Any, np.dtype[np.void]]:
        """The trace as native.TRACE_DTYPE records, in order."""
        return self._array("trace", self.trace_records, "TRACE_DTYPE")

    @property
    def jobs(self) -> np.ndarray[Any, np.dtype[np.void]]:
        """The job rows as native.JOB_DTYPE rows, in release order."""
        return self._array("jobs", self.job_rows, "JOB_DTYPE")

    @property
    def job_count(self) -> int:
        return len(self.job_rows) // int(native.ffi.sizeof("pr_lab_job_t"))

    @property
    def record_count(self) -> int:
        return len(self.trace_records) // int(native.ffi.sizeof("pr_trace_record_t"))

    def _array(self, key: str, data: bytes, dtype: str) -> np.ndarray[Any, np.dtype[np.void]]:
        made = self._arrays.get(key)
        if made is None:
            made = self._arrays[key] = native.records(data, dtype)
        return made  # type: ignore[no-any-return]


def _alloc_semaphore(lib: Any, k: KernelSemaphore, keep: list[Any]) -> None:
    attr = native.ffi.new("pr_sem_attr_t *")
    lib.pr_sem_attr_init(attr)
    name = native.ffi.new("char[]", k.name.encode())
    keep.append(name)
    attr.name = name
    attr.value = k.value
    attr.max = k.max
    attr.flags = k.flags
    attr.protocol = k.protocol
    attr.ceiling = k.ceiling
    sid = native.ffi.new("pr_id_t *")
    err = lib.pr_sem_alloc(attr, sid)
    if err != native.PR_OK:
        raise NativeError(f"the kernel refused resource {k.name}: {native.errname(err)}")
    if k.recovery:
        _set_recovery(lib, sid[0], k, keep)


def _set_recovery(lib: Any, sem: int, k: KernelSemaphore, keep: list[Any]) -> None:
    """The interpreter's recovery on an rcs mutex: its aborted holder computes
    k.recovery ns before the requester enters. The kernel keeps a pointer to
    the amount, which `keep` holds for the run."""
    amount = native.ffi.new("uint64_t *", k.recovery)
    keep.append(amount)
    recovery = native.ffi.new("pr_sem_recovery_t *", {"fn": lib.pr_script_recover, "arg": amount})
    err = lib.pr_sem_control(sem, native.PR_SEM_CTL_RECOVERY, recovery)
    if err != native.PR_OK:
        raise NativeError(f"the kernel refused the recovery of {k.name}: {native.errname(err)}")


def _fill_script(script: Any, body: tuple[KernelAction, ...], keep: list[Any]) -> None:
    # One initialiser for the whole array (pr_action_t's fields in order):
    # cffi fills it in C, faster than a field at a time from Python.
    actions = native.ffi.new(
        "pr_action_t[]", [(a.kind, a.sem, a.timeout, a.options, a.amount) for a in body] or 1
    )
    script.actions = actions
    script.count = len(body)
    keep.append(actions)


def _create_task(lib: Any, k: KernelTask, keep: list[Any]) -> Any:
    """Creates the task; returns its pr_script_t (the interpreter's counters)."""
    script = native.ffi.new("pr_script_t *")
    _fill_script(script, k.actions, keep)
    script.exec_spread = k.exec_spread
    script.exec_state = k.exec_seed
    bad = native.ffi.new("uint32_t *")
    if lib.pr_script_check(script, bad) != native.PR_OK:
        raise NativeError(f"the kernel refused the body of task {k.name} at action {bad[0]}")
    name = native.ffi.new("char[]", k.name.encode())
    keep.extend((script, name))

    attr = native.ffi.new("pr_task_attr_t *")
    lib.pr_task_attr_init(attr)
    attr.name = name
    attr.priority = k.priority
    attr.entry = lib.pr_script_body
    attr.arg = script
    attr.period = k.period
    attr.phase = k.phase
    attr.deadline = k.deadline
    attr.sched_class = k.sched_class
    attr.nice = k.nice
    attr.priv_group = k.priv_group
    attr.flags = k.flags
    attr.min_interarrival = k.min_interarrival
    attr.jitter = k.jitter
    attr.jitter_seed = k.jitter_seed
    attr.importance = k.importance
    attr.abort_time = k.abort_time
    attr.offset = k.offset
    tid = native.ffi.new("pr_id_t *")
    err = lib.pr_task_create(attr, tid)
    if err != native.PR_OK:
        raise NativeError(f"the kernel refused task {k.name}: {native.errname(err)}")
    return script


def _alloc_queue(lib: Any, k: KernelQueue, keep: list[Any]) -> None:
    attr = native.ffi.new("pr_msgq_attr_t *")
    lib.pr_msgq_attr_init(attr)
    name = native.ffi.new("char[]", k.name.encode())
    place = native.PR_SCRIPT_MSG_SIZE + 2 * native.ffi.sizeof("void *") + native.ffi.sizeof("int")
    word = native.ffi.sizeof("void *")
    size = k.length * ((place + word - 1) // word * word)  # PR_MSGQ_BUFFER_BYTES
    buffer = native.ffi.new("void *[]", size // word)  # aligned for a pointer
    keep.extend((name, buffer))
    attr.name = name
    attr.msg_size = native.PR_SCRIPT_MSG_SIZE
    attr.length = k.length
    attr.flags = k.flags
    attr.buffer = buffer
    attr.buffer_bytes = size
    qid = native.ffi.new("pr_id_t *")
    err = lib.pr_msgq_alloc(attr, qid)
    if err != native.PR_OK:
        raise NativeError(f"the kernel refused queue {k.name}: {native.errname(err)}")


def _alloc_events(lib: Any, name: str) -> None:
    eid = native.ffi.new("pr_id_t *")
    err = lib.pr_events_alloc(name.encode(), eid)
    if err != native.PR_OK:
        raise NativeError(f"the kernel refused event flags {name}: {native.errname(err)}")


def _once_script(lib: Any, k: KernelPeriodic, script: Any, keep: list[Any]) -> None:
    _fill_script(script, k.actions, keep)
    bad = native.ffi.new("uint32_t *")
    if lib.pr_script_check_once(script, bad) != native.PR_OK:
        raise NativeError(f"the kernel refused the body of {k.name} at action {bad[0]}")


def _create_timer(lib: Any, k: KernelPeriodic, keep: list[Any]) -> Any:
    """Allocates the timer, its body run by pr_script_timer_action, and arms
    it to expire at tick `phase` (the run starts at tick 0); returns its
    pr_script_t (what its body counted)."""
    script = native.ffi.new("pr_script_t *")
    _once_script(lib, k, script, keep)
    name = native.ffi.new("char[]", k.name.encode())
    keep.extend((script, name))
    attr = native.ffi.new("pr_timer_attr_t *")
    lib.pr_timer_attr_init(attr)
    attr.name = name
    attr.action = lib.pr_script_timer_action
    attr.arg = script
    attr.priority = k.priority
    attr.period = k.period
    tid = native.ffi.new("pr_id_t *")
    err = lib.pr_timer_alloc(attr, tid)
    if err == native.PR_OK:
        err = lib.pr_timer_start(tid[0], k.phase)
    if err != native.PR_OK:
        raise NativeError(f"the kernel refused timer {k.name}: {native.errname(err)}")
    return script


def _release_at_zero(lib: Any, tasks: tuple[KernelTask, ...]) -> None:
    """Arrivals at tick 0, which has no tick interrupt: from outside the
    kernel once every task exists, in task order."""
    for index, task in enumerate(tasks):
        for tick in task.arrivals:
            if tick == 0:
                lib.pr_task_release(index)  # an early one is refused or deferred, as the kernel says


def _set_interrupts(lib: Any, interrupts: tuple[KernelPeriodic, ...], keep: list[Any]) -> Any:
    """The scenario interrupts, run by the host port's tick hook; returns
    their pr_script_interrupt_t array (what they counted)."""
    if not interrupts:
        return None
    table = native.ffi.new("pr_script_interrupt_t[]", len(interrupts))
    for i, k in enumerate(interrupts):
        table[i].phase, table[i].period = k.phase, k.period
        _once_script(lib, k, native.ffi.addressof(table[i], "script"), keep)
    handle = native.ffi.new("pr_script_interrupts_t *", {"list": table, "count": len(interrupts)})
    keep.extend((table, handle))
    lib.pr_host_set_tick_hook(lib.pr_script_interrupts_tick, handle)
    return table


def failed_calls(script: Any) -> int:
    """Calls of a body that runs once that did not succeed: with PR_NO_WAIT,
    a full queue or a semaphore at its max is a failure like an error."""
    return int(script.timeouts) + int(script.errors)


def service_counters(lib: Any, scenario: Scenario, timer_scripts: list[Any]) -> tuple[
    tuple[QueueCounters, ...], tuple[EventsCounters, ...], tuple[TimerCounters, ...]
]:  # fmt: skip
    """What the kernel counted for every queue, event flags object and timer."""
    queues = []
    for i in range(len(scenario.queues)):
        q = native.ffi.new("pr_msgq_status_t *")
        lib.pr_msgq_status(i, q)
        queues.append(
            QueueCounters(
                int(q.sends),
                int(q.receives),
                int(q.most_messages),
                int(q.send_waits),
                int(q.receive_waits),
                int(q.messages),
            )  # fmt: skip
        )
    events = []
    for i in range(len(scenario.events)):
        e = native.ffi.new("pr_events_status_t *")
        lib.pr_events_status(i, e)
        events.append(EventsCounters(int(e.sets), int(e.wakeups), int(e.flags)))
    timers = []
    for i in range(len(scenario.timers)):
        t = native.ffi.new("pr_timer_status_t *")
        lib.pr_timer_status(i, t)
        timers.append(
            TimerCounters(
                int(t.expiries), int(t.dropped), int(t.max_lateness), failed_calls(timer_scripts[i])
            )
        )
    return tuple(queues), tuple(events), tuple(timers)


def script_counters(script: Any) -> ScriptCounters:
    return ScriptCounters(int(script.timeouts), int(script.errors), int(script.aborts), int(script.lost))


@record(frozen=True)
class Accounting:
    """What the lab's C pass (lab/native/metrics.c) computes from a trace."""

    job_rows: bytes  # pr_lab_job_t rows, in release order
    busy_ns: int
    longest_hold_ns: list[int]  # per resource (0 for a semaphore)
    recovery_ns: list[int]  # per resource: rcs recovery time

    @property
    def jobs(self) -> np.ndarray[Any, np.dtype[np.void]]:
        """The rows as native.JOB_DTYPE rows (numpy, read-only)."""
        return native.records(self.job_rows, "JOB_DTYPE")  # type: ignore[no-any-return]


def account(lib: Any, scenario: Scenario, trace: bytes, end_ns: int) -> Accounting:
    """The job rows and totals of `trace` (pr_trace_record_t records' bytes)
    of a run of `scenario` that ended at `end_ns`."""
    ffi = native.ffi
    records = ffi.cast("const pr_trace_record_t *", ffi.from_buffer(trace))
    nrecords = len(trace) // ffi.sizeof("pr_trace_record_t")
    njobs = int(lib.pr_lab_count_event(records, nrecords, native.EVENT["RELEASE"]))
    jobs = ffi.new("pr_lab_job_t[]", max(1, njobs))
    # The timer service task (kernel task len(tasks), when there are timers)
    # is accounted as a task with no deadline; its rows are dropped below.
    ntasks = len(scenario.tasks) + (1 if scenario.timers else 0)
    deadlines = ffi.new(
        "uint64_t[]",
        [scenario.ticks_to_ns(t.deadline or t.period or 0) if (t.deadline or t.period) else 0
         for t in scenario.tasks] + [0] * (ntasks - len(scenario.tasks)),
    )  # fmt: skip
    is_mutex = ffi.new("uint8_t[]", [r.kind == "mutex" for r in scenario.resources] + [False])
    holds = ffi.new("uint64_t[]", len(scenario.resources) + 1)
    recovery = ffi.new("uint64_t[]", len(scenario.resources) + 1)
    totals = ffi.new("pr_lab_totals_t *")
    err = lib.pr_lab_account(
        records, nrecords, ntasks, deadlines, len(scenario.resources), is_mutex, end_ns, jobs, njobs,
        holds, recovery, totals,
    )  # fmt: skip
    if err != 0:
        raise NativeError("the job accounting could not read the kernel trace")
    if scenario.timers:  # the timer service's job is no job of the file
        njobs = int(lib.pr_lab_jobs_of_tasks(jobs, njobs, len(scenario.tasks)))
    n = len(scenario.resources)
    rows = bytes(ffi.buffer(jobs, njobs * ffi.sizeof("pr_lab_job_t")))
    return Accounting(
        rows, int(totals.busy), [int(holds[i]) for i in range(n)], [int(recovery[i]) for i in range(n)]
    )


@record(frozen=True)
class HostCosts:
    """Overheads the host port charges in virtual time (ports/host's
    pr_host_set_costs): ns per context switch and per tick interrupt. With
    any nonzero cost, events at a tick's instant come in a real CPU's order
    (the tick first), as on the RISC-V port; the default is zero costs."""

    switch_ns: int = 0
    tick_ns: int = 0


@record
class _Loaded:
    """The kernel with a scenario's objects created, ready to run."""

    lib: Any
    keep: list[Any]  # C memory the kernel points to while it runs
    scripts: list[Any]  # per task, its pr_script_t
    timer_scripts: list[Any]  # per timer, its pr_script_t
    interrupts: Any  # the pr_script_interrupt_t array, or None
    compiled_interrupts: int

    def release(self) -> None:
        """Unhooks the interrupts; the C memory may go once this is called."""
        self.lib.pr_host_set_tick_hook(native.ffi.NULL, native.ffi.NULL)


def _load(scenario: Scenario, costs: HostCosts | CostModel | None) -> _Loaded:
    """Initialises the kernel and creates the scenario's objects in it."""
    lib = native.lib()
    system = scenario.system
    config = native.ffi.new(
        "pr_kernel_config_t *",
        {
            "tick_hz": system.tick_hz, "quantum": system.quantum, "timeshare_levels": system.timeshare_levels,
            "timeshare_quantum": system.timeshare_quantum, "timeshare_decay": system.timeshare_decay,
        },
    )  # fmt: skip
    err = lib.pr_host_init(config)
    if err != native.PR_OK:
        raise NativeError(f"the kernel refused tick_hz {scenario.system.tick_hz}: {native.errname(err)}")
    model = costs if costs is not None else scenario.system.cost_model
    tick_cost = model.tick_ns if isinstance(model, HostCosts) else model.tick if model is not None else 0
    if tick_cost * scenario.system.tick_hz >= NS_PER_SECOND:  # priora.costs.model.stalls: no progress
        raise ValueError(f"a tick cost of {tick_cost} ns leaves no time at tick_hz {scenario.system.tick_hz}")
    if isinstance(model, HostCosts):
        lib.pr_host_set_costs(
            native.ffi.new("pr_host_costs_t *", {"switch_ns": model.switch_ns, "tick_ns": model.tick_ns})
        )
    elif model is not None and not model.is_zero():
        from priora.costs.model import apply as apply_costs  # a cost model's import: only for one

        apply_costs(lib, scenario.resources, model)
    keep: list[Any] = []
    compiled = compile_scenario(scenario)
    for group, privileges in compiled.groups:
        err = lib.pr_priv_group_set(group, privileges)
        if err != native.PR_OK:
            raise NativeError(f"the kernel refused group {group}'s privileges: {native.errname(err)}")
    for sem in compiled.semaphores:
        _alloc_semaphore(lib, sem, keep)
    for queue in compiled.queues:
        _alloc_queue(lib, queue, keep)
    for events in compiled.events:
        _alloc_events(lib, events)
    scripts = [_create_task(lib, task, keep) for task in compiled.tasks]
    if compiled.timers:
        err = lib.pr_timer_service_start(compiled.timer_service_priority, native.ffi.NULL)
        if err != native.PR_OK:
            raise NativeError(f"the kernel refused the timer service task: {native.errname(err)}")
    timer_scripts = [_create_timer(lib, timer, keep) for timer in compiled.timers]
    interrupts = _set_interrupts(lib, compiled.interrupts + arrival_interrupts(compiled.tasks), keep)
    _release_at_zero(lib, compiled.tasks)
    return _Loaded(lib, keep, scripts, timer_scripts, interrupts, len(compiled.interrupts))


def _run(loaded: _Loaded, scenario: Scenario, horizon_ticks: int | None) -> tuple[int, bool]:
    """Runs the loaded kernel for `horizon_ticks` (default: the scenario's
    horizon); returns when it stopped (ns) and whether it was quiescent."""
    horizon = horizon_ticks if horizon_ticks is not None else scenario.horizon_ticks()
    until = scenario.ticks_to_ns(horizon) if horizon is not None else UNBOUNDED_NS
    quiescent = loaded.lib.pr_host_run_until(until) == 1
    return int(loaded.lib.pr_host_now()), quiescent


def simulate(
    scenario: Scenario, horizon_ticks: int | None = None, costs: HostCosts | CostModel | None = None
) -> SimResult:
    """Runs `scenario` on the host port for `horizon_ticks` (default: the
    scenario's horizon), charging `costs` (default: the file's cost model,
    zero without one), and returns what happened."""
    loaded = _load(scenario, costs)
    lib = loaded.lib
    end_ns, quiescent = _run(loaded, scenario, horizon_ticks)

    count = native.ffi.new("size_t *")
    records = lib.pr_host_trace(count)
    # Copied as bytes (one memcpy): the kernel reuses its buffer.
    trace = bytes(native.ffi.buffer(records, count[0] * native.ffi.sizeof("pr_trace_record_t")))
    accounted = account(lib, scenario, trace, end_ns)

    stats = native.ffi.new("pr_kernel_stats_t *")
    lib.pr_kernel_stats(stats)
    counters = []
    for i, r in enumerate(scenario.resources):
        s = native.ffi.new("pr_sem_stats_t *")
        lib.pr_sem_stats(i, s)
        hold = accounted.longest_hold_ns[i] if r.kind == "mutex" else None
        recovered = accounted.recovery_ns[i]
        counters.append(
            SemaphoreCounters(int(s.ups), int(s.downs), int(s.max_waiters), int(s.aborts), hold, recovered)
        )
    ran = tuple(script_counters(script) for script in loaded.scripts)
    queue_counters, events_counters, timer_counters = service_counters(lib, scenario, loaded.timer_scripts)
    interrupts = loaded.interrupts
    fired = tuple(
        InterruptCounters(int(interrupts[i].fired), failed_calls(interrupts[i].script))
        for i in range(loaded.compiled_interrupts)
    )
    arrivals = []
    for i in range(len(scenario.tasks)):
        st = native.ffi.new("pr_task_status_t *")
        lib.pr_task_status(i, st)
        arrivals.append(
            ArrivalCounters(
                int(st.arrivals),
                int(st.releases_refused),
                int(st.releases_deferred),
                int(st.max_jitter),
                int(st.deadline_misses),
                int(st.hard_misses),
                int(st.jobs_aborted),
            )
        )
    loaded.release()
    del loaded, interrupts
    return SimResult(
        scenario=scenario,
        trace_records=trace,
        job_rows=accounted.job_rows,
        end_ns=end_ns,
        quiescent=quiescent,
        busy_ns=accounted.busy_ns,
        context_switches=int(stats.context_switches),
        priority_changes=int(stats.priority_changes),
        semaphores=tuple(counters),
        scripts=ran,
        queues=queue_counters,
        events=events_counters,
        timers=timer_counters,
        interrupts=fired,
        arrivals=tuple(arrivals),
    )


@record(frozen=True)
class TaskVerdict:
    """One task's judged jobs in a run: what a campaign keeps of it."""

    jobs: int  # jobs released before the judged time
    misses: int  # of those, the jobs whose row says missed (1)
    worst_response_ns: int  # finish - release (up to the end for a job unfinished then); 0 without jobs
    worst_blocked_ns: int  # as the job rows' blocked; 0 without jobs


@record(frozen=True)
class Verdict:
    """The verdict of one run (lab/native/verdict.c): per task of the file,
    in model order, the same figures as its job rows (SimResult.jobs) reduced
    to the jobs released before `judged_ns`."""

    tasks: tuple[TaskVerdict, ...]
    end_ns: int  # when the run stopped
    judged_ns: int


def verdict(
    scenario: Scenario,
    horizon_ticks: int | None,
    judged_ticks: int,
    costs: HostCosts | CostModel | None = None,
) -> Verdict:
    """Runs `scenario` as `simulate` does and returns only its verdict: per
    task, the worst response, the worst blocked time and the misses of the
    jobs released before tick `judged_ticks`, computed in C from the kernel's
    trace in place, without the trace's copy or a row per job."""
    loaded = _load(scenario, costs)
    lib = loaded.lib
    # The records the verdict reads, only: the others are not even converted.
    lib.pr_host_trace_keep(lib.pr_lab_verdict_events())
    end_ns, _ = _run(loaded, scenario, horizon_ticks)
    ffi = native.ffi
    count = ffi.new("size_t *")
    records = lib.pr_host_trace(count)
    # Kernel tasks: the file's, then the timer service (when there are
    # timers), judged like the others and left out below.
    ntasks = len(scenario.tasks) + (1 if scenario.timers else 0)
    deadlines = ffi.new(
        "uint64_t[]",
        [scenario.ticks_to_ns(t.deadline or t.period or 0) for t in scenario.tasks]
        + [0] * (ntasks - len(scenario.tasks)),
    )
    out = ffi.new("pr_lab_verdict_t[]", max(1, ntasks))
    judged_ns = scenario.ticks_to_ns(judged_ticks)
    err = lib.pr_lab_verdict(records, count[0], ntasks, deadlines, end_ns, judged_ns, out)
    loaded.release()
    del loaded
    if err != 0:
        raise NativeError("the verdict could not read the kernel trace")
    tasks = tuple(
        TaskVerdict(int(v.jobs), int(v.misses), int(v.worst_response), int(v.worst_blocked))
        for v in (out[i] for i in range(len(scenario.tasks)))
    )
    return Verdict(tasks, end_ns, judged_ns)

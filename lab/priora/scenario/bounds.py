"""A simulation's work, estimated before it runs, and the limits above which
a command refuses it with one line naming the estimate, the limit and the
option that lifts it (docs/lab.md, "Limits").

Three figures bound a run of the kernel on the host port:

- the jobs it releases: each costs memory for its accounting row, its line
  of the report and the records of its release, switches and end (about
  BYTES_PER_JOB in all: a period-1 task over 10^7 ticks would need some
  20 GB);
- the actions its jobs run: each writes trace records (about
  BYTES_PER_ACTION kept per action), however little time it takes (a
  lock, an unlock);
- the ticks during which a task computes, which the host port takes one by
  one (about 25 ns each): the busy time of every job, stretched by the tick
  interrupt's cost. Idle stretches (phases, delays, the gaps between jobs)
  cost nothing: the port skips them (ports/host/clock.c), except in a
  scenario with interrupts, whose tick hook takes every tick.

The bodies of timers and interrupts count as actions, once per run.

The estimate is an upper bound computed from the model alone, in time
linear in the bodies.
"""

from __future__ import annotations

from priora.errors import PrioraError
from priora.record import record
from priora.scenario.model import NS_PER_SECOND, Periodic, Scenario, Task

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from fractions import Fraction

DEFAULT_MAX_JOBS = 1_000_000  # about 2 GB and 10 s from model to text report
DEFAULT_MAX_ACTIONS = 10_000_000  # about 0.8 GB of trace
DEFAULT_MAX_TICKS = 1_000_000_000  # about 25 s of ticks taken one by one
# Measured peaks of `priora simulate` (text report): 1.9 GB for 10^6 jobs of
# one action; 135 MB more for 1.8 * 10^6 more actions (lock, unlock).
BYTES_PER_JOB = 2_000
BYTES_PER_ACTION = 80


class WorkError(PrioraError):
    """A run estimated beyond a limit. One line."""


@record(frozen=True)
class Limits:
    max_jobs: int = DEFAULT_MAX_JOBS
    max_ticks: int = DEFAULT_MAX_TICKS
    max_actions: int = DEFAULT_MAX_ACTIONS


@record(frozen=True)
class Work:
    jobs: int  # released within the horizon, at most
    busy_ticks: int  # ticks during which a task computes, at most
    actions: int  # body actions the jobs run, at most

    @property
    def memory_bytes(self) -> int:
        return self.jobs * BYTES_PER_JOB + self.actions * BYTES_PER_ACTION


def task_jobs(task: Task, horizon: int | None) -> int:
    """The jobs `task` releases before `horizon` ticks (None: no end, only
    one-shot tasks then): a periodic task's releases at phase + k * period
    < horizon, a one-shot task's one release at its phase."""
    if horizon is not None and task.phase >= horizon:
        return 0
    if task.period is None or horizon is None:
        return 1
    return (horizon - 1 - task.phase) // task.period + 1


def periodic_runs(p: Periodic, horizon: int | None) -> int:
    """The runs of a timer's or an interrupt's body before `horizon` ticks
    (None: no end, one-shot timers only then)."""
    if horizon is not None and p.phase >= horizon:
        return 0
    if p.period == 0 or horizon is None:
        return 1
    return (horizon - 1 - p.phase) // p.period + 1


def jobs_released(scenario: Scenario, horizon: int | None) -> int:
    return sum(task_jobs(t, horizon) for t in scenario.tasks)


def _job_ticks(scenario: Scenario, task_index: int) -> int:
    """One job's computing, in ticks: its computes, and the recovery of each
    rcs mutex it locks (an aborted holder recovers once per section)."""
    task = scenario.tasks[task_index]
    recovery = {r.name: r.recovery for r in scenario.resources if r.protocol == "rcs"}
    ticks = 0
    for a in task.body:
        if a.kind == "compute":
            ticks += a.ticks
        elif a.kind == "lock" and a.resource is not None:
            ticks += recovery.get(a.resource, 0)
    return ticks


def _overhead_ns(scenario: Scenario, actions: int) -> int:
    """The kernel costs one job can be charged (cost models only): at most
    the largest cost per action, plus its release, switches and end."""
    model = scenario.system.cost_model
    if model is None or model.is_zero():
        return 0
    sems = [model.semaphore, *model.mutex.values()]
    largest = max(
        model.switch + model.preempt,
        *model.events.values(),
        *(max(c.take, c.take_failed, c.block, c.give, c.give_wake) for c in sems),
        0,
    )
    return (actions + 4) * largest


def estimate(scenario: Scenario) -> Work:
    """The work of simulating `scenario` to its horizon (the file's, the
    default, or --horizon's, as applied to the model)."""
    horizon = scenario.horizon_ticks()
    jobs = actions = 0
    ticks_part = overhead_part = 0  # busy = ticks_part + overhead_part / tick_ns, exactly
    hz = scenario.system.tick_hz
    for i, t in enumerate(scenario.tasks):
        n = task_jobs(t, horizon)
        jobs += n
        actions += n * len(t.body)
        ticks_part += n * (_job_ticks(scenario, i) + 1)
        overhead_part += n * _overhead_ns(scenario, len(t.body))
    # Exactly (a Fraction: its import only where there are overheads to add).
    busy: int | Fraction = ticks_part
    if overhead_part:
        from fractions import Fraction

        busy += Fraction(overhead_part * hz, NS_PER_SECOND)  # overhead_part / tick_ns
    for p in (*scenario.timers, *scenario.interrupts):
        actions += periodic_runs(p, horizon) * len(p.body)
    model = scenario.system.cost_model
    if model is not None and model.tick:
        from fractions import Fraction

        tick_ns = Fraction(NS_PER_SECOND, hz)
        busy *= tick_ns / (tick_ns - model.tick)  # checked < tick_ns (priora.costs.model.check_progress)
    ticks = int(busy) + 1
    if horizon is not None:
        # Interrupts: the port takes every tick (its tick hook runs them).
        ticks = horizon if scenario.interrupts else min(ticks, horizon)
    return Work(jobs, ticks, actions)


def check(scenario: Scenario, limits: Limits, shorter: str = "a shorter --horizon") -> Work:
    """The estimate, or WorkError when it exceeds a limit: one line with the
    estimate, the limit and the option that lifts it, or what else to do
    (`shorter`)."""
    work = estimate(scenario)
    if work.jobs > limits.max_jobs:
        raise WorkError(
            f"{scenario.source}: the run would release {work.jobs} jobs (about {_bytes(work.memory_bytes)} "
            f"of memory), more than --max-jobs {limits.max_jobs}: give --max-jobs {work.jobs} to run it "
            f"anyway, or {shorter}"
        )
    if work.actions > limits.max_actions:
        raise WorkError(
            f"{scenario.source}: the run would run {work.actions} actions (about {_bytes(work.memory_bytes)} "
            f"of memory), more than --max-actions {limits.max_actions}: give --max-actions {work.actions} "
            f"to run it anyway, or {shorter}"
        )
    if work.busy_ticks > limits.max_ticks:
        raise WorkError(
            f"{scenario.source}: the run would compute for up to {work.busy_ticks} ticks, more than "
            f"--max-ticks {limits.max_ticks}: give --max-ticks {work.busy_ticks} to run it anyway, "
            f"or {shorter}"
        )
    return work


def _bytes(n: int) -> str:
    if n >= 10**9:
        return f"{n / 1e9:.1f} GB"
    return f"{n / 1e6:.0f} MB"

"""A scenario on the real kernel under QEMU: `priora run FILE --target T`.

The scenario is compiled into a blob (priora.run.blob), which QEMU's generic
loader puts in RAM next to the scenario runner, an image built once per ISA
(ports/riscv/apps/scenario_runner.c): no relinking per scenario. The runner
creates the kernel objects, runs to the horizon on the CLINT's clock, keeps
the trace in RAM and prints it over the UART at the end. This module reads it
back into the host port's record array (priora.run.uart_trace) and computes the
same SimResult as priora.run.simulate, through the same C job accounting, so
that priora.report.build, the Gantt chart and the trace export work unchanged.
Times are the QEMU clock's: under -icount shift=0 one instruction is 1 ns,
the CLINT's mtime counts in 100 ns.

docs/qemu-run.md describes the whole path.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from functools import cache
from pathlib import Path

from priora.errors import PrioraError
from priora.limits import MAX_TASKS
from priora.record import field, record
from priora.run import blob, native, uart_trace
from priora.run.compiled import KernelScenario, compile_scenario
from priora.run.simulate import (
    ArrivalCounters,
    EventsCounters,
    InterruptCounters,
    QueueCounters,
    ScriptCounters,
    SemaphoreCounters,
    SimResult,
    TimerCounters,
    account,
)
from priora.scenario.model import PRIORITY_MAX, Scenario

ROOT = Path(__file__).resolve().parents[3]
RUNNER = "scenario_runner"
CROSS_GCC = "riscv64-unknown-elf-gcc"
DEFAULT_TIMEOUT = 120.0  # seconds of wall time for QEMU
TRACE_LABEL = "run"

# QEMU's exit statuses that the runner and the port give (scenario_runner.c,
# docs/riscv-port.md).
EXIT_STATUS = {
    2: "a task overflowed its stack",
    3: "an unexpected trap",
    4: "a bad context",
    10: "the runner refused the blob",
    11: "the kernel refused an object of the scenario",
    12: "the trace lost records",
    13: "the runner image overlaps the blob's region",
}


@record(frozen=True)
class Target:
    name: str  # as on the command line
    arch: str  # ports/riscv/Makefile's ARCH
    qemu: str  # the emulator's command


TARGETS = {
    "qemu-rv32": Target("qemu-rv32", "rv32", "qemu-system-riscv32"),
    "qemu-rv64": Target("qemu-rv64", "rv64", "qemu-system-riscv64"),
}


class RunError(PrioraError):
    """A run on a target that could not be done, or not completely: one line."""


# The limits the runner images are built with: kernel/include/priora/config.h's
# defaults, PR_CONFIG_MAX_TASKS and PR_CONFIG_PRIORITIES (the lab's own kernel
# has 1,024 tasks and 256 levels: scenario.MAX_TASKS, model.PRIORITY_MAX).
IMAGE_MAX_TASKS = 32
IMAGE_PRIORITY_MAX = 31


def check_image_limits(t: Target, kernel: KernelScenario) -> None:
    """Refuses, in one line, a scenario the image's kernel has no room for:
    more tasks (the timer service counted) or a priority above its levels."""
    service = [("the timer service", kernel.timer_service_priority)] if kernel.timers else []
    tasks = len(kernel.tasks) + len(service)
    if tasks > IMAGE_MAX_TASKS:
        counted = " (the timer service task counted)" if service else ""
        raise RunError(
            f"{t.name}: {tasks} tasks{counted}, the image's kernel has room for {IMAGE_MAX_TASKS} "
            f"(PR_CONFIG_MAX_TASKS); priora simulate runs up to {MAX_TASKS}"
        )
    priorities = [
        # the time-sharing band's levels 0 .. L-1 (its tasks' priorities are the kernel's)
        *(
            [(f"the time-sharing band (timeshare_levels = {kernel.timeshare[0]})", kernel.timeshare[0] - 1)]
            if kernel.timeshare[0]
            else []
        ),
        *((f"task {k.name}", k.priority) for k in kernel.tasks if k.sched_class == native.PR_CLASS_REALTIME),
        *service,
        *((f"the ceiling of {s.name}", s.ceiling) for s in kernel.semaphores),
        *((f"timer {p.name}", p.priority) for p in kernel.timers),
        *(
            (f"a message sent by {k.name}", a.amount)
            for k in kernel.tasks
            for a in k.actions
            if a.kind == native.ACTION_NUMBER["send"] and a.options & native.PR_ACT_SEND_PRIORITY
        ),
    ]
    for what, priority in priorities:
        if priority > IMAGE_PRIORITY_MAX:
            raise RunError(
                f"{t.name}: {what} has priority {priority}, the image's kernel has levels "
                f"0..{IMAGE_PRIORITY_MAX} (PR_CONFIG_PRIORITIES = {IMAGE_PRIORITY_MAX + 1}); "
                f"priora simulate runs up to {PRIORITY_MAX}"
            )


def target(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        raise RunError(f"unknown target {name!r} (expected {' or '.join(TARGETS)})") from None


# ---------------------------------------------------------------- the image


def build_dir(t: Target) -> Path:
    """build/riscv/ARCH in this checkout, or $PRIORA_RISCV_BUILD/ARCH."""
    override = os.environ.get("PRIORA_RISCV_BUILD")
    base = Path(override) if override else ROOT / "build" / "riscv"
    return base / t.arch


def image_path(t: Target) -> Path:
    return build_dir(t) / f"{RUNNER}.elf"


@cache
def _make(arch: str, image: Path) -> None:
    """make the runner image (once per process: make knows when it is up to date)."""
    command = [
        "make",
        "-s",
        "-C",
        str(ROOT / "ports" / "riscv"),
        f"ARCH={arch}",
        f"BUILD={image.parent}",
        str(image),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise RunError(f"cannot run make to build {image}: {exc.strerror or exc}") from None
    if done.returncode != 0:
        lines = [line.strip() for line in (done.stderr + done.stdout).splitlines() if line.strip()]
        # The compiler's first error says more than make's last line.
        why = next((line for line in lines if "error" in line.lower()), lines[-1] if lines else "")
        raise RunError(f"building {image} failed: {why or f'make exit status {done.returncode}'}")


def ensure_image(t: Target) -> Path:
    """The runner image of `t`, built (or brought up to date) with make when
    the cross compiler is there; an existing image is used as it is when not."""
    image = image_path(t)
    if not (ROOT / "ports" / "riscv").is_dir():  # the lab installed as a package
        if image.exists():
            return image
        raise RunError(
            f"{t.name}: the runner image {image} is missing, and it is built from Priora's "
            "repository (ports/riscv): run the lab from a checkout, or set PRIORA_RISCV_BUILD "
            "to a directory of built images"
        )
    if shutil.which(CROSS_GCC) is None or shutil.which("make") is None:
        if image.exists():
            return image
        raise RunError(
            f"{t.name}: the runner image {image} is missing and cannot be built: "
            f"{CROSS_GCC} or make not found (apt-get install gcc-riscv64-unknown-elf make)"
        )
    try:
        _make(t.arch, image)
    except RunError as exc:
        raise RunError(f"{t.name}: {exc}") from None
    return image


# ---------------------------------------------------------------- QEMU


def qemu_command(t: Target, image: Path, blob_file: Path) -> list[str]:
    """The QEMU command line of a run (docs/qemu-run.md)."""
    return [
        t.qemu,
        "-machine", "virt", "-bios", "none", "-nographic", "-m", "128M",
        "-icount", "shift=0,sleep=off",
        "-kernel", str(image),
        "-device", f"loader,file={blob_file},addr={blob.ADDRESS:#x},force-raw=on",
    ]  # fmt: skip


@record(frozen=True)
class Qemu:
    status: int
    output: str  # the UART, then QEMU's own stderr
    seconds: float


def run_blob(t: Target, image: Path, data: bytes, timeout: float, horizon: str = "") -> Qemu:
    """Runs `image` under QEMU with the blob `data` loaded."""
    if shutil.which(t.qemu) is None:
        raise RunError(f"{t.name}: {t.qemu} not found: install QEMU (apt-get install qemu-system-misc)")
    with tempfile.TemporaryDirectory(prefix="priora-run-") as tmp:
        blob_file = Path(tmp) / "scenario.blob"
        blob_file.write_bytes(data)
        start = time.monotonic()
        try:
            done = subprocess.run(
                qemu_command(t, image, blob_file),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            span = f" (a run of {horizon} of virtual time)" if horizon else ""
            raise RunError(
                f"{t.name}: QEMU did not finish within {timeout:g} s{span}: "
                "give a shorter --horizon or a longer --timeout"
            ) from None
        except OSError as exc:
            raise RunError(f"{t.name}: cannot run {t.qemu}: {exc.strerror or exc}") from None
        seconds = time.monotonic() - start
    text = done.stdout.decode("utf-8", errors="replace") + done.stderr.decode("utf-8", errors="replace")
    return Qemu(done.returncode, text, seconds)


# ---------------------------------------------------------------- the output

RESULT = re.compile(r"PRIORA-RUN stop=(quiescent|horizon)((?: \w+=\d+)+)$")
SEM = re.compile(r"PRIORA-RUN sem=(\d+) ups=(\d+) downs=(\d+) max_waiters=(\d+) aborts=(\d+)$")
TASK = re.compile(
    r"PRIORA-RUN task=(\d+) timeouts=(\d+) errors=(\d+) aborts=(\d+) lost=(\d+) arrivals=(\d+) refused=(\d+) "
    r"deferred=(\d+) max_jitter=(\d+) misses=(\d+) hard_misses=(\d+) aborted=(\d+)$"
)
QUEUE = re.compile(
    r"PRIORA-RUN queue=(\d+) sends=(\d+) receives=(\d+) most_messages=(\d+) send_waits=(\d+) "
    r"receive_waits=(\d+) messages=(\d+)$"
)
EVENTS = re.compile(r"PRIORA-RUN events=(\d+) sets=(\d+) wakeups=(\d+) flags=(\d+)$")
TIMER = re.compile(r"PRIORA-RUN timer=(\d+) expiries=(\d+) dropped=(\d+) max_lateness=(\d+) failed=(\d+)$")
INTERRUPT = re.compile(r"PRIORA-RUN interrupt=(\d+) runs=(\d+) failed=(\d+)$")
ERROR = re.compile(r"scenario_runner: error: (.*)$")


@record(frozen=True)
class RunnerOutput:
    """What the runner printed after its run."""

    trace: uart_trace.UartRun
    quiescent: bool
    end_ns: int
    context_switches: int
    priority_changes: int
    trace_capacity: int
    semaphores: dict[int, tuple[int, int, int, int]]  # id: ups, downs, max_waiters, aborts
    scripts: dict[int, ScriptCounters]  # task id: its script's counters
    arrivals: dict[int, ArrivalCounters] = field(default_factory=dict)  # task id: pr_task_status's
    queues: dict[int, QueueCounters] = field(default_factory=dict)
    events: dict[int, EventsCounters] = field(default_factory=dict)
    timers: dict[int, TimerCounters] = field(default_factory=dict)
    interrupts: dict[int, InterruptCounters] = field(default_factory=dict)


def _last_words(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def read_output(name: str, q: Qemu) -> RunnerOutput:
    """The runner's trace and counters from its UART output, or the one-line
    error that says why there are none (or not all)."""
    lines = [line.strip() for line in q.output.splitlines()]
    errors = [m[1] for line in lines if (m := ERROR.match(line))]
    if q.status == 13:
        why = errors[0] if errors else EXIT_STATUS[13]
        raise RunError(f"{name}: the runner image cannot be used: {why} (QEMU exit status 13)")
    if q.status in (10, 11) or (errors and q.status != 12):
        why = errors[0] if errors else EXIT_STATUS.get(q.status, "")
        raise RunError(f"{name}: the runner refused the scenario: {why} (QEMU exit status {q.status})")
    try:
        runs = uart_trace.parse(q.output)
    except uart_trace.UartTraceError as exc:
        raise RunError(f"{name}: the trace on the UART is broken: {exc}") from None
    result = next((m for line in lines if (m := RESULT.match(line))), None)
    if q.status not in (0, 12) or result is None or "PRIORA-RUN done" not in lines or len(runs) != 1:
        what = EXIT_STATUS.get(q.status, "the run did not complete")
        raise RunError(f"{name}: QEMU exit status {q.status} ({what}): {_last_words(q.output)}")
    run = runs[0]
    fields = dict(pair.split("=") for pair in result[2].split())
    capacity = int(fields["trace_capacity"])
    if run.lost:
        raise RunError(
            f"{name}: the trace lost {run.lost} records: the runner keeps {capacity} in RAM beyond the "
            "kernel's ring; give a shorter --horizon"
        )
    if found := uart_trace.problems(run):
        raise RunError(f"{name}: the trace on the UART is not complete: {'; '.join(found)}")
    sems = {
        int(m[1]): (int(m[2]), int(m[3]), int(m[4]), int(m[5])) for line in lines if (m := SEM.match(line))
    }
    tasks = [m for line in lines if (m := TASK.match(line))]
    scripts = {int(m[1]): ScriptCounters(int(m[2]), int(m[3]), int(m[4]), int(m[5])) for m in tasks}
    arrivals = {int(m[1]): ArrivalCounters(*(int(g) for g in m.groups()[5:])) for m in tasks}

    def numbers(pattern: re.Pattern[str]) -> dict[int, list[int]]:
        return {int(m[1]): [int(g) for g in m.groups()[1:]] for line in lines if (m := pattern.match(line))}

    return RunnerOutput(
        queues={i: QueueCounters(*v) for i, v in numbers(QUEUE).items()},
        events={i: EventsCounters(*v) for i, v in numbers(EVENTS).items()},
        timers={i: TimerCounters(*v) for i, v in numbers(TIMER).items()},
        interrupts={i: InterruptCounters(*v) for i, v in numbers(INTERRUPT).items()},
        trace=run,
        quiescent=result[1] == "quiescent",
        end_ns=int(fields["end_ns"]),
        context_switches=int(fields["context_switches"]),
        priority_changes=int(fields["priority_changes"]),
        trace_capacity=capacity,
        semaphores=sems,
        scripts=scripts,
        arrivals=arrivals,
    )


# ---------------------------------------------------------------- the run


@record(frozen=True)
class QemuResult:
    result: SimResult
    wall_seconds: float  # QEMU's wall time
    records: int


def run(scenario: Scenario, target_name: str, *, timeout: float = DEFAULT_TIMEOUT) -> QemuResult:
    """Runs `scenario` (to its horizon, or until nothing can happen any more)
    on the target and returns what happened, as priora.run.simulate would."""
    t = target(target_name)
    horizon = scenario.horizon_ticks()
    kernel = compile_scenario(scenario)
    check_image_limits(t, kernel)
    try:
        data = blob.encode(kernel, horizon)
    except blob.BlobError as exc:
        raise RunError(f"{t.name}: {exc}") from None
    image = ensure_image(t)
    span = "" if horizon is None else f"{horizon} ticks"
    q = run_blob(t, image, data, timeout, span)
    out = read_output(t.name, q)
    return QemuResult(result(scenario, out), q.seconds, len(out.trace.records))


def result(scenario: Scenario, out: RunnerOutput) -> SimResult:
    """The SimResult of a run, from the runner's output (the job accounting
    is the lab's C pass over the trace, as for the host port)."""
    service = 1 if scenario.timers else 0  # the timer service task, after the file's tasks
    if (
        len(out.trace.tasks) != len(scenario.tasks) + service
        or len(out.semaphores) != len(scenario.resources)
        or sorted(out.scripts) != list(range(len(scenario.tasks)))
        or sorted(out.queues) != list(range(len(scenario.queues)))
        or sorted(out.events) != list(range(len(scenario.events)))
        or sorted(out.timers) != list(range(len(scenario.timers)))
        or sorted(out.interrupts) != list(range(len(scenario.interrupts)))
    ):
        raise RunError("the runner's objects are not the scenario's")
    trace = out.trace.records
    accounted = account(native.lib(), scenario, trace.tobytes(), out.end_ns)
    counters = tuple(
        SemaphoreCounters(
            *out.semaphores[i],
            accounted.longest_hold_ns[i] if r.kind == "mutex" else None,
            accounted.recovery_ns[i],
        )
        for i, r in enumerate(scenario.resources)
    )
    return SimResult(
        scenario=scenario,
        trace_records=trace.tobytes(),
        job_rows=accounted.job_rows,
        end_ns=out.end_ns,
        quiescent=out.quiescent,
        busy_ns=accounted.busy_ns,
        context_switches=out.context_switches,
        priority_changes=out.priority_changes,
        semaphores=counters,
        scripts=tuple(out.scripts[i] for i in range(len(scenario.tasks))),
        queues=tuple(out.queues[i] for i in range(len(scenario.queues))),
        events=tuple(out.events[i] for i in range(len(scenario.events))),
        timers=tuple(out.timers[i] for i in range(len(scenario.timers))),
        interrupts=tuple(out.interrupts[i] for i in range(len(scenario.interrupts))),
        arrivals=tuple(out.arrivals[i] for i in range(len(scenario.tasks))),
    )

"""Running a campaign: the sets not yet in the database, on every local core
(one kernel per process) or on a Ray cluster, each set's rows written as it
comes back, with a progress line.

The work is estimated first, from a few sets of each point, and a campaign
beyond the limit is refused with the estimate and the option that lifts it.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Generator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, TextIO

from priora.campaign import db
from priora.campaign.evaluate import Row, evaluate, run_horizon, set_scenario
from priora.campaign.spec import Campaign
from priora.errors import PrioraError
from priora.generate import GenerateError, derive_seed, generate
from priora.record import record

# The largest estimate of simulated jobs a campaign may have without
# --max-jobs: some minutes on a laptop's cores.
DEFAULT_MAX_JOBS = 200_000_000
SAMPLE = 4  # sets of each point generated to estimate the work


class CampaignError(PrioraError):
    """A campaign that cannot run as asked (too big, interrupted, ...). One line."""


@record(frozen=True)
class Estimate:
    sets: int  # sets still to run
    runs: int  # simulations: sets x protocols
    jobs: int  # simulated jobs, estimated

    def describe(self) -> str:
        return f"{self.sets} sets, {self.runs} simulations, about {_count(self.jobs)} simulated jobs"


def _count(n: int) -> str:
    if n >= 10**9:
        return f"{n / 1e9:.1f} billion"
    if n >= 10**6:
        return f"{n / 1e6:.1f} million"
    return str(n)


def estimate(campaign: Campaign, todo: list[tuple[int, int]]) -> Estimate:
    """The jobs the remaining sets will simulate, from the first SAMPLE sets
    of each point: their run lengths and periods."""
    from priora.breakdown.search import window

    per_point: dict[int, int] = {}
    for point in sorted({p for p, _ in todo}):
        counts = []
        for set_index in range(min(SAMPLE, campaign.sets)):
            try:
                ts = generate(campaign.params[point], derive_seed(campaign.seed, point, set_index))
            except GenerateError:
                continue
            scenario = set_scenario(campaign, point, set_index, ts.toml())
            w = window(scenario.with_horizon(run_horizon(campaign, scenario)))
            assert w.run is not None
            counts.append(sum((w.run - t.phase) // t.period + 1 for t in scenario.tasks if t.period))
        per_point[point] = sum(counts) // max(1, len(counts))
    simulated = len(campaign.protocols) if "simulation" in campaign.runs else 0
    jobs = sum(per_point[p] for p, _ in todo) * simulated
    return Estimate(len(todo), len(todo) * simulated, jobs)


# ---------------------------------------------------------------- progress


class Progress:
    """Sets done, rate and time left: one line rewritten in place on a
    terminal, else a plain line at every tenth of the work (a log)."""

    def __init__(
        self, total: int, already: int, stream: TextIO, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.total = total
        self.already = already
        self.done = already
        self.stream = stream
        self.clock = clock
        self.start = clock()
        self.terminal = stream.isatty()
        self.shown = 0.0
        self.tenth = -1

    def update(self, done: int) -> None:
        self.done = done
        now = self.clock()
        if self.terminal:
            if now - self.shown >= 0.2 or done == self.total:
                self.shown = now
                self.stream.write(f"\r{self._line(now)}\033[K")
                self.stream.flush()
            return
        tenth = 10 * done // max(1, self.total)
        if tenth != self.tenth:
            self.tenth = tenth
            self.stream.write(f"campaign: {self._line(now)}\n")
            self.stream.flush()

    def close(self) -> None:
        if self.terminal:
            self.stream.write("\n")
            self.stream.flush()

    def _line(self, now: float) -> str:
        ran = self.done - self.already
        elapsed = max(now - self.start, 1e-9)
        rate = ran / elapsed
        left = (self.total - self.done) / rate if rate > 0 else None
        percent = 100 * self.done // max(1, self.total)
        eta = "-" if left is None else _duration(left)
        return f"{self.done}/{self.total} sets ({percent}%), {rate:.1f} sets/s, {eta} left"


def _duration(seconds: float) -> str:
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


# ---------------------------------------------------------------- workers

_WORKER: Campaign | None = None


def _init_worker(campaign: Campaign) -> None:
    """A worker ignores Ctrl-C: the main process stops the campaign, and a
    set under way finishes (its rows are then dropped, not half written)."""
    import signal

    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER = campaign


def _work(point: int, set_index: int) -> list[Row]:
    assert _WORKER is not None
    return evaluate(_WORKER, point, set_index)


def _local(campaign: Campaign, todo: list[tuple[int, int]], jobs: int) -> Generator[list[Row], None, None]:
    """Each set's rows as they come back: in this process for one job, else
    from `jobs` worker processes, a few sets queued ahead for each."""
    if jobs == 1:
        for point, set_index in todo:
            yield evaluate(campaign, point, set_index)
        return
    import multiprocessing

    # spawn: a fresh interpreter per worker, so no kernel state or lock is
    # inherited from this process; each worker then loads its own kernel.
    context = multiprocessing.get_context("spawn")
    pending: set[Future[list[Row]]] = set()
    queue = iter(todo)
    with ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_init_worker, initargs=(campaign,)
    ) as pool:
        try:
            while True:
                while len(pending) < 4 * jobs:
                    item = next(queue, None)
                    if item is None:
                        break
                    pending.add(pool.submit(_work, *item))
                if not pending:
                    return
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield future.result()
        finally:
            for future in pending:
                future.cancel()


def _ray(campaign: Campaign, todo: list[tuple[int, int]], address: str) -> Generator[list[Row], None, None]:
    """The same sets as Ray tasks on the cluster at `address` (each Ray
    worker is a process with its own kernel); rows come back as for _local.

    The workers import priora from their own environment, so each node needs
    the lab installed. $PRIORA_NATIVE_LIB, when set here, goes with the tasks
    (Ray's runtime_env), so that they run the kernel this process would."""
    import importlib
    import logging

    # Ray's C++ core logs its warnings on stderr; the command's own lines
    # say what went wrong (the user may still ask for Ray's with the variable).
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")
    try:
        # Typed as Any: Ray's annotations are partial, and the lab type-checks
        # the same with Ray installed or not.
        ray: Any = importlib.import_module("ray")
    except ImportError:
        raise CampaignError("--ray needs Ray: pip install 'priora[cluster]' (or pip install ray)") from None

    _check_reachable(address)
    library = os.environ.get("PRIORA_NATIVE_LIB")
    runtime_env = {"env_vars": {"PRIORA_NATIVE_LIB": library}} if library else None
    # A cluster on this machine's loopback: the driver's node address is
    # given, or Ray would look for it by reaching out to public resolvers.
    host = address.rpartition(":")[0]
    local = {"_node_ip_address": "127.0.0.1"} if host == "localhost" or host.startswith("127.") else {}
    try:
        ray.init(
            address=address,
            runtime_env=runtime_env,
            ignore_reinit_error=True,
            log_to_driver=False,
            logging_level=logging.WARNING,
            **local,
        )
    except Exception as exc:  # Ray raises many kinds: a wrong address, a refused connection
        raise CampaignError(f"--ray {address}: cannot connect: {' '.join(str(exc).split())}") from None
    remote = ray.remote(evaluate)
    shared = ray.put(campaign)
    try:
        in_flight = max(8, 4 * int(ray.cluster_resources().get("CPU", 1)))
        queue = iter(todo)
        pending: dict[Any, tuple[int, int]] = {}  # the task of each set under way
        while True:
            while len(pending) < in_flight:
                item = next(queue, None)
                if item is None:
                    break
                pending[remote.remote(shared, *item)] = item
            if not pending:
                return
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                point, set_index = pending.pop(ref)
                try:
                    rows: list[Row] = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    # A task's exception comes back with the worker's traceback: keep its last line.
                    cause = getattr(exc, "cause", None)
                    reason = str(cause) if cause is not None else str(exc).strip().splitlines()[-1]
                    raise CampaignError(
                        f"--ray {address}: point {point} set {set_index} failed on a worker: {reason}"
                    ) from None
                yield rows
    finally:
        ray.shutdown()


def _check_reachable(address: str) -> None:
    """A HOST:PORT nobody listens on is refused at once: ray.init would try
    for minutes, printing its retries."""
    import socket

    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "/" in host:  # "auto", "ray://...": Ray's own forms
        return
    try:
        socket.create_connection((host, int(port)), timeout=10).close()
    except OSError as exc:
        raise CampaignError(f"--ray {address}: cannot connect: {exc.strerror or exc}") from None


# ---------------------------------------------------------------- the campaign


@record(frozen=True)
class Outcome:
    ran: int  # sets run this time
    done: int  # sets in the database now
    total: int
    estimate: Estimate
    stopped: bool  # by --limit, before the end


def run(
    campaign: Campaign,
    path: Path,
    *,
    jobs: int | None = None,
    limit: int | None = None,
    max_jobs: int = DEFAULT_MAX_JOBS,
    progress: TextIO | None = None,
    ray_address: str | None = None,
) -> Outcome:
    """Runs the sets of `campaign` not yet in the database at `path` (at most
    `limit` of them), on `jobs` processes (default: every core), or on the
    Ray cluster at `ray_address`."""
    con = db.create_or_check(path, campaign)
    try:
        already = db.done(con)
        todo = [
            (p, s) for p in range(len(campaign.points)) for s in range(campaign.sets) if (p, s) not in already
        ]
        if limit is not None:
            todo = todo[:limit]
        work = estimate(campaign, todo)
        if work.jobs > max_jobs:
            raise CampaignError(
                f"{campaign.source}: the campaign would run {work.describe()}, more than the limit of "
                f"{_count(max_jobs)} jobs: give --max-jobs {work.jobs} to run it anyway, or fewer sets, "
                "points or a shorter horizon"
            )
        workers = jobs if jobs is not None else (os.cpu_count() or 1)
        bar = Progress(campaign.total_sets, len(already), progress or sys.stderr)
        done = len(already)
        source = _ray(campaign, todo, ray_address) if ray_address else _local(campaign, todo, workers)
        try:
            for rows in source:
                db.insert(con, rows)
                done += 1
                bar.update(done)
        except KeyboardInterrupt:
            raise CampaignError(
                f"interrupted: {done} of {campaign.total_sets} sets are in {path}; "
                "run the same command again to go on from there"
            ) from None
        finally:
            source.close()
            bar.close()
        return Outcome(done - len(already), done, campaign.total_sets, work, done < campaign.total_sets)
    finally:
        con.close()

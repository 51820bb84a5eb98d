"""`priora breakdown`: the largest value of a task's field (its execution
time, a section, a body action, its period or deadline) at which every
deadline is still met, by analysis and on the kernel (priora.breakdown).

    priora breakdown FILE --vary TASK.FIELD [--protocol P ...] [--json] [--synchronous]
                     [--ignore TASK ...] [--cost-model M [--cpu-hz HZ]]
                     [--format text|markdown] [--csv DIR]
                     [--max-jobs N] [--max-actions N] [--max-ticks N]
"""

from __future__ import annotations

from priora import inputs
from priora.cli import writing
from priora.cli.options import Arg, UsageError, limit_options, protocols_option, table_options

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    import argparse

    from priora.cli.options import Handler
    from priora.scenario.model import Scenario

COST_MODELS = ("zero", "rtmach93", "measured")  # priora.costs.model.NAMES
BREAKDOWN_MAX_JOBS = 2_000_000  # priora.breakdown.search.MAX_JOBS_PER_RUN: its runs keep no report


def arguments(command: str) -> tuple[list[Arg], Handler]:
    return [
        Arg("file", metavar="FILE", help="scenario file (TOML)"),
        Arg(
            "--vary",
            required=True,
            metavar="TASK.FIELD",
            help="what to vary: TASK.wcet, TASK.section.MUTEX, TASK.body[i], TASK.period or TASK.deadline",
        ),
        protocols_option("only these protocols", "every one the lab simulates"),
        Arg("--json", action="store_true", help="print the breakdown as one JSON document"),
        Arg("--synchronous", action="store_true", help="release every task at 0 (ignore the file's phases)"),
        Arg(
            "--ignore",
            action="extend",
            nargs="+",
            default=[],
            metavar="TASK",
            help="do not judge these tasks' deadlines (their misses do not count)",
        ),
        Arg(
            "--cost-model",
            choices=COST_MODELS,
            help="the kernel's costs in the simulations (default: the file's [system] cost_model)",
        ),
        Arg(
            "--cpu-hz",
            type=inputs.integer("--cpu-hz"),
            metavar="HZ",
            help="the CPU clock rate, for --cost-model measured",
        ),
        *table_options(),
        *limit_options("refuse a simulation estimated to", BREAKDOWN_MAX_JOBS),
    ], _breakdown


def with_cost_model(scenario: Scenario, name: str, cpu_hz: int | None) -> Scenario:
    """The scenario under the cost model --cost-model NAME [--cpu-hz HZ]."""
    from priora.costs import model as costs
    from priora.record import replace

    if name == "measured" and cpu_hz is None:
        raise UsageError("--cost-model measured: give the CPU's clock rate with --cpu-hz")
    if name != "measured" and cpu_hz is not None:
        raise UsageError("--cpu-hz: only with --cost-model measured")
    if cpu_hz is not None and cpu_hz <= 0:
        raise UsageError(f"--cpu-hz: must be > 0, got {cpu_hz}")
    model = costs.named(name, cpu_hz, tick_hz=scenario.system.tick_hz)
    problem = costs.stalls(model, scenario.system.tick_hz)
    if problem is not None:
        raise UsageError(f"--cpu-hz: {cpu_hz}: {problem}")
    return replace(scenario, system=replace(scenario.system, cost_model=model))


def _breakdown(args: argparse.Namespace) -> str:
    from priora.breakdown.output import breakdown_json, breakdown_sections
    from priora.breakdown.search import breakdown
    from priora.scenario.bounds import Limits
    from priora.scenario.loader import load

    writing.check_tables(args)
    # Every run has its own horizon (it changes with a period): none is checked here.
    scenario = load(args.file, check_default_horizon=False)
    if args.cost_model is not None:
        scenario = with_cost_model(scenario, args.cost_model, args.cpu_hz)
    elif args.cpu_hz is not None:
        raise UsageError("--cpu-hz: only with --cost-model measured")
    limits = Limits(args.max_jobs, args.max_ticks, args.max_actions)
    result = breakdown(
        scenario,
        args.vary,
        args.protocol,
        synchronous_release=args.synchronous,
        ignore=args.ignore,
        limits=limits,
    )
    if not args.json:
        return writing.tables(args, breakdown_sections(result))
    if args.csv is not None:
        writing.tables(args, breakdown_sections(result))
    protocols = list(result.protocols)
    about = writing.provenance(
        args, "breakdown", None, target="host", protocol=protocols, cost_model=result.cost_model
    )
    return breakdown_json(result, about)

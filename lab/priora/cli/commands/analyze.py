"""`priora analyze`: the schedulability analysis of a scenario file, per
protocol (priora.analysis): blocking, response times and tests.

    priora analyze FILE [--json] [--protocol P ...] [--format text|markdown] [--csv DIR]
"""

from __future__ import annotations

from priora.cli import writing
from priora.cli.options import ANALYSIS_PROTOCOLS, Arg, protocols_option, table_options

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    import argparse

    from priora.cli.options import Handler


def arguments(command: str) -> tuple[list[Arg], Handler]:
    return [
        Arg("file", metavar="FILE", help="scenario file (TOML)"),
        Arg("--json", action="store_true", help="print the analysis as one JSON document"),
        protocols_option("analyse only these protocols", "all"),
        *table_options(),
    ], _analyze


def _analyze(args: argparse.Namespace) -> str:
    from priora.analysis import analysis_json, analysis_sections, analyze
    from priora.scenario.loader import load

    writing.check_tables(args)
    # Nothing runs, so a default horizon beyond the host port's clock does not matter.
    scenario = load(args.file, check_default_horizon=False)
    protocols: list[str] = args.protocol or list(ANALYSIS_PROTOCOLS)
    result = analyze(scenario, protocols)
    if not args.json:
        return writing.tables(args, analysis_sections(result))
    if args.csv is not None:
        writing.tables(args, analysis_sections(result))
    # Nothing runs and nothing costs: no target, no cost model.
    about = writing.provenance(args, "analysis", None, protocol=list(result.protocols))
    return analysis_json(result, about)

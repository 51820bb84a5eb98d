"""Schedulability analysis of a scenario's task set (`priora analyze`,
docs/analysis.md).

    from priora.analysis import analyze, analysis_text, analysis_json
    result = analyze(load("examples/rtmach_benchmark1.toml"))
    result.protocols["pip"].tasks["A"].response      # R_A in ticks

For each locking protocol (none, pip, pcp, ipcp, npcs, rcs), whatever the
file's own protocol: the blocking term B_i of every task from the tasks'
critical sections, its worst-case response time R_i against its deadline,
and the fixed-priority and EDF tests. Times are integers in ticks inside; the
output converts them to the file's time unit.
"""

from __future__ import annotations

from priora.analysis.blocking import PROTOCOLS, Term
from priora.analysis.core import TESTS, Analysis, ProtocolResult, TaskResult, analyze
from priora.analysis.fixed_priority import Test
from priora.analysis.output import analysis_dict, analysis_json, analysis_sections, analysis_text, schema
from priora.analysis.taskset import AnalysisError

__all__ = [
    "PROTOCOLS",
    "TESTS",
    "Analysis",
    "AnalysisError",
    "ProtocolResult",
    "TaskResult",
    "Term",
    "Test",
    "analysis_dict",
    "analysis_json",
    "analysis_sections",
    "analysis_text",
    "analyze",
    "schema",
]

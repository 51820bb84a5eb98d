"""Priora's lab: scenario files, simulation on the Priora kernel, reports.

The names below are imported when first used, not with the package: every
`priora` command starts by importing it, and `priora --version` needs none
of them.
"""

from __future__ import annotations

__version__ = "0.1.0"  # the package's version (pyproject.toml reads it here)

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from priora.errors import NativeError, PrioraError, ScenarioError
    from priora.scenario.model import Action, Resource, Scenario, System, Task

_DEFINED_IN = {
    "NativeError": "priora.errors",
    "PrioraError": "priora.errors",
    "ScenarioError": "priora.errors",
    "Action": "priora.scenario.model",
    "Resource": "priora.scenario.model",
    "Scenario": "priora.scenario.model",
    "System": "priora.scenario.model",
    "Task": "priora.scenario.model",
}

__all__ = [
    "Action",
    "NativeError",
    "PrioraError",
    "Resource",
    "Scenario",
    "ScenarioError",
    "System",
    "Task",
    "__version__",
]


def __getattr__(name: str) -> object:
    home = _DEFINED_IN.get(name)
    if home is None:
        raise AttributeError(f"module 'priora' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)

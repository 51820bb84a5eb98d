"""Priora's lab: scenario files, simulation on the Priora kernel, reports."""

from priora.errors import NativeError, PrioraError, ScenarioError
from priora.model import Action, Resource, Scenario, System, Task

__all__ = [
    "Action",
    "NativeError",
    "PrioraError",
    "Resource",
    "Scenario",
    "ScenarioError",
    "System",
    "Task",
]

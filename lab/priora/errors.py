"""Errors a user can cause. The CLI prints them as one line and exits 2; a
Python traceback is never shown for a user's mistake."""

from __future__ import annotations

import json
import sys


class PrioraError(Exception):
    """Base of every error meant for the user."""


class ScenarioError(PrioraError):
    """A scenario file is invalid. The message names the file, where in it
    (table and field, or line for malformed TOML) and the reason:

        examples/bad.toml: [tasks.H] period: must be > 0, got -5
    """

    def __init__(self, source: str, where: str, reason: str) -> None:
        self.source = source
        self.where = where
        self.reason = reason
        super().__init__(f"{source}: {where}: {reason}" if where else f"{source}: {reason}")


class NativeError(PrioraError):
    """The native kernel library is missing, or refused something."""


def describe_value(value: object) -> str:
    """A TOML value's type and value, for 'must be ..., got ...' messages
    (the scenario loader's and the cost model's)."""
    if isinstance(value, bool):  # before int: bool is an int in Python
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, int):
        return f"an integer ({value})"
    decimal = sys.modules.get("decimal")  # a TOML float is a Decimal: none without decimal imported
    if decimal is not None and isinstance(value, decimal.Decimal):
        return f"a float ({value})"
    if isinstance(value, str):
        return f"a string ({json.dumps(value)})"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return "a date/time"


class SpecError(PrioraError):
    """A generator or campaign specification is invalid. One line, in the
    scenario loader's form: the file, where in it, the reason:

        campaign.toml: [generator] utilisation: must be > 0, got -1
    """

    def __init__(self, source: str, where: str, reason: str) -> None:
        self.source = source
        self.where = where
        self.reason = reason
        super().__init__(f"{source}: {where}: {reason}" if where else f"{source}: {reason}")

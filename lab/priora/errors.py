"""Errors a user can cause. The CLI prints them as one line and exits 2; a
Python traceback is never shown for a user's mistake."""

from __future__ import annotations


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

"""Random task sets for experiments at scale (`priora generate`,
docs/campaigns.md).

    from priora.generate import generate, parse_params
    params = parse_params("spec.toml", {"tasks": 6, "utilisation": 0.8, "mutexes": 2})
    ts = generate(params, seed=1)
    ts.toml()                       # a scenario file that priora simulate accepts

Utilisations by UUniFast-Discard or ConvolutionalFixedSum (RandFixedSum's and
Dirichlet-Rescale's distributions), periods log-uniform or from a set under
a hyperperiod bound, implicit, constrained or arbitrary deadlines, RM, DM,
random or given priorities, and critical sections: how many mutexes, how
many sections a job, how long as a fraction of C, how deep they nest, which
tasks share which mutex. A seed gives the same file, byte for byte.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from priora.errors import ScenarioError, SpecError
from priora.generate.params import AXIS_KEYS, KEYS, Params, Reader, parse_params
from priora.generate.taskset import TaskSet, derive_seed, generate, to_toml
from priora.generate.utilisation import GenerateError, fixed_sum, uunifast, uunifast_discard

__all__ = [
    "AXIS_KEYS",
    "KEYS",
    "GenerateError",
    "Params",
    "Reader",
    "TaskSet",
    "derive_seed",
    "fixed_sum",
    "generate",
    "load_spec",
    "parse_params",
    "to_toml",
    "uunifast",
    "uunifast_discard",
    "with_overrides",
    "write_sets",
]


def load_spec(path: str | os.PathLike[str]) -> dict[str, object]:
    """The TOML document of a specification file (floats exact, as Decimal);
    unreadable or malformed, one SpecError naming the file and the line."""
    from priora.scenario.loader import decode_toml, read_text

    source = os.fspath(path)
    try:
        return decode_toml(read_text(path), source)
    except ScenarioError as exc:
        raise SpecError(exc.source, exc.where, exc.reason) from None


def with_overrides(source: str, table: Mapping[str, object], settings: Sequence[str]) -> dict[str, object]:
    """The [generator] table with `KEY=VALUE` settings (the --set option),
    each VALUE read as a TOML value (`tasks=6`, `periods=[10, 20]`,
    `deadlines="constrained"`; a bare word is taken as a string)."""
    from priora.scenario.loader import decode_toml

    out = dict(table)
    for setting in settings:
        key, sep, value = setting.partition("=")
        key = key.strip()
        if not sep or not key:
            raise SpecError("--set", setting, "expected KEY=VALUE, a generator parameter and its value")
        if key not in KEYS:
            raise SpecError("--set", key, f"unknown key (expected one of: {', '.join(KEYS)})")
        try:
            out[key] = decode_toml(f"v = {value}", "--set")["v"]
        except ScenarioError:
            out[key] = value.strip()
    return out


def write_sets(params: Params, seed: int, count: int, out: Path) -> list[Path]:
    """Writes `count` sets into the directory `out` (created if needed):
    set-0000.toml, set-0001.toml, ..., set i drawn with derive_seed(seed, i)."""
    out.mkdir(parents=True, exist_ok=True)
    width = max(4, len(str(count - 1)))
    paths = []
    for i in range(count):
        path = out / f"set-{i:0{width}d}.toml"
        path.write_text(generate(params, derive_seed(seed, i)).toml())
        paths.append(path)
    return paths

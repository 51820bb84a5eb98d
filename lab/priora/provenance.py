"""Where a JSON document of the lab comes from: the one `provenance` block
that every document the `priora` command writes carries first
(docs/report-schema.md, "Provenance"; provenance.schema.json).

    provenance("report", ["priora", "simulate", "x.toml", "--json"], Path("x.toml"),
               target="host", protocol="pip", cost_model="zero")

Deterministic: the same command on the same file gives the same block, byte
for byte; it holds no time and no host name. Standard library only, so that
benchmarks/riscv/bench.py (run by the system's python3) builds its block here too.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import Any

from priora import __version__

# The version of each document's shape, written as `schema`. Version 1 is
# each document as it was before it carried this block; bump one when its
# keys change (and its *.schema.json with it, whose `schema` const says it).
SCHEMA_VERSIONS: dict[str, int] = {
    "report": 2,  # priora simulate/run --json (report.schema.json)
    "analysis": 2,  # priora analyze --json (analysis.schema.json)
    "breakdown": 2,  # priora breakdown --json (breakdown.schema.json)
    "experiments": 2,  # priora experiments --out DIR: experiments.json (experiments.schema.json)
    "bench": 2,  # scripts/bench.sh --json OUT (bench.schema.json)
    "trace": 2,  # priora simulate/run --trace OUT: the Chrome trace's otherData
}

Names = str | Sequence[str] | None


def sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of the file's bytes, in hex."""
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def _names(value: Names) -> str | list[str] | None:
    return value if value is None or isinstance(value, str) else list(value)


def provenance(
    document: str,
    command: Sequence[str],
    input_file: str | os.PathLike[str] | None = None,
    *,
    target: Names = None,
    protocol: Names = None,
    cost_model: Names = None,
) -> dict[str, Any]:
    """The block of `document` (a key of SCHEMA_VERSIONS) written by `command`
    (the program and its arguments as given) from `input_file` (None: none);
    `target` is where the kernel ran ("host", "qemu-rv32", ...; None when
    nothing ran), `protocol` the protocol or protocols, `cost_model` the
    simulations' cost model or models (None when no simulation charges costs)."""
    return {
        "priora": __version__,
        "document": document,
        "schema": SCHEMA_VERSIONS[document],
        "command": list(command),
        "input": None if input_file is None else {"path": str(input_file), "sha256": sha256(input_file)},
        "target": _names(target),
        "protocol": _names(protocol),
        "cost_model": _names(cost_model),
    }


SCHEMA_FILES: dict[str, str] = {name: f"{name}.schema.json" for name in SCHEMA_VERSIONS if name != "trace"}
SCHEMA_FILES["provenance"] = "provenance.schema.json"


def schema(name: str) -> dict[str, Any]:
    """The JSON Schema shipped with the package for document `name` (a key
    of SCHEMA_FILES: every document but the Chrome trace, whose format is
    Chrome's), or for the provenance block itself ("provenance")."""
    import json
    from importlib import resources  # only here: its import costs start-up

    text = resources.files("priora").joinpath(SCHEMA_FILES[name]).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded

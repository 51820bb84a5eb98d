#!/usr/bin/env python3
"""Checks that the files of kernel/core call each other without a cycle.

Each kernel/core/*.c is compiled to an object; a file depends on another when
it uses a symbol (a function or a variable) that the other defines. The
dependency graph must be acyclic, so that the mechanism reads bottom-up: the
wait queue below the objects, the objects below the calls, and no object's
file reaching back into a file that calls it. Function pointers (a wait
queue's operations, a policy's hooks) are how a lower file reaches a higher
one without a dependency.

    tests/kernel/check_layering.py BUILD_DIR

prints the layers, bottom first, and exits 1 with the cycle if there is one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def symbols(obj: Path) -> tuple[set[str], set[str]]:
    out = subprocess.run(["nm", "--defined-only", str(obj)], capture_output=True, text=True, check=True).stdout
    defined = {line.split()[-1] for line in out.splitlines() if line.split()[1:2] and line.split()[1].isupper()}
    out = subprocess.run(["nm", "--undefined-only", str(obj)], capture_output=True, text=True, check=True).stdout
    used = {line.split()[-1] for line in out.splitlines() if line.strip()}
    return defined, used


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)) is not None:
            return cycle
    return None


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-3].strip(), file=sys.stderr)
        return 2
    objdir = Path(sys.argv[1]) / "CMakeFiles" / "priora_kernel.dir" / "kernel" / "core"
    sources = Path(__file__).resolve().parents[2] / "kernel" / "core"
    objects = sorted(o for o in objdir.glob("*.c.o") if (sources / o.name.removesuffix(".o")).exists())
    if not objects:
        print(f"check_layering: no kernel/core objects under {objdir} (build first)", file=sys.stderr)
        return 2
    defined_by: dict[str, str] = {}
    uses: dict[str, set[str]] = {}
    for obj in objects:
        name = obj.name.removesuffix(".c.o")
        defined, used = symbols(obj)
        for sym in defined:
            defined_by[sym] = name
        uses[name] = used
    graph = {name: {defined_by[s] for s in used if s in defined_by and defined_by[s] != name} for name, used in uses.items()}
    cycle = find_cycle(graph)
    if cycle is not None:
        print("check_layering: kernel/core files depend on each other in a cycle: " + " -> ".join(cycle), file=sys.stderr)
        return 1
    layers: list[list[str]] = []
    placed: set[str] = set()
    while len(placed) < len(graph):
        layer = sorted(n for n in graph if n not in placed and graph[n] <= placed)
        layers.append(layer)
        placed |= set(layer)
    for i, layer in enumerate(layers):
        print(f"layer {i}: {' '.join(layer)}")
    print(f"check_layering: {len(graph)} kernel/core files, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())

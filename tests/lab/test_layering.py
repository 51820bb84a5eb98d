"""The lab's modules import downward only (docs/architecture.md, "The lab").

Every module of lab/priora has a layer; a module may import its own layer and
the layers below, never above. The rule is read from the source (every
`import` and `from ... import`, inside functions too, since a lazy import is
still a dependency), so that a module that reaches up, for instance the native
binding reading the scenario loader, fails here rather than in a cycle at run
time.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "lab" / "priora"

# Lowest first. A module's layer is that of the longest name in this table that
# it is or is inside of (`run.native` is the binding; the rest of `run` is above).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("errors", "limits", "record", "provenance", "inputs", "outputs", "tables")),
    ("binding", ("run.native",)),
    ("model", ("scenario", "costs", "generate")),
    ("run and analysis", ("run", "analysis")),
    ("views", ("report", "trace", "pictures")),
    ("studies", ("breakdown", "experiments", "campaign")),
    ("commands", ("cli", "__main__")),
)

# What a module may not import although it is lower, beside the rule above:
# the analysis reads the model only, never a run's results; the binding reads
# nothing of the loader.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "analysis": ("run",),
    "run.native": ("scenario", "costs", "generate"),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def inside(name: str, entry: str) -> bool:
    return name == entry or name.startswith(entry + ".")


def placed(name: str, table: tuple[str, ...]) -> str | None:
    """The longest entry of `table` that `name` is or is inside of."""
    return max((e for e in table if inside(name, e)), key=len, default=None)


def layer_of(name: str) -> int:
    best = max(
        ((len(entry), rank) for rank, (_, table) in enumerate(LAYERS) if (entry := placed(name, table))),
        default=None,
    )
    if best is None:
        raise LookupError(name)
    return best[1]


def imports_of(source: str) -> set[str]:
    """The lab modules `source` imports, without the `priora.` prefix: for
    `from priora.run import native`, the module `run.native`."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module != "priora" and not node.module.startswith("priora."):
                continue
            package = node.module.removeprefix("priora").removeprefix(".")
            for alias in node.names:
                name = f"{package}.{alias.name}" if package else alias.name
                folder = PACKAGE.joinpath(*name.split("."))
                if folder.with_suffix(".py").exists() or folder.is_dir():
                    found.add(name)  # a module
                elif package:
                    found.add(package)  # a name inside a module
        elif isinstance(node, ast.Import):
            found.update(a.name.removeprefix("priora.") for a in node.names if a.name.startswith("priora."))
    return found


def violations(name: str, source: str) -> list[str]:
    """Each import of module `name` that breaks the layering, as a sentence."""
    mine = layer_of(name)
    rules = [banned for owner, banned in FORBIDDEN.items() if inside(name, owner)]
    wrong = []
    for target in sorted(imports_of(source)):
        theirs = layer_of(target)
        if theirs > mine:
            wrong.append(f"{name} ({LAYERS[mine][0]}) imports {target} ({LAYERS[theirs][0]})")
        elif any(placed(target, banned) for banned in rules):
            wrong.append(f"{name} imports {target}, which it must not read")
    return wrong


def modules() -> list[Path]:
    return sorted(
        p for p in PACKAGE.rglob("*.py") if p.name != "_native_ffi.py" and p != PACKAGE / "__init__.py"
    )


def test_every_module_has_a_layer() -> None:
    unplaced = []
    for path in modules():
        try:
            layer_of(module_name(path))
        except LookupError:
            unplaced.append(module_name(path))
    assert unplaced == []


@pytest.mark.parametrize("path", modules(), ids=module_name)
def test_a_module_imports_downward_only(path: Path) -> None:
    assert violations(module_name(path), path.read_text(encoding="utf-8")) == []


def test_the_binding_imports_only_the_errors_and_the_limits() -> None:
    assert imports_of((PACKAGE / "run" / "native.py").read_text(encoding="utf-8")) == {"errors", "limits"}


def test_the_check_finds_an_import_upward() -> None:
    """The rule can fail: the binding reading the loader, lazily, or a run
    above it, and the model reading a run, are all reported."""
    lazy = "def limits():\n    from priora.scenario import loader\n    return loader\n"
    assert violations("run.native", lazy) == ["run.native (binding) imports scenario.loader (model)"]
    assert violations("run.native", "from priora.run import simulate\n") == [
        "run.native (binding) imports run.simulate (run and analysis)"
    ]
    assert violations("scenario.model", "import priora.run.simulate\n") == [
        "scenario.model (model) imports run.simulate (run and analysis)"
    ]
    assert violations("analysis.core", "from priora.run.simulate import simulate\n") == [
        "analysis.core imports run.simulate, which it must not read"
    ]
    assert (
        violations("report.build", "from priora.run import native\nfrom priora.scenario import model\n") == []
    )

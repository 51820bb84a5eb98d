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

# The loader's modules and a run's: named once, for the layers and for the
# two rules below.
LOADER = ("model", "costs", "scenario", "bounds", "generate")
RUN = ("compiled", "blob", "simulate", "refusals", "qemu_run", "uart_trace", "trace_file", "trace_decode")

# Lowest first. A module's layer is that of its top-level name in this table.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("errors", "limits", "provenance", "inputs", "outputs", "tables")),
    ("binding", ("native",)),
    ("model", LOADER),
    ("run and analysis", (*RUN, "analysis")),
    ("views", ("report", "timeline", "chrome_trace", "ctf", "gantt_model", "gantt", "html_report")),
    ("studies", ("breakdown", "experiments", "campaign")),
    ("commands", ("demo", "cli", "__main__")),
)

# What a module may not import although it is lower, beside the rule above:
# the analysis reads the model only, never a run's results; the binding reads
# nothing of the loader.
FORBIDDEN: dict[str, tuple[str, ...]] = {"analysis": RUN, "native": LOADER}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(name: str) -> int:
    top = name.split(".")[0]
    for rank, (_, modules) in enumerate(LAYERS):
        if top in modules:
            return rank
    raise LookupError(name)


def imports_of(source: str) -> set[str]:
    """The lab modules `source` imports, without the `priora.` prefix."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "priora":
                found.update(alias.name for alias in node.names if alias.name != "__version__")
            elif node.module.startswith("priora."):
                found.add(node.module.removeprefix("priora."))
        elif isinstance(node, ast.Import):
            found.update(a.name.removeprefix("priora.") for a in node.names if a.name.startswith("priora."))
    return found


def violations(name: str, source: str) -> list[str]:
    """Each import of module `name` that breaks the layering, as a sentence."""
    mine = layer_of(name)
    wrong = []
    for target in sorted(imports_of(source)):
        if target.split(".")[0] == name.split(".")[0]:
            continue  # within the module's own package
        theirs = layer_of(target)
        if theirs > mine:
            wrong.append(f"{name} ({LAYERS[mine][0]}) imports {target} ({LAYERS[theirs][0]})")
        elif target.split(".")[0] in FORBIDDEN.get(name.split(".")[0], ()):
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
    assert imports_of((PACKAGE / "native.py").read_text(encoding="utf-8")) == {"errors", "limits"}


def test_the_check_finds_an_import_upward() -> None:
    """The rule can fail: the binding reading the loader, lazily, and the
    model reading a run, are both reported."""
    lazy = "def limits():\n    from priora import scenario\n    return scenario\n"
    assert violations("native", lazy) == ["native (binding) imports scenario (model)"]
    assert violations("model", "import priora.simulate\n") == [
        "model (model) imports simulate (run and analysis)"
    ]
    assert violations("analysis.core", "from priora.simulate import simulate\n") == [
        "analysis.core imports simulate, which it must not read"
    ]
    assert violations("report", "from priora import native, model\n") == []

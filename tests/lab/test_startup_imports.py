"""What `priora simulate FILE` imports: not numpy, dataclasses, inspect, tomllib,
typing, pathlib, argparse, fractions, decimal, the cost models or the
refusals' reader.

The command's start-up is most of its time for a short run
(docs/packaging.md, "Start-up time"): numpy's import alone is about three
interpreters, dataclasses' (with inspect) half of one. The report of a run
is read in C (lab/native/job_fields.c, task_totals.c, trace_scan.c) and
the lab's records are priora.record's, and the scenario file is read by
priora.scenario.toml_reader (tomllib only reads what it leaves), the
lab's annotations are for type checkers only (TYPE_CHECKING = False), and a
command line of positionals alone is read without argparse
(priora.cli.options.plain_arguments), and the loader reads whole numbers
as ints (a Fraction, with fractions' and decimal's imports, only for a
number that is not whole), so a plain `simulate` needs none of them; this test fails as soon as an import on that
path brings one back. Run in a fresh interpreter: the test process itself
has imported everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import contextlib, io, json, sys
from priora.cli.main import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules), "lines": out.getvalue().count(chr(10))}))
"""

HEAVY = (
    "numpy", "dataclasses", "inspect", "pycparser", "tomllib", "typing", "pathlib", "argparse", "gettext",
    "fractions", "decimal", "numbers", "priora.costs.model", "priora.run.refusals", "priora.report.json_document",
)  # fmt: skip


def at_start() -> set[str]:
    """The modules the interpreter has before the lab runs (the site's own:
    an editable install's finder imports pathlib)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "lab")}
    done = subprocess.run(
        [sys.executable, "-c", "import json, sys; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True, text=True, env=env, cwd=ROOT, check=True,
    )  # fmt: skip
    return set(json.loads(done.stdout))


def imported_by(*argv: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "lab")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=env, cwd=ROOT, check=True
    )
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


@pytest.mark.parametrize(
    "example", ["examples/inversion.toml", "examples/chain.toml", "examples/producer_consumer.toml"]
)
def test_simulate_imports_none_of_the_heavy_modules(example: str) -> None:
    if not (ROOT / example).exists():
        pytest.fail(f"{example} is gone: name another example here")
    result = imported_by("simulate", example)
    assert result["code"] in (0, None)
    assert isinstance(result["lines"], int) and result["lines"] > 20  # the whole report was printed
    modules = result["modules"]
    assert isinstance(modules, list)
    assert [m for m in HEAVY if m in modules and m not in at_start()] == []


def test_the_probe_sees_argparse_the_refusals_and_the_cost_models_when_needed(tmp_path: Path) -> None:
    # An option takes argparse; a run that refuses a call reads its refusals;
    # a file with a cost model imports the cost models.
    result = imported_by("simulate", "examples/deadlock.toml", "--summary")
    modules = result["modules"]
    assert isinstance(modules, list)
    assert {"argparse", "priora.run.refusals"} <= set(modules)
    costed = tmp_path / "inversion.toml"
    text = (ROOT / "examples/inversion.toml").read_text()
    costed.write_text(text.replace("[system]\n", '[system]\ncost_model = "rtmach93"\n', 1))
    result = imported_by("simulate", str(costed))
    modules = result["modules"]
    assert isinstance(modules, list) and "priora.costs.model" in modules


def test_the_probe_sees_numpy_when_a_view_needs_it() -> None:
    # --json writes its document in numpy's memory (priora.report.build):
    # the check above would pass for a probe that saw nothing.
    result = imported_by("simulate", "examples/inversion.toml", "--json")
    modules = result["modules"]
    assert isinstance(modules, list) and "numpy" in modules


def test_the_probe_sees_tomllib_when_the_reader_leaves_the_file_to_it(tmp_path: Path) -> None:
    # Windows line ends are valid TOML that toml_reader leaves to tomllib:
    # the check above would pass for a probe that saw nothing.
    crlf = tmp_path / "inversion.toml"
    crlf.write_bytes((ROOT / "examples/inversion.toml").read_bytes().replace(b"\n", b"\r\n"))
    result = imported_by("simulate", str(crlf))
    assert result["code"] in (0, None)
    modules = result["modules"]
    assert isinstance(modules, list) and "tomllib" in modules

"""Every JSON document's provenance block (priora.provenance), the JSON
Schemas of every document validated against the commands' own outputs, and
the tables as Markdown (--format markdown), as CSV files (--csv DIR) and
without their job rows (--summary)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest

from priora import __version__
from priora.cli.main import main
from priora.costs import model as costs
from priora.provenance import SCHEMA_FILES, SCHEMA_VERSIONS, schema
from priora.tables import Lines, Pairs, Table, render, write_csv

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
DOCUMENTS = ("report", "analysis", "breakdown", "experiments", "bench")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def expected(
    document: str, argv: list[str], path: Path | None, target: Any, protocol: Any, cost_model: Any
) -> dict[str, Any]:
    """The block the command must write, built here rather than by priora.provenance."""
    return {
        "priora": __version__,
        "document": document,
        "schema": 2,
        "command": ["priora", *argv],
        "input": None if path is None else {"path": str(path), "sha256": digest(path)},
        "target": target,
        "protocol": protocol,
        "cost_model": cost_model,
    }


def validate(document: object, name: str) -> None:
    jsonschema.validate(document, schema(name), cls=jsonschema.Draft202012Validator)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory of copies of some examples, the current one: the commands
    name the files relatively, as a user in that directory would."""
    for name in ("inversion.toml", "deadlock.toml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    shutil.copy(EXAMPLES / "rtmach" / "benchmark1.toml", tmp_path / "benchmark1.toml")
    shutil.copy(EXAMPLES / "analysis" / "chained_blocking.toml", tmp_path / "chained.toml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def out_of(capsys: pytest.CaptureFixture[str], *argv: str, status: int = 0) -> str:
    assert main(list(argv)) == status
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


# ---------------------------------------------------------------- provenance


def test_the_report_carries_its_provenance_first(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "inversion.toml", "--json"]
    text = out_of(capsys, *argv)
    document = json.loads(text)
    assert list(document) == ["provenance", "jobs", "tasks", "resources", "system", "warnings"]
    assert document["provenance"] == expected("report", argv, Path("inversion.toml"), "host", "pip", "zero")
    validate(document, "report")
    assert out_of(capsys, *argv) == text  # deterministic: byte for byte


def test_the_protocol_and_the_cost_model_are_the_runs(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The file's [system] cost_model, and --protocol over the file's protocol.
    source = (here / "inversion.toml").read_text()
    (here / "costed.toml").write_text(source.replace("[system]\n", '[system]\ncost_model = "rtmach93"\n', 1))
    argv = ["simulate", "costed.toml", "--protocol", "none", "--json", "--summary"]
    document = json.loads(out_of(capsys, *argv))
    assert document["provenance"] == expected("report", argv, Path("costed.toml"), "host", "none", "rtmach93")
    assert "jobs" not in document
    validate(document, "report")


def test_a_run_on_qemu_names_its_target_and_no_cost_model(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The kernel's costs on QEMU are its own: no cost model is charged.
    argv = ["run", "inversion.toml", "--target", "qemu-rv32", "--json", "--summary", "--trace", "t.json"]
    document = json.loads(out_of(capsys, *argv))
    assert document["provenance"] == expected(
        "report", argv, Path("inversion.toml"), "qemu-rv32", "pip", None
    )
    trace = json.loads((here / "t.json").read_text())
    assert trace["otherData"]["provenance"] == {**document["provenance"], "document": "trace"}
    validate(document, "report")


def test_the_chrome_trace_carries_it_in_other_data(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "inversion.toml", "--trace", "trace.json"]
    out_of(capsys, *argv)
    trace = json.loads((here / "trace.json").read_text())
    assert list(trace) == ["displayTimeUnit", "otherData", "metadata", "traceEvents"]
    assert trace["otherData"] == {
        "provenance": expected("trace", argv, Path("inversion.toml"), "host", "pip", "zero")
    }


def test_the_analysis_carries_its_provenance(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["analyze", "chained.toml", "--json", "--protocol", "pip", "pcp"]
    document = json.loads(out_of(capsys, *argv))
    # Nothing runs: no target, no cost model; the protocols analysed.
    assert document["provenance"] == expected(
        "analysis", argv, Path("chained.toml"), None, ["pip", "pcp"], None
    )
    assert list(document)[:2] == ["provenance", "file"]
    validate(document, "analysis")


def test_the_breakdown_carries_its_provenance(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["breakdown", "benchmark1.toml", "--vary", "B.wcet", "--protocol", "pip", "none"]
    argv += ["--cost-model", "rtmach93", "--json"]
    text = out_of(capsys, *argv)
    document = json.loads(text)
    # The protocols in the lab's order, whatever the order given.
    assert document["provenance"] == expected(
        "breakdown", argv, Path("benchmark1.toml"), "host", ["none", "pip"], "rtmach93"
    )
    assert text.startswith('{"provenance": {"priora": ')
    assert text.splitlines()[1].startswith(' "file": "benchmark1.toml", ')
    validate(document, "breakdown")


def test_experiments_json_carries_its_provenance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "exp"
    argv = ["experiments", "--quick", "--out", str(out)]
    out_of(capsys, *argv)
    document = json.loads((out / "experiments.json").read_text())
    assert list(document) == ["provenance", "quick", "rtmach", "minix"]
    assert document["provenance"] == expected(
        "experiments", argv, None, "host", ["none", "pip", "pcp", "npcs", "rcs"], ["zero", "rtmach93"]
    )
    validate(document, "experiments")


def test_experiments_name_their_bench_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A bench document (schema 2) of the shipped figures, as bench.py writes it.
    split = {"pi_split_a": ("pi_split", "a"), "pi_split_b": ("pi_split", "b")}
    builds: dict[str, Any] = {}
    for build, values in costs.measured_figures()["builds"].items():
        arch, _, trace = build.split("-")
        figures: dict[str, dict[str, str]] = {}
        for name, value in values.items():
            bench_name, key = split.get(name, (name, "per_pair" if name.startswith("prodcons") else "per_op"))
            figures.setdefault(bench_name, {})[key] = str(value)
        builds[f"{arch} trace {trace}"] = {"figures": figures, "series": {}}
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps({"provenance": None, "builds": builds}))
    argv = ["experiments", "--quick", "--bench", str(bench), "--out", str(tmp_path / "exp")]
    out_of(capsys, *argv)
    document = json.loads((tmp_path / "exp" / "experiments.json").read_text())
    assert document["provenance"]["input"] == {"path": str(bench), "sha256": digest(bench)}
    validate(document, "experiments")


def load_bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """benchmarks/riscv/bench.py, a program rather than a module of the lab."""
    spec = importlib.util.spec_from_file_location("riscv_bench", ROOT / "benchmarks" / "riscv" / "bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "riscv_bench", module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    return module


BENCH_LINES = """\
BENCH mutex_pair n=10000 per_op=49.00
BENCH chain depth=1 instr=120
BENCH chain depth=2 instr=180
BENCH-END bench_chain
""".splitlines()


def test_the_bench_document(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = load_bench(monkeypatch)
    results = {
        bench.Build("rv32", False): bench.parse(BENCH_LINES),
        bench.Build("rv64", True): bench.parse([]),
    }
    argv = ["--arch", "rv32,rv64", "--json", "out.json"]
    document = bench.document(results, argv)
    assert document == {
        "provenance": {
            "priora": __version__,
            "document": "bench",
            "schema": 2,
            "command": ["benchmarks/riscv/bench.py", *argv],
            "input": None,
            "target": ["qemu-rv32", "qemu-rv64"],
            "protocol": None,
            "cost_model": None,
        },
        "builds": {
            "rv32 trace off": {
                "figures": {
                    "mutex_pair": {"n": "10000", "per_op": "49.00"},
                    "chain": {"depth": "2", "instr": "180"},
                },
                "series": {
                    "mutex_pair": [{"n": "10000", "per_op": "49.00"}],
                    "chain": [{"depth": "1", "instr": "120"}, {"depth": "2", "instr": "180"}],
                },
            },
            "rv64 trace on": {"figures": {}, "series": {}},
        },
    }
    validate(document, "bench")


def test_the_bench_tables_are_the_labs(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = load_bench(monkeypatch)
    assert bench.table(["build", "d=1"], [["rv32 trace off", "120"], ["rv64 trace on", "7"]]) == (
        "| build          | d=1 |\n| -------------- | --: |\n| rv32 trace off | 120 |\n| rv64 trace on  |   7 |"
    )


def test_a_bench_file_of_either_schema_gives_the_same_figures() -> None:
    # Schema 1: the builds alone; schema 2: under "builds", after the provenance.
    figures = {name: {"per_op": "1", "a": "2", "b": "3", "per_pair": "4"} for name in (
        "yield_switch", "yield_alone", "tick", "irq_tick", "mutex_down", "mutex_up", "trydown_fail",
        "pi_split", "nopi_path", "counting_pair", "pingpong_round", "prodcons_test1", "prodcons_test2",
        "prodcons_test3", "prodcons_test4")}  # fmt: skip
    builds = {"rv32 trace off": {"figures": figures, "series": {}}}
    old = costs.measured_from_bench(builds)
    new = costs.measured_from_bench({"provenance": {}, "builds": builds})
    assert old == new
    assert new["builds"]["rv32-trace-off"]["pi_split_b"] == 3.0


def test_the_block_names_the_file_as_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "inversion.toml"
    shutil.copy(EXAMPLES / "inversion.toml", path)
    document = json.loads(out_of(capsys, "simulate", str(path), "--json", "--summary"))
    assert document["provenance"]["input"] == {
        "path": str(path),
        "sha256": digest(EXAMPLES / "inversion.toml"),
    }


# ---------------------------------------------------------------- schemas


@pytest.mark.parametrize("name", DOCUMENTS)
def test_each_schema_holds_the_provenance_schema_and_its_version(name: str) -> None:
    mine = schema(name)
    jsonschema.Draft202012Validator.check_schema(mine)
    block = {k: v for k, v in schema("provenance").items() if k not in ("$schema", "$id", "title")}
    assert mine["$defs"]["provenance"] == block
    assert mine["properties"]["provenance"]["allOf"] == [
        {"$ref": "#/$defs/provenance"},
        {"properties": {"document": {"const": name}, "schema": {"const": SCHEMA_VERSIONS[name]}}},
    ]
    assert SCHEMA_FILES[name] == f"{name}.schema.json"


def test_a_wrong_provenance_is_refused(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = json.loads(out_of(capsys, "simulate", "inversion.toml", "--json"))
    for key, value in (("document", "analysis"), ("schema", 1), ("command", []), ("target", 3)):
        wrong = {**document, "provenance": {**document["provenance"], key: value}}
        with pytest.raises(jsonschema.ValidationError):
            validate(wrong, "report")
    wrong = {**document, "provenance": {**document["provenance"], "input": {"path": "x", "sha256": "ABC"}}}
    with pytest.raises(jsonschema.ValidationError):
        validate(wrong, "report")


def test_the_rcs_recovery_report_and_its_summary_validate(capsys: pytest.CaptureFixture[str]) -> None:
    for extra in ([], ["--summary"]):
        document = json.loads(
            out_of(capsys, "simulate", str(EXAMPLES / "rcs" / "recovery.toml"), "--json", *extra)
        )
        assert "recovery" in document["system"]
        validate(document, "report")


# ---------------------------------------------------------------- tables

INVERSION_SUMMARY = """\
Tasks
task  jobs  max response (ms)  mean response (ms)  max blocked (ms)  max inverted (ms)  misses  timeouts  errors
----  ----  -----------------  ------------------  ----------------  -----------------  ------  --------  ------
L        1                 13                  13                 0                  0       0         0       0
H        1                  6                   6                 3                  3       0         0       0
M        1                 10                  10                 0                  3       0         0       0

Resources
resource  kind   protocol  downs  ups  most waiters  longest hold (ms)
--------  -----  --------  -----  ---  ------------  -----------------
S         mutex  pip           2    2             1                  5

System
  time unit            ms (tick_hz 1000)
  protocol             pip
  horizon              13 ms (stopped: quiescent)
  utilisation          1.000000
  nominal utilisation  -
  context switches     7
  priority changes     2
  jobs                 3
  misses               0
"""

INVERSION_JOBS_MARKDOWN = """\
## Jobs

| task | job | release (ms) | start (ms) | finish (ms) | response (ms) | deadline (ms) | missed | blocked (ms) | inverted (ms) | timeouts | errors |
| ---- | --: | -----------: | ---------: | ----------: | ------------: | ------------: | -----: | -----------: | ------------: | -------: | -----: |
| L    |   1 |            0 |          0 |          13 |            13 |             - |     no |            0 |             0 |        0 |      0 |
| H    |   1 |            1 |          1 |           7 |             6 |             - |     no |            3 |             3 |        0 |      0 |
| M    |   1 |            2 |          7 |          12 |            10 |             - |     no |            0 |             3 |        0 |      0 |

"""

INVERSION_SYSTEM_MARKDOWN = """\
## System

| figure              | value                      |
| ------------------- | -------------------------- |
| time unit           | ms (tick_hz 1000)          |
| protocol            | pip                        |
| horizon             | 13 ms (stopped: quiescent) |
| utilisation         | 1.000000                   |
| nominal utilisation | -                          |
| context switches    | 7                          |
| priority changes    | 2                          |
| jobs                | 3                          |
| misses              | 0                          |
"""


def test_summary_is_the_report_without_its_jobs(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = out_of(capsys, "simulate", "inversion.toml", "--summary")
    assert summary == INVERSION_SUMMARY
    full = out_of(capsys, "simulate", "inversion.toml")
    assert full.endswith("\n\n" + INVERSION_SUMMARY) and full.startswith("Jobs\n")


def test_markdown_report(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = out_of(capsys, "simulate", "inversion.toml", "--format", "markdown")
    assert text.startswith(INVERSION_JOBS_MARKDOWN + "## Tasks\n\n| task | jobs |")
    assert text.endswith("\n\n" + INVERSION_SYSTEM_MARKDOWN)
    assert "## Resources\n\n| resource | kind  | protocol | downs |" in text
    # The same tables as the text, cell for cell.
    summary = out_of(capsys, "simulate", "inversion.toml", "--format", "markdown", "--summary")
    assert text == INVERSION_JOBS_MARKDOWN + summary


DEADLOCK_CSV = {
    "jobs.csv": """\
task,job,release (ms),start (ms),finish (ms),response (ms),deadline (ms),missed,blocked (ms),inverted (ms),timeouts,errors
L,1,0,0,7,7,,false,0,0,0,1
H,1,1,1,6,5,,false,1,1,0,0
""",
    "tasks.csv": """\
task,jobs,max response (ms),mean response (ms),max blocked (ms),max inverted (ms),misses,timeouts,errors
L,1,7,7,0,0,0,0,1
H,1,5,5,1,1,0,0,0
""",
    "resources.csv": """\
resource,kind,protocol,downs,ups,most waiters,longest hold (ms)
A,mutex,pip,2,2,1,4
B,mutex,pip,2,1,0,4
""",
    "system.csv": """\
figure,value
utilisation,1.0
nominal_utilisation,
context_switches,6
priority_changes,2
horizon,7
stopped,quiescent
time_unit,ms
tick_hz,1000
protocol,pip
jobs,2
misses,0
aborts,0
lost,0
refused,1
quantum,0
""",
    "warnings.csv": """\
task,job,time (ms),action,action_text,error,cause
L,1,4,2,lock B,PR_EDEADLK,"L wants B, held by H, which waits for A, held by L"
""",
}


def test_csv_files_of_the_report(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = out_of(capsys, "simulate", "deadlock.toml", "--csv", "tables/deadlock")
    assert text == out_of(capsys, "simulate", "deadlock.toml")  # the output is the same
    written = {p.name: p.read_text() for p in (here / "tables" / "deadlock").iterdir()}
    assert written == DEADLOCK_CSV
    # With --json and --summary: the same files but jobs.csv, and the JSON on stdout.
    json.loads(out_of(capsys, "simulate", "deadlock.toml", "--json", "--summary", "--csv", "summary"))
    assert {p.name: p.read_text() for p in (here / "summary").iterdir()} == {
        k: v for k, v in DEADLOCK_CSV.items() if k != "jobs.csv"
    }


def test_analysis_tables(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = out_of(capsys, "analyze", "chained.toml", "--protocol", "pip", "pcp", "--json", "--csv", "a")
    assert json.loads(text)["protocols"].keys() == {"pip", "pcp"}
    assert sorted(p.name for p in (here / "a").iterdir()) == [
        "blocking.csv", "mutexes.csv", "response.csv", "tasks.csv", "tests.csv"
    ]  # fmt: skip
    assert (here / "a" / "response.csv").read_text() == (
        "task,deadline (ms),pip,pcp\nH,12,15 > D,10 ok\nM,40,29 ok,20 ok\nL1,80,32 ok,32 ok\n"
        "L2,100,34 ok,34 ok\nX,200,57 ok,57 ok\n"
    )
    assert (here / "a" / "mutexes.csv").read_text() == (
        'mutex,locked by,ceiling,longest section (ms)\nS1,"H, L1",31,5\nS2,"H, L2",31,6\nS3,X,27,9\n'
    )
    # A test that does not apply is an empty field (a "-" in the tables).
    assert (here / "a" / "tests.csv").read_text().splitlines()[1:5] == [
        "total utilisation U <= 1 (necessary),true,true",
        "Liu-Layland with blocking,,",
        "hyperbolic with blocking,,",
        "response-time analysis,false,true",
    ]
    markdown = out_of(capsys, "analyze", "chained.toml", "--protocol", "pip", "pcp", "--format", "markdown")
    assert markdown.startswith(
        "## Analysis of chained.toml: times in ms (tick_hz 1000)\n\n- total utilisation U = "
    )
    assert (
        "## Blocking B (ms)\n\n| task | pip | pcp |\n| ---- | --: | --: |\n| H    |  11 |   6 |\n" in markdown
    )


BREAKDOWN_MARKDOWN = """\
## Breakdown of B.wcet in benchmark1.toml: times in ms (tick_hz 1000)

- varied: B's execution time C: its computes outside critical sections, body[0]
- in the file: 100 ms; the largest value that passes is searched (no deadline missed, no call refused, no more work than time)
- simulation: the file's release times, the jobs released in the first 6020 ms judged, cost model zero
- analysis: response-time analysis (any release times, zero overheads)

| protocol | simulation (ms) | U (%) | runs | analysis (ms) | U (%) |
| -------- | --------------: | ----: | ---: | ------------: | ----: |
| none     |              20 |  34.7 |   25 |             - |     - |
| pip      |             190 |  91.3 |   29 |           180 |  88.0 |

## Notes

- none: simulation: 21 fails: A job 1 misses its deadline at 120 ms
- none: analysis: no value passes, down to 0 ms: R > D for A, B; A: B (priority 30) can preempt D (priority 28) while D holds O and A waits for it: unbounded priority inversion
- pip: simulation: 191 fails: C job 1 misses its deadline at 410 ms
"""


def test_breakdown_tables(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["breakdown", "benchmark1.toml", "--vary", "B.wcet", "--protocol", "none", "pip"]
    assert out_of(capsys, *argv, "--format", "markdown", "--csv", "b") == BREAKDOWN_MARKDOWN
    assert (here / "b" / "breakdown.csv").read_text() == (
        "protocol,simulation (ms),U (%),runs,analysis (ms),U (%)\nnone,20,34.7,25,,\npip,190,91.3,29,180,88.0\n"
    )


@pytest.mark.parametrize("command", [["simulate", "inversion.toml"], ["analyze", "inversion.toml"]])
def test_format_is_refused_with_json(
    here: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    assert main([*command, "--json", "--format", "markdown"]) == 2
    assert capsys.readouterr() == (
        "",
        "priora: --format markdown: not with --json (the JSON document has no tables)\n",
    )


def test_csv_into_a_file_is_refused_before_the_run(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "taken").write_text("")
    assert main(["simulate", "inversion.toml", "--csv", "taken"]) == 2
    assert capsys.readouterr() == ("", "priora: --csv: taken exists and is not a directory\n")


def test_an_unwritable_csv_directory_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    table = Table("t", "T", ["a"], [[1]])
    with pytest.raises(Exception) as caught:
        write_csv([table], tmp_path / "file" / "sub")
    assert str(caught.value) == f"--csv: cannot write {tmp_path / 'file' / 'sub'}: Not a directory"


def test_the_table_helper_on_its_own() -> None:
    table = Table("t", "T", ["name", "n", "ok"], [["a|b", "c"], [1, None], [True, False]])
    empty = Table("e", "Empty", ["x"], [[]])
    pairs = Pairs("p", "P", ("figure", "value"), [("one", "1 ms")], [("one", 1)])
    lines = Lines("Notes", ["first", "second"])
    assert render([table, empty, pairs, lines]) == (
        "T\nname  n   ok\n----  -  ---\na|b   1  yes\nc     -   no\n\nEmpty: none\n\nP\n  one  1 ms\n\nNotes\n  first\n  second"
    )
    assert render([table, empty, pairs, lines], "markdown") == (
        "## T\n\n| name |   n |  ok |\n| ---- | --: | --: |\n| a\\|b |   1 | yes |\n| c    |   - |  no |"
        "\n\n## Empty\n\nnone\n\n## P\n\n| figure | value |\n| ------ | ----- |\n| one    | 1 ms  |"
        "\n\n## Notes\n\n- first\n- second"
    )

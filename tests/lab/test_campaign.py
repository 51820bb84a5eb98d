"""priora campaign: the specification's messages, the database (resumable:
an interrupted campaign goes on to the same content), rerunning one row,
findings, the exports, the summary and the plots."""

from __future__ import annotations

import csv
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from priora.campaign import db
from priora.campaign.spec import parse_campaign
from priora.cli.main import main
from priora.errors import SpecError
from priora.scenario.loader import decode_toml

ROOT = Path(__file__).resolve().parents[2]
QUICK = ROOT / "examples" / "campaigns" / "quick.toml"

SMALL = """\
[campaign]
seed = 9
sets = 3
protocols = ["none", "pip", "pcp", "rcs"]

[campaign.axis]
parameter = "utilisation"
points = [0.5, 0.8, 0.95]

[generator]
tasks = 5
periods = [10, 20, 25, 50]
mutexes = 2
nesting_depth = 2
section_length = [0.1, 0.4]
"""

# The kernel charged at a 200 kHz CPU: every set misses, while the analysis
# (zero overheads) says most are schedulable: findings.
SLOW_CPU = """\
[campaign]
seed = 5
sets = 2
protocols = ["pip", "npcs"]
cost_model = "measured"
cpu_hz = 1000000

[campaign.axis]
parameter = "tasks"
from = 2
to = 3
step = 1

[generator]
utilisation = 0.3
periods = [10, 20, 50]
mutexes = 1
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def spec_file(tmp_path: Path, text: str = SMALL, name: str = "spec.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def content(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as con:
        return con.execute("SELECT * FROM results ORDER BY row").fetchall()


def campaign(capsys: pytest.CaptureFixture[str], spec: Path, database: Path, *options: str) -> str:
    status, out, err = run(capsys, "campaign", str(spec), "--db", str(database), *options)
    assert status == 0, err
    return out


# ---------------------------------------------------------------- running and resuming


def test_a_campaign_fills_one_row_per_set_and_protocol(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    spec = spec_file(tmp_path)
    out = campaign(capsys, spec, tmp_path / "a.sqlite", "--jobs", "1")
    rows = db.rows(sqlite3.connect(tmp_path / "a.sqlite"))
    assert [r["row"] for r in rows] == list(range(1, 3 * 3 * 4 + 1))
    assert {(r["point"], r["set_index"], r["protocol"]) for r in rows} == {
        (p, s, q) for p in range(3) for s in range(3) for q in ("none", "pip", "pcp", "rcs")
    }
    for r in rows:
        assert r["error"] is None
        assert r["analysis"] in (0, 1, None) and r["simulated"] in (0, 1)
        assert r["jobs"] > 0 and r["misses"] >= 0 and r["simulated"] == int(r["misses"] == 0)
        assert r["finding"] == int(r["analysis"] == 1 and r["misses"] > 0)
        assert set(db.per_task(r["response"])) == {f"T{i}" for i in range(5)}
    # Zero overheads: the analysis is sound on the kernel (docs/analysis.md).
    assert not any(r["finding"] or r["exceeded"] for r in rows)
    assert "Acceptance ratio: analysis / simulation" in out
    assert "Findings (the analysis says schedulable, the kernel missed a deadline):\n  none\n" in out


def test_interrupted_by_a_limit_then_resumed_equals_an_uninterrupted_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    spec = spec_file(tmp_path)
    whole = tmp_path / "whole.sqlite"
    campaign(capsys, spec, whole, "--jobs", "1")
    parts = tmp_path / "parts.sqlite"
    out = campaign(capsys, spec, parts, "--jobs", "1", "--limit", "2")
    assert "Stopped after 2 sets (--limit): run the same command again to go on." in out
    assert len(content(parts)) == 2 * 4
    campaign(capsys, spec, parts, "--jobs", "1", "--limit", "4")
    assert len(content(parts)) == 6 * 4
    campaign(capsys, spec, parts, "--jobs", "2")  # the rest, in parallel
    assert content(parts) == content(whole)
    # Nothing left: running again changes nothing.
    campaign(capsys, spec, parts, "--jobs", "1")
    assert content(parts) == content(whole)


def test_killed_then_resumed_equals_an_uninterrupted_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Enough sets (90) that the kill lands in the middle, most times.
    spec = spec_file(tmp_path, SMALL.replace("sets = 3", "sets = 30"))
    whole = tmp_path / "whole.sqlite"
    campaign(capsys, spec, whole, "--jobs", "1")
    killed = tmp_path / "killed.sqlite"
    child = subprocess.Popen(
        [sys.executable, "-m", "priora", "campaign", str(spec), "--db", str(killed), "--jobs", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ},
    )
    # Kill it once some sets are in (or whenever it has finished: the result must be the same).
    while child.poll() is None:
        if killed.exists():
            try:
                if len(content(killed)) >= 4:
                    break
            except sqlite3.OperationalError:  # the tables are being created
                pass
    child.send_signal(signal.SIGKILL)
    child.wait()
    done = len(content(killed))
    assert 0 < done <= 90 * 4 and done % 4 == 0  # whole sets only
    campaign(capsys, spec, killed, "--jobs", "1")
    assert content(killed) == content(whole)


def test_a_database_of_another_specification_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    spec = spec_file(tmp_path)
    database = tmp_path / "a.sqlite"
    campaign(capsys, spec, database, "--jobs", "1", "--limit", "1")
    other = spec_file(tmp_path, SMALL.replace("seed = 9", "seed = 10"), "other.toml")
    assert run(capsys, "campaign", str(other), "--db", str(database)) == (
        2,
        "",
        f"priora: {database}: holds the results of another specification ({spec}): "
        "give another --db, or delete the file to start again\n",
    )


def test_a_huge_campaign_is_refused_until_the_limit_is_lifted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    spec = spec_file(tmp_path)
    status, out, err = run(
        capsys, "campaign", str(spec), "--db", str(tmp_path / "a.sqlite"), "--max-jobs", "100"
    )
    assert (status, out) == (2, "")
    assert err.startswith(f"priora: {spec}: the campaign would run 9 sets, 36 simulations, about ")
    assert err.endswith(
        " simulated jobs, more than the limit of 100 jobs: give --max-jobs "
        + err.split("--max-jobs ")[1].split(" ")[0]
        + " to run it anyway, or fewer sets, points or a shorter horizon\n"
    )
    lifted = err.split("--max-jobs ")[1].split(" ")[0]
    campaign(capsys, spec, tmp_path / "a.sqlite", "--jobs", "1", "--max-jobs", lifted)


# ---------------------------------------------------------------- rerun, findings


def test_a_row_reruns_alone_and_its_set_simulates(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    spec = spec_file(tmp_path)
    database = tmp_path / "a.sqlite"
    campaign(capsys, spec, database, "--jobs", "1")
    stored = db.rows(sqlite3.connect(database), "WHERE row = 23")[0]
    scenario = tmp_path / "row23.toml"
    status, out, err = run(capsys, "campaign", "rerun", str(database), "23", "--scenario", str(scenario))
    assert (status, err) == (0, "")
    assert out.startswith(
        f"Row 23 of {database}: utilisation = 0.8 (point 1), set 2, seed {stored['seed']}, protocol pcp\n"
    )
    assert out.endswith("reproduced: yes\n")
    status, out, err = run(
        capsys, "simulate", str(scenario), "--json", "--horizon", str(stored["horizon"] + 60)
    )
    assert (status, err) == (0, "")
    assert '"protocol": "pcp"' in out
    assert run(capsys, "campaign", "rerun", str(database), "99") == (
        2,
        "",
        f"priora: {database}: no row 99 (rows 1..36, some may not have run yet)\n",
    )


def test_findings_are_flagged_with_their_rows(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    spec = spec_file(tmp_path, SLOW_CPU)
    database = tmp_path / "slow.sqlite"
    out = campaign(capsys, spec, database, "--jobs", "1")
    found = db.rows(sqlite3.connect(database), "WHERE finding = 1")
    assert found and all(r["analysis"] == 1 and r["misses"] > 0 for r in found)
    first = found[0]
    assert (
        f"  row {first['row']}: tasks = {first['axis_value']:g}, set {first['set_index']}, {first['protocol']}: "
        f"{first['misses']} of {first['jobs']} jobs missed; priora campaign rerun {database} {first['row']}\n"
    ) in out
    assert "(the analysis assumes zero overheads; the kernel ran with cost model measured)" in out
    status, out, err = run(capsys, "campaign", "rerun", str(database), str(first["row"]))
    assert (status, err) == (0, "") and out.endswith("reproduced: yes\n")


# ---------------------------------------------------------------- exports, summary, plots


def test_csv_export_has_every_row(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    spec = spec_file(tmp_path)
    database = tmp_path / "a.sqlite"
    campaign(capsys, spec, database, "--jobs", "1", "--csv", str(tmp_path / "run.csv"))
    assert run(capsys, "campaign", "export", str(database), "--csv", str(tmp_path / "a.csv")) == (
        0,
        f"wrote 36 rows to {tmp_path / 'a.csv'}\n",
        "",
    )
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "run.csv").read_bytes()
    with (tmp_path / "a.csv").open() as f:
        table = list(csv.reader(f))
    assert tuple(table[0]) == db.NAMES
    rows = db.rows(sqlite3.connect(database))
    assert len(table) == 1 + len(rows)
    for line, row in zip(table[1:], rows, strict=True):
        assert line == ["" if row[n] is None else str(row[n]) for n in db.NAMES]


def test_summary_and_plots(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    database = tmp_path / "quick.sqlite"
    out = campaign(capsys, QUICK, database, "--jobs", "1")
    status, summary, err = run(capsys, "campaign", "summary", str(database))
    assert (status, err) == (0, "") and summary == out
    lines = summary.splitlines()
    assert lines[0] == f"Campaign {QUICK}: quick: 6 tasks, 2 mutexes"
    assert lines[5].split() == ["utilisation", "none", "pip", "pcp", "ipcp", "npcs", "rcs"]
    assert [line.split()[0] for line in lines[7:12]] == ["0.5", "0.7", "0.9", "all", "weighted"]
    for suffix in ("png", "svg", "pdf"):
        out_file = tmp_path / f"quick.{suffix}"
        assert run(capsys, "campaign", "plot", str(database), str(out_file)) == (0, f"wrote {out_file}\n", "")
        assert out_file.stat().st_size > 1000
    first = (tmp_path / "quick.svg").read_bytes()
    run(capsys, "campaign", "plot", str(database), str(tmp_path / "quick.svg"))
    assert (tmp_path / "quick.svg").read_bytes() == first
    assert run(capsys, "campaign", "plot", str(database), str(tmp_path / "quick.gif")) == (
        2,
        "",
        f"priora: plot: {tmp_path / 'quick.gif'}: the file name must end with .png or .svg or .pdf\n",
    )


# ---------------------------------------------------------------- bad specifications


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[generator]\n", "[campaign]: missing: a campaign needs this table"),
        (
            '[campaign]\nsets = 1\n[campaign.axis]\nparameter = "tasks"\npoints = [2]\n[extra]\n',
            "extra: unknown table (expected [campaign] and [generator])",
        ),
        (
            "[campaign]\nset = 1\n",
            "[campaign] set: unknown key (expected one of: title, seed, sets, protocols, run, horizon, cost_model, cpu_hz, axis)",
        ),
        ("[campaign]\nsets = 0\n", "[campaign] sets: must be in 1..1000000, got 0"),
        (
            '[campaign]\nprotocols = ["pip", "srp"]\n',
            '[campaign] protocols: unknown name "srp" (expected none, pip, pcp, ipcp, npcs, rcs)',
        ),
        (
            "[campaign]\nrun = []\n",
            "[campaign] run: must be a non-empty list of names (analysis, simulation), got an array",
        ),
        (
            '[campaign]\ncost_model = "measured"\n',
            '[campaign] cost_model: "measured" needs cpu_hz, the simulated CPU\'s clock rate',
        ),
        (
            "[campaign]\ncpu_hz = 1000\n",
            '[campaign] cpu_hz: only with cost_model = "measured" (it converts instruction counts to time)',
        ),
        (
            '[campaign]\ncost_model = "measured"\ncpu_hz = 200000\n[campaign.axis]\nparameter = "tasks"\npoints = [2]\n',
            "[campaign] cpu_hz: 200000 Hz: the tick costs 460000 ns, not less than the tick period (100000 ns at "
            "tick_hz 10000): the tick interrupt would take all the time and nothing else would ever run",
        ),
        ("[campaign]\n", "[campaign.axis]: missing: a campaign needs this table"),
        (
            "[campaign.axis]\npoints = [1]\n",
            "[campaign.axis] parameter: missing: name the generator parameter the axis varies (tasks, utilisation, task_utilisation_max, period_max, mutexes, sections_per_job, section_length, nesting_depth, sharing_factor)",
        ),
        (
            '[campaign.axis]\nparameter = "deadlines"\npoints = [1]\n',
            '[campaign.axis] parameter: unknown value "deadlines" (expected "tasks", "utilisation", "task_utilisation_max", "period_max", "mutexes", "sections_per_job", "section_length", "nesting_depth" or "sharing_factor")',
        ),
        (
            '[campaign.axis]\nparameter = "tasks"\n',
            "[campaign.axis] points: missing: give points = [...], or from and to with step or count",
        ),
        (
            '[campaign.axis]\nparameter = "tasks"\npoints = [2, "3"]\n',
            '[campaign.axis] points[1]: must be a number, got a string ("3")',
        ),
        (
            '[campaign.axis]\nparameter = "tasks"\npoints = [2, 1025]\n',
            "[campaign.axis] points[1] (tasks = 1025): must be in 1..1024, got 1025",
        ),
        (
            '[campaign.axis]\nparameter = "utilisation"\nfrom = 0.5\nto = 0.9\n',
            "[campaign.axis] step: give one of step and count",
        ),
        (
            '[campaign.axis]\nparameter = "utilisation"\nfrom = 0.5\nto = 0.4\nstep = 0.1\n',
            "[campaign.axis] to: is below from (0.5)",
        ),
        (
            '[campaign.axis]\nparameter = "utilisation"\npoints = [0.5]\nstep = 0.1\n',
            "[campaign.axis] step: give either points or from/to with step or count, not both",
        ),
        (
            '[campaign.axis]\nparameter = "utilisation"\npoints = [0.5]\n[generator]\nutilisation = 0.3\n',
            "[generator] utilisation: is the axis' parameter: its value comes from the axis points",
        ),
        (
            '[campaign]\nhorizon = "forever"\n[campaign.axis]\nparameter = "tasks"\npoints = [2]\n',
            '[campaign] horizon: must be "hyperperiod", "busy-period" or a time, got "forever"',
        ),
        (
            '[campaign.axis]\nparameter = "tasks"\npoints = [2]\n[generator]\nperiods = "log-uniform"\n',
            '[campaign] horizon: "hyperperiod" with log-uniform periods needs [generator] hyperperiod_max (or give horizon = "busy-period" or a time)',
        ),
        (
            '[campaign.axis]\nparameter = "tasks"\npoints = [2]\n[generator]\nmutexs = 2\n',
            "[generator] mutexs: unknown key (expected one of: tasks, utilisation, utilisation_method, task_utilisation_min, task_utilisation_max, periods, period_min, period_max, period_granularity, hyperperiod_max, deadlines, deadline_factor, priorities, phases, mutexes, sections_per_job, section_length, nesting_depth, sharing, sharing_factor, tick_hz, time_unit, protocol, horizon)",
        ),
    ],
)
def test_bad_specifications_are_one_line_errors(text: str, message: str) -> None:
    if "[campaign]" not in text and "[campaign." in text:
        text = "[campaign]\n" + text
    with pytest.raises(SpecError) as err:
        parse_campaign("c.toml", text, decode_toml(text, "c.toml"))
    assert str(err.value) == f"c.toml: {message}"


def test_bad_specifications_on_the_command_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    spec = spec_file(tmp_path, SMALL.replace("sets = 3", "sets = -1"))
    assert run(capsys, "campaign", str(spec)) == (
        2,
        "",
        f"priora: {spec}: [campaign] sets: must be in 1..1000000, got -1\n",
    )
    missing = tmp_path / "missing.toml"
    assert run(capsys, "campaign", str(missing)) == (
        2,
        "",
        f"priora: {missing}: cannot read the file: No such file or directory\n",
    )
    assert run(capsys, "campaign", str(spec_file(tmp_path)), "--plot", "out.gif") == (
        2,
        "",
        "priora: --plot: out.gif: the file name must end with .png or .svg or .pdf\n",
    )
    assert run(capsys, "campaign", "summary", str(tmp_path / "none.sqlite")) == (
        2,
        "",
        f"priora: {tmp_path / 'none.sqlite'}: no such file\n",
    )


def test_axis_from_to_step_is_exact() -> None:
    text = '[campaign]\n[campaign.axis]\nparameter = "utilisation"\nfrom = 0.1\nto = 0.3\nstep = 0.1\n'
    c = parse_campaign("c.toml", text, decode_toml(text, "c.toml"))
    assert c.points == (0.1, 0.2, 0.3)
    assert [p.utilisation for p in c.params] == [(0.1, 0.1), (0.2, 0.2), (0.3, 0.3)]
    for row in range(1, c.total_sets * len(c.protocols) + 1):
        assert c.row(*c.locate(row)) == row

"""The HTML report (priora.pictures.html_report, `--html OUT.html`): the page as
written (self-contained, deterministic, its data and tables), and the page as
headless Chromium renders it (headless_chromium.py): no console error, no
request but the file itself, the chart's rows and bars in the DOM, zoom by a
real wheel event, pan by a drag, reset, and a screenshot with the chart's
colours in it.

The schedules are worked out by hand in the comments; the counts in the DOM
are compared with them and with priora.trace.timeline's intervals.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from headless_chromium import Browser, Page
from PIL import Image

from priora.cli.main import main
from priora.pictures import gantt, html_report
from priora.run.simulate import simulate
from priora.scenario.loader import load
from priora.trace.timeline import Interval, extract

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
INVERSION = EXAMPLES / "inversion.toml"

# Two periodic tasks, horizon 10 (the hyperperiod): A (2) runs 0-2 and 5-7;
# B (1), deadline 4, runs 2-5 and finishes at 5: it misses its deadline at 4.
MISS = """\
[system]
tick_hz = 1000
time_unit = "ms"

[tasks.A]
priority = 2
period = 5
body = ["compute 2"]

[tasks.B]
priority = 1
period = 10
deadline = 4
body = ["compute 3"]
"""


def rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


class Tables(HTMLParser):
    """The text of every cell of every <table>, by the table's class."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.data: dict[str, str] = {}  # <script type="application/json"> by id
        self._table: list[list[str]] | None = None
        self._cell: list[str] | None = None
        self._script: str | None = None
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag == "table":
            self._table = self.tables.setdefault(attributes.get("class") or "", [])
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "script" and attributes.get("type") == "application/json":
            self._script = attributes.get("id") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = None
        elif tag in ("td", "th") and self._cell is not None and self._table is not None:
            self._table[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "script":
            self._script = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._script is not None:
            self.data[self._script] = self.data.get(self._script, "") + data


def parse(text: str) -> Tables:
    tables = Tables()
    tables.feed(text)
    return tables


def page_of(path: Path, protocol: str | None = None) -> str:
    scenario = load(path)
    if protocol is not None:
        scenario = scenario.with_protocol(protocol)  # type: ignore[arg-type]
    return html_report.render(simulate(scenario))


@pytest.fixture
def miss_file(tmp_path: Path) -> Path:
    path = tmp_path / "miss.toml"
    path.write_text(MISS)
    return path


# ---------------------------------------------------------------- the page as written


def test_colours_are_the_png_charts() -> None:
    assert html_report.EXEC_COLOUR == gantt.EXEC_COLOUR
    assert html_report.RESOURCE_COLOURS == gantt.RESOURCE_COLOURS
    assert html_report.MISS_COLOUR == gantt.MISS_COLOUR
    assert html_report.REFUSAL_COLOUR == gantt.REFUSAL_COLOUR


def test_the_page_fetches_nothing() -> None:
    page = parse(page_of(INVERSION))
    tags = {tag for tag, _ in page.tags}
    assert not tags & {"link", "img", "iframe", "object", "embed", "base"}
    for tag, attributes in page.tags:
        assert "src" not in attributes and "href" not in attributes, tag
    scripts = [a for tag, a in page.tags if tag == "script"]
    assert [a.get("type") for a in scripts] == ["application/json", None]
    csp = next(a["content"] for tag, a in page.tags if tag == "meta" and a.get("http-equiv"))
    assert csp is not None and csp.startswith("default-src 'none';")


def test_the_chart_data_is_the_timeline() -> None:
    # Under pip: L runs 0-1, H 1-2 and blocks on S, L (raised to 3) 2-5 and
    # unlocks, H 5-7 (S held 5-6), M 7-12, L 12-13.
    data = json.loads(parse(page_of(INVERSION)).data["priora-data"])
    assert (data["end"], data["unit"]) == (13, "ms")
    assert data["resources"] == [{"name": "S", "colour": gantt.RESOURCE_COLOURS[0]}]
    rows = {t["name"]: t for t in data["tasks"]}
    assert [t["name"] for t in data["tasks"]] == ["H", "M", "L"]  # most urgent first
    assert rows["L"]["runs"] == [[0, 1], [2, 5], [12, 13]]
    assert rows["H"]["runs"] == [[1, 2], [5, 7]]
    assert rows["M"]["runs"] == [[7, 12]]
    assert rows["L"]["holds"] == [[0, 5, 0]] and rows["H"]["holds"] == [[5, 6, 0]]
    assert rows["L"]["inside"] == [[0, 1, 0, ""], [2, 5, 0, ""]]
    assert rows["H"]["inside"] == [[5, 6, 0, ""]]
    assert rows["H"]["blocked"] == [[2, 5, 0, 0, 0]]
    assert rows["L"]["boosts"] == [[2, 5, 3, 0]]
    assert [rows[n]["releases"] for n in "LHM"] == [[[0, 1]], [[1, 1]], [[2, 1]]]
    assert all(rows[n]["deadlines"] == rows[n]["misses"] == [] for n in "LHM")


def test_the_analysis_beside_the_run() -> None:
    # pip: L's section (4 ms) can block H directly and M by push-through, so
    # B = 4 for both; R_H = 3 + 4 = 7, R_M = 5 + 4 + 3 (H) = 12, R_L = 5 + 3 + 5
    # = 13. The run's worst responses: L 13, H 6, M 10 (blocked: H 3 ms).
    page = parse(page_of(INVERSION))
    rows = page.tables["analysis-table"]
    assert rows[0] == [
        "task", "priority", "deadline (ms)", "jobs run", "worst simulated response (ms)",
        "max blocked in the run (ms)", "B, blocking bound (ms)", "R, response bound (ms)",
        "analysis verdict", "simulated <= R",
    ]  # fmt: skip
    assert rows[1:] == [
        ["L", "1", "-", "1", "13", "0", "0", "13", "no deadline", "yes"],
        ["H", "3", "-", "1", "6", "3", "4", "7", "no deadline", "yes"],
        ["M", "2", "-", "1", "10", "0", "4", "12", "no deadline", "yes"],
    ]
    assert page.tables["tasks-table"][2][:4] == ["H", "1", "6", "6"]
    assert page.tables["resources-table"][1] == ["S", "mutex", "pip", "-", "2", "2", "1", "5", "0"]
    assert ["context switches", "7"] in page.tables["system-table"]
    jobs = page.tables["jobs-table"]
    assert [r[:6] for r in jobs[1:]] == [["L", "1", "0", "0", "13", "13"], ["H", "1", "1", "1", "7", "6"],
                                         ["M", "1", "2", "7", "12", "10"]]  # fmt: skip


def test_a_miss_and_an_analysis_that_fails(miss_file: Path) -> None:
    # R_A = 2 <= 5; R_B = 3 + 2 (A) = 5 > 4. The run: B finishes at 5, late.
    page = parse(page_of(miss_file))
    assert [r[:10] for r in page.tables["analysis-table"][1:]] == [
        ["A", "2", "5", "2", "2", "0", "0", "2", "schedulable (R <= D)", "yes"],
        ["B", "1", "4", "1", "5", "0", "0", "5", "not shown schedulable (R > D)", "yes"],
    ]
    tests = {r[0]: r[1] for r in page.tables["tests-table"][1:]}
    assert tests["response-time analysis"] == "no"
    data = json.loads(page.data["priora-data"])
    rows = {t["name"]: t for t in data["tasks"]}
    assert rows["B"]["misses"] == [[4, 4, 5]]  # at 4, late from 4 to 5
    assert rows["B"]["deadlines"] == [[4, 1, 1]]
    assert rows["A"]["deadlines"] == [[5, 1, 0], [10, 2, 0]]


def test_a_task_set_outside_the_analysis() -> None:
    page = page_of(EXAMPLES / "producer_consumer.toml")
    assert "No analysis for this task set: " in page
    assert "down slots: a down that may wait for another task" in page
    rows = parse(page).tables["analysis-table"]
    assert [r[-2:] for r in rows[1:]] == [["-", "-"], ["-", "-"]]


def test_mixed_protocols_are_named(tmp_path: Path) -> None:
    path = tmp_path / "mixed.toml"
    path.write_text(
        '[system]\ntick_hz = 1000\ntime_unit = "ms"\nprotocol = "pip"\n'
        '[resources.A]\nkind = "mutex"\nprotocol = "pcp"\n[resources.B]\nkind = "mutex"\n'
        '[tasks.T]\npriority = 1\nbody = ["lock A", "compute 1", "unlock A", "lock B", "compute 1", "unlock B"]\n'
    )
    page = page_of(path)
    assert (
        "The run&#x27;s mutexes use the protocols pcp, pip; the analysis applies the file&#x27;s "
        "[system] protocol, pip, to every mutex." in page
    )
    assert "under protocol <b>pip</b>" in page


def test_the_jobs_listed_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html_report, "MAX_JOB_ROWS", 2)
    page = page_of(INVERSION)
    assert "<summary>the first 2 of 3 jobs (click to show)</summary>" in page
    assert len(parse(page).tables["jobs-table"]) == 1 + 2


def test_the_chart_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # The inversion's 16 bars and marks start at 0 0 0 1 1 2 2 2 2 5 5 7 7 12
    # 12 13 (runs, holds, the wait, the boost, releases, finishes): the 11th
    # starts at 5, so the chart of 10 ends at 5, what was open closed there.
    monkeypatch.setattr(html_report, "MAX_CHART_ITEMS", 10)
    page = page_of(INVERSION)
    assert (
        '<p class="note">The chart shows the run up to 5 ms, its first 10 bars and marks; '
        "the tables cover the whole run." in page
    )
    data = json.loads(parse(page).data["priora-data"])
    rows = {t["name"]: t for t in data["tasks"]}
    assert data["end"] == 5
    assert [rows[n]["runs"] for n in "LHM"] == [[[0, 1], [2, 5]], [[1, 2]], []]
    assert rows["L"]["holds"] == [[0, 5, 0]] and rows["H"]["holds"] == []
    assert rows["H"]["blocked"] == [[2, 5, 0, 0, 0]] and rows["L"]["boosts"] == [[2, 5, 3, 0]]
    assert len(parse(page).tables["jobs-table"]) == 1 + 3  # the tables are whole


def test_same_run_same_bytes(tmp_path: Path) -> None:
    # In two processes with different string hashes: no set order leaks out.
    pages = []
    for seed in ("1", "2"):
        page = tmp_path / f"{seed}.html"
        command = [
            sys.executable,
            "-m",
            "priora",
            "simulate",
            str(EXAMPLES / "protocols.toml"),
            "--html",
            str(page),
        ]
        done = subprocess.run(
            command, capture_output=True, env={**os.environ, "PYTHONHASHSEED": seed}, timeout=120
        )
        assert done.returncode == 0, done.stderr
        pages.append(page.read_bytes())
    assert pages[0] == pages[1]
    assert pages[0].count(b"\r") == 0


# ---------------------------------------------------------------- the command


def test_simulate_html_header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "costly.toml"
    path.write_text(
        INVERSION.read_text().replace('protocol = "pip"', 'protocol = "pip"\ncost_model = "rtmach93"')
    )
    out = tmp_path / "r.html"
    assert main(["simulate", str(path), "--protocol", "none", "--html", str(out)]) == 0
    assert capsys.readouterr().out.startswith("Jobs\n")  # the report is printed as without --html
    text = out.read_text()
    assert "<title>costly.toml: protocol none, host, cost model rtmach93</title>" in text
    assert "<h1>costly.toml: protocol none, host, cost model rtmach93</h1>" in text
    assert f"<dt>scenario file</dt><dd>{path}</dd>" in text
    assert "<dt>target</dt><dd>host: the kernel&#x27;s host port, in the lab</dd>" in text
    assert "<dt>kernel costs</dt><dd>cost model rtmach93</dd>" in text


def test_run_html_names_the_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "q.html"
    assert main(["run", str(INVERSION), "--target", "qemu-rv32", "--html", str(out)]) == 0
    text = out.read_text()
    assert "<title>inversion.toml: protocol pip, qemu-rv32, QEMU&#x27;s costs</title>" in text
    assert "<h1>inversion.toml: protocol pip, qemu-rv32, QEMU&#x27;s costs</h1>" in text
    assert "<dt>target</dt><dd>qemu-rv32: the kernel, bare metal on QEMU</dd>" in text
    # The kernel's costs on QEMU make L finish after 13 ms, the bound without costs.
    (l_row,) = [r for r in parse(text).tables["analysis-table"] if r[0] == "L"]
    assert l_row[7] == "13" and float(l_row[4]) > 13
    assert l_row[9] == f"no: {html_report._t(float(l_row[4]) - 13)} ms over"


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("r.txt", "the file name must end with .html or .htm"),
        ("no/such/r.html", "directory {parent} does not exist"),
        ("no/such/r.HTM", "directory {parent} does not exist"),  # the suffix in any case
    ],
)
def test_bad_html_output_is_refused_before_running(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    reason: str,
) -> None:
    ran: list[object] = []
    monkeypatch.setattr("priora.run.simulate.simulate", lambda *a: ran.append(a))
    out_path = tmp_path / name
    assert main(["simulate", str(INVERSION), "--html", str(out_path)]) == 2
    out, err = capsys.readouterr()
    assert (out, ran) == ("", [])
    assert err == f"priora: --html: {out_path}: {reason.format(parent=out_path.parent)}\n"


def test_unwritable_html_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taken = tmp_path / "taken.html"
    taken.mkdir()  # a directory of that name: open() fails
    assert main(["simulate", str(INVERSION), "--html", str(taken)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"priora: --html: cannot write {taken}: Is a directory\n"


# ---------------------------------------------------------------- the page in Chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    b = Browser()
    try:
        yield b
    finally:
        b.close()


def opened(browser: Browser, path: Path) -> Page:
    page = browser.page()
    page.load(path)
    return page


ROW_CLASSES = (
    "run",
    "inside",
    "hold",
    "blocked",
    "boost",
    "release",
    "deadline",
    "missed",
    "miss",
    "overrun",
)


def counts(page: Page, classes: tuple[str, ...] = ROW_CLASSES) -> dict[str, dict[str, int]]:
    """Per row of the chart (data-task), how many elements of each class it draws."""
    script = (
        "Object.fromEntries([...document.querySelectorAll('#gantt g.row')].map(g => [g.dataset.task, "
        f"Object.fromEntries({json.dumps(classes)}.map(c => [c, g.getElementsByClassName(c).length]))]))"
    )
    found: dict[str, dict[str, int]] = page.evaluate(script)
    return found


def view(page: Page) -> tuple[float, float]:
    t0, t1 = page.evaluate("(s => [s.dataset.t0, s.dataset.t1])(document.querySelector('#gantt svg'))")
    return float(t0), float(t1)


def colours(image: Image.Image) -> dict[tuple[int, int, int], int]:
    """How many pixels of each colour an RGB image has."""
    found = image.getcolors(maxcolors=image.width * image.height)
    assert found is not None
    return {colour: count for count, colour in found}


def box(page: Page, selector: str) -> dict[str, float]:
    found: dict[str, float] = page.evaluate(
        f"(r => ({{left: r.left, top: r.top, width: r.width, height: r.height}}))"
        f"(document.querySelector({json.dumps(selector)}).getBoundingClientRect())"
    )
    return found


def test_inversion_in_chromium(browser: Browser, tmp_path: Path) -> None:
    path = tmp_path / "inversion.html"
    assert main(["simulate", str(INVERSION), "--html", str(path)]) == 0
    page = opened(browser, path)
    assert page.problems() == []
    assert page.requests() == [path.resolve().as_uri()]  # nothing fetched but the page
    none = dict.fromkeys(("deadline", "missed", "miss", "overrun"), 0)
    # The schedule of test_the_chart_data_is_the_timeline, row by row.
    assert counts(page) == {
        "H": {"run": 2, "inside": 1, "hold": 1, "blocked": 1, "boost": 0, "release": 1, **none},
        "M": {"run": 1, "inside": 0, "hold": 0, "blocked": 0, "boost": 0, "release": 1, **none},
        "L": {"run": 3, "inside": 2, "hold": 1, "blocked": 0, "boost": 1, "release": 1, **none},
    }
    assert page.evaluate("[...document.querySelectorAll('#gantt text.label')].map(t => t.textContent)") == [
        "H  (p3)",
        "M  (p2)",
        "L  (p1)",
    ]
    assert view(page) == (0, 13)
    assert page.evaluate("document.getElementById('range').textContent") == "0 to 13 ms"

    # A wheel notch up over the plot halves the range, the time under the
    # pointer staying where it is. (Input events carry whole pixels.)
    plot = box(page, "#gantt rect.frame")
    x, y = round(plot["left"]) + 250, round(plot["top"]) + 30
    at = (x - plot["left"]) / plot["width"] * 13
    page.wheel(x, y, -100)
    t0, t1 = view(page)
    assert t0 == pytest.approx(at / 2) and t1 == pytest.approx(at / 2 + 6.5)
    assert 1.5 < t0 < 2 and 8 < t1 < 8.5  # at is 3.28 ms
    # Only the runs that overlap (t0, t1): L 2-5, H 1-2 and 5-7, M 7-12.
    assert {task: c["run"] for task, c in counts(page).items()} == {"H": 2, "M": 1, "L": 1}
    assert page.evaluate("document.getElementById('range').textContent") == f"{t0:.10g} to {t1:.10g} ms"

    # A drag to the left by 200 px moves the range later by 200 px of it.
    page.drag(x, y, x - 200)
    shift = 200 / plot["width"] * 6.5
    assert view(page) == (pytest.approx(t0 + shift), pytest.approx(t1 + shift))

    button = box(page, "#reset")
    page.click(button["left"] + button["width"] / 2, button["top"] + button["height"] / 2)
    assert view(page) == (0, 13)
    page.wheel(x, y, 100)  # zooming out of the whole run shows the whole run
    assert view(page) == (0, 13)

    # The keyboard, the chart focused by a click: + halves the range around
    # its middle, an arrow moves it by a tenth, - doubles it, 0 resets.
    page.click(x, y)
    page.key("+")
    assert view(page) == (3.25, 9.75)
    page.key("ArrowRight")
    assert view(page) == (pytest.approx(3.9), pytest.approx(10.4))
    page.key("-")
    assert view(page) == (0, 13)
    page.key("+")
    page.key("0")
    assert view(page) == (0, 13)

    png = page.screenshot()
    (tmp_path / "inversion.png").write_bytes(png)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.size == (1200, 900)
    pixels = colours(image)
    # The blue of running (L 12-13, H 6-7, M 7-12: 7 ms of 13 across ~990 px,
    # bars ~19 px high) and S's orange (5 ms of running inside it).
    assert pixels[rgb(gantt.EXEC_COLOUR)] > 7 / 13 * 900 * 15
    assert pixels[rgb(gantt.RESOURCE_COLOURS[0])] > 5 / 13 * 900 * 15
    assert page.problems() == []
    page.close()


def test_a_miss_in_chromium(browser: Browser, miss_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "miss.html"
    assert main(["simulate", str(miss_file), "--html", str(path)]) == 0
    page = opened(browser, path)
    assert page.problems() == []
    found = counts(page)
    # A: released at 0 and 5, deadlines 5 and 10 (the end of the run), met.
    # B: released at 0, deadline 4 missed: a red arrow, a cross, the overrun 4-5.
    assert found["A"] == {"run": 2, "inside": 0, "hold": 0, "blocked": 0, "boost": 0, "release": 2,
                          "deadline": 2, "missed": 0, "miss": 0, "overrun": 0}  # fmt: skip
    assert found["B"] == {"run": 1, "inside": 0, "hold": 0, "blocked": 0, "boost": 0, "release": 1,
                          "deadline": 1, "missed": 1, "miss": 1, "overrun": 1}  # fmt: skip
    image = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
    assert colours(image)[rgb(gantt.MISS_COLOUR)] > 0
    page.close()


def overlaps(executions: tuple[Interval, ...], within: Interval) -> list[tuple[int, int]]:
    """The pieces of `executions` inside `within`, by brute force."""
    pieces = [(max(e.start, within.start), min(e.end, within.end)) for e in executions]
    return [(a, b) for a, b in pieces if b > a]


@pytest.mark.parametrize(
    ("name", "protocol", "shows"),
    [
        ("protocols.toml", "rcs", ("lost", "abort")),
        ("protocols.toml", "pcp", ("blocked", "boost")),
        ("rcs/recovery.toml", None, ("recovery", "abort")),
        ("deadlock.toml", None, ("refusal", "blocked")),
        ("chain.toml", None, ("boost", "hold")),
        ("producer_consumer.toml", None, ("blocked",)),
        ("rtmach_benchmark1.toml", None, ("hold", "boost")),
    ],
)
def test_examples_render_in_chromium(
    browser: Browser, tmp_path: Path, name: str, protocol: str | None, shows: tuple[str, ...]
) -> None:
    """Each example draws what its timeline has, and at least one of what it is here for (`shows`)."""
    path = tmp_path / "page.html"
    argv = ["simulate", str(EXAMPLES / name), "--html", str(path)]
    assert main([*argv, *(["--protocol", protocol] if protocol else [])]) == 0
    page = opened(browser, path)
    assert page.problems() == []
    scenario = load(EXAMPLES / name)
    timeline = extract(simulate(scenario.with_protocol(protocol) if protocol else scenario))  # type: ignore[arg-type]
    expected: dict[str, Any] = {
        t.name: {
            "run": len(t.executions),
            "hold": len(t.critical_sections) + len(t.recoveries),
            "blocked": len(t.blocked),
            "boost": len(t.boosts),
            "release": len(t.releases),
            "lost": sum(len(overlaps(t.executions, c)) for c in t.critical_sections if c.aborted),
            "recovery": sum(len(overlaps(t.executions, r)) for r in t.recoveries),
            "abort": len(t.aborts),
            "refusal": len(t.refusals),
        }
        for t in timeline.by_urgency()
    }
    found = counts(page, tuple(expected[timeline.tasks[0].name]))
    assert found == expected
    assert all(sum(row[kind] for row in found.values()) > 0 for kind in shows)
    assert list(found) == list(expected)  # most urgent first
    page.close()

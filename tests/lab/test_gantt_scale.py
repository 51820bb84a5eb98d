"""Gantt charts of windows and of long runs: the plan (priora.pictures.gantt_model:
what is drawn, in the file's unit), the collections priora.pictures.gantt makes of it,
--window/--size/--dpi and their messages, the title, the legend, the formats.
Every expected element is worked out by hand in the comments."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest

from priora.cli.main import main
from priora.costs.model import named
from priora.pictures import gantt, gantt_model
from priora.pictures.gantt_model import OptionError, Plan, Spans, parse_dpi, parse_size, parse_window, plan
from priora.run.simulate import SimResult, simulate
from priora.scenario.model import Action, Resource, Scenario, System, Task
from priora.trace.timeline import extract

MS = 1_000_000

# ---------------------------------------------------------------- scenarios


def compute(ticks: int) -> Action:
    return Action("compute", ticks=ticks)


def inversion(cost_model: str | None = None) -> Scenario:
    """L (1) at 0: lock S, compute 4, unlock S, compute 1; H (3) at 1: compute
    1, lock S, compute 1, unlock S, compute 1; M (2) at 2: compute 5. pip,
    1000 Hz, in ms. It runs: L [0,1) in S, H [1,2), L [2,5) in S (inheriting
    3 while H waits for S [2,5)), H [5,6) in S, H [6,7), M [7,12), L [12,13)."""
    lock, unlock = Action("lock", "S"), Action("unlock", "S")
    tasks = (
        Task("L", 1, None, 0, None, (lock, compute(4), unlock, compute(1))),
        Task("H", 3, None, 1, None, (compute(1), lock, compute(1), unlock, compute(1))),
        Task("M", 2, None, 2, None, (compute(5),)),
    )
    costs = named(cost_model, None) if cost_model else None
    system = System(1000, "ms", None, "pip", cost_model=costs)
    return Scenario("inversion.toml", system, (Resource("S", "mutex", "pip", 1, None, "priority"),), tasks)


def late() -> Scenario:
    """A (2) period 10: compute 3. B (1) period 100, phase 100, deadline 20:
    compute 18. Horizon 200. B's job 1 (released at 100) gets 7 ms of each
    10 (A takes 3): 14 by its deadline 120, so it misses there, the first
    miss; it finishes at 127 (4 ms more after A's [120,123))."""
    tasks = (
        Task("A", 2, 10, 0, None, (compute(3),)),
        Task("B", 1, 100, 100, 20, (compute(18),)),
    )
    return Scenario("late.toml", System(1000, "ms", 200, "pip"), (), tasks)


def busy() -> Scenario:
    """A (2) period 2: compute 1; U (1) period 6: compute 2; horizon 2400:
    1,200 jobs of A, 400 of U. U runs [1,2) and [3,4) after its release at
    6k: per 20 ms slice, 7 ms in [0,20) and [20,40), 6 in [40,60), and so
    on every 60 ms."""
    tasks = (Task("A", 2, 2, 0, None, (compute(1),)), Task("U", 1, 6, 0, None, (compute(2),)))
    return Scenario("busy.toml", System(1000, "ms", 2400, "pip"), (), tasks)


@pytest.fixture(scope="module")
def inversion_run() -> SimResult:
    return simulate(inversion())


# ---------------------------------------------------------------- windows


def test_a_window_keeps_what_it_overlaps_cut_at_its_ends(inversion_run: SimResult) -> None:
    # Rows: H 2, M 1, L 0. In [4,8]: L runs [4,5) in S (inheriting 3),
    # H waits [4,5), runs [5,6) in S and [6,7); M runs [7,8). The releases
    # (0, 1, 2) are before the window; no task has a deadline.
    drawn = plan(extract(inversion_run), window=(4 * MS, 8 * MS), axis_pixels=720, dpi=120)
    assert (drawn.start, drawn.end, drawn.aggregated) == (4.0, 8.0, False)
    assert drawn.spans == (
        Spans("hold", "S", "", (2, 0), (5.0, 4.0), (6.0, 5.0)),
        Spans("blocked", "S", "", (2,), (4.0,), (5.0,)),
        Spans("running", "", "", (2, 1), (6.0, 7.0), (7.0, 8.0)),
        Spans("running", "S", "", (2, 0), (5.0, 4.0), (6.0, 5.0)),
        Spans("boost", "inherit", "", (0,), (4.0,), (5.0,)),
    )
    assert drawn.instants == ()
    assert [(lb.kind, lb.row, lb.x, lb.text) for lb in drawn.labels] == [
        ("semaphore", 2, 4.5, "S"),
        ("boost", 0, 4.5, "p3"),
    ]
    assert drawn.subtitle == "host port (simulated), protocol pip, cost model zero\nwindow 4 to 8 of 13 ms"


def bars(fig: Any, colour: str) -> list[tuple[float, float, float]]:
    """(start, end, row centre) of every rectangle of the collections filled with `colour`."""
    from matplotlib.colors import to_rgba

    found = []
    for collection in fig.axes[0].collections:
        faces = collection.get_facecolor()
        if len(faces) and tuple(faces[0]) == to_rgba(colour, faces[0][3]):
            for path in collection.get_paths():
                xs, ys = path.vertices[:, 0], path.vertices[:, 1]
                found.append((float(xs.min()), float(xs.max()), round(float(ys.min() + ys.max()) / 2, 6)))
    return sorted(found)


def test_the_figure_draws_one_collection_per_kind(inversion_run: SimResult) -> None:
    fig = gantt.figure(extract(inversion_run), window=(4 * MS, 8 * MS))
    assert bars(fig, gantt.EXEC_COLOUR) == [(6.0, 7.0, 2.0), (7.0, 8.0, 1.0)]
    s = gantt.RESOURCE_COLOURS[0]
    # S's colour: the running inside S, and the pale hold band behind it.
    assert bars(fig, s) == [(4.0, 5.0, 0.0), (4.0, 5.0, 0.0), (5.0, 6.0, 2.0), (5.0, 6.0, 2.0)]
    assert fig.axes[0].get_xlim() == (4.0, 8.0)
    assert len(fig.axes[0].collections) == 5  # hold, blocked, running, running in S, boost


def test_window_miss_centres_on_the_first_miss() -> None:
    # B's first miss is at 120, its relative deadline 20: 40 either side.
    result = simulate(late())
    tl = extract(result)
    assert gantt_model.first_miss(tl) == (120 * MS, 20 * MS)
    assert gantt_model.resolve("miss", tl) == (80 * MS, 160 * MS, None)
    drawn = gantt.build(tl, window="miss")[1]
    assert (drawn.start, drawn.end) == (80.0, 160.0)
    # A's releases 80, 90, ..., 160 (both ends in), with their deadlines
    # (90 .. 160: 170 is after the window); B's release at 100, its
    # deadline missed at 120, and late from 120 to its finish at 127.
    release = drawn.instants_of("release")
    assert release is not None and sorted(zip(release.rows, release.times, strict=True)) == [
        *((0, 100.0),),
        *((1, float(t)) for t in range(80, 161, 10)),
    ]
    missed = drawn.instants_of("missed deadline")
    assert missed is not None and (missed.rows, missed.times) == ((0,), (120.0,))
    assert drawn.spans_of("overrun") == [Spans("overrun", "", "", (0,), (120.0,), (127.0,))]


def test_window_miss_without_a_miss_draws_the_whole_run(inversion_run: SimResult, tmp_path: Path) -> None:
    notice = gantt.draw(inversion_run, tmp_path / "c.png", window="miss")
    assert notice == "--window miss: no job missed its deadline; the chart shows the whole run"


# ---------------------------------------------------------------- aggregation


def test_a_long_run_is_drawn_as_shares_of_slices() -> None:
    # 1,200 releases of A on 600 pixels: aggregated. A pixel is 4 ms, a
    # slice at least 16 ms: 20 ms. A runs half of every slice; U 7, 7, 6 ms
    # of each 60 (see busy()).
    tl = extract(simulate(busy()))
    drawn = plan(tl, axis_pixels=600, dpi=80)
    assert (drawn.aggregated, drawn.pixel) == (True, 4.0)
    assert drawn.slices == tuple(float(t) for t in range(0, 2401, 20))
    shares = {(s.kind, s.key, s.row): s for s in drawn.shares}
    assert set(shares) == {("running", "", 1), ("running", "", 0)}  # A is row 1, U row 0
    assert shares["running", "", 1].top == (0.5,) * 120
    assert shares["running", "", 0].top == (0.35, 0.35, 0.3) * 40
    assert shares["running", "", 0].bottom == (0.0,) * 120
    # No bars, no labels: ticks, one per pixel (A's releases every 2 ms: the
    # first of each pixel; U's every 6: each in its own).
    assert drawn.spans == () and drawn.labels == ()
    release = drawn.instants_of("release")
    assert release is not None
    a = [t for r, t in zip(release.rows, release.times, strict=True) if r == 1]
    u = [t for r, t in zip(release.rows, release.times, strict=True) if r == 0]
    assert a == [float(t) for t in range(0, 2400, 4)]
    assert u == [float(t) for t in range(0, 2400, 6)]
    assert drawn.subtitle.endswith("\naggregated: bar height = share of each 20 ms slice")


def test_aggregated_bars_merge_what_is_less_than_a_pixel_apart() -> None:
    # T (1) period 2, compute 3, horizon 6: job 1 is late [2,3), job 2
    # [4,6), job 3 at the end (6: nothing to draw). 3 releases: aggregated
    # below 36 pixels. On 4 pixels (1.5 ms each) the gap [3,4) is less than a
    # pixel: one span [2,6); on 20 (0.3 ms) two.
    task = Task("T", 1, 2, 0, None, (compute(3),))
    tl = extract(simulate(Scenario("overrun.toml", System(1000, "ms", 6, "pip"), (), (task,))))
    coarse, fine = plan(tl, axis_pixels=4, dpi=100), plan(tl, axis_pixels=20, dpi=100)
    assert coarse.aggregated and fine.aggregated
    assert coarse.spans_of("overrun") == [Spans("overrun", "", "", (0,), (2.0,), (6.0,))]
    assert fine.spans_of("overrun") == [Spans("overrun", "", "", (0, 0), (2.0, 4.0), (3.0, 6.0))]
    # A detailed plan draws every span as it is, even less than a pixel apart.
    assert not plan(tl, axis_pixels=36, dpi=100).aggregated
    assert plan(tl, axis_pixels=36, dpi=100).spans_of("overrun") == fine.spans_of("overrun")
    # late(): 20 releases of A in the run (0 to 190), 11 in [0,100].
    late_run = extract(simulate(late()))
    assert plan(late_run, axis_pixels=150, dpi=100).aggregated
    assert not plan(late_run, window=(0, 100 * MS), axis_pixels=150, dpi=100).aggregated


def shared() -> Scenario:
    """A (3) period 5: compute 1, lock S, compute 1, unlock S. B (2) period 7:
    compute 2. C (1) period 11: lock S, compute 2, unlock S, compute 1.
    Horizon 33. C holds S when A asks for it at 6, 16 and 26: it inherits 3
    for 1 ms each time (benchmarks/chart_speed.py's task set)."""
    lock, unlock = Action("lock", "S"), Action("unlock", "S")
    tasks = (
        Task("A", 3, 5, 0, None, (compute(1), lock, compute(1), unlock)),
        Task("B", 2, 7, 0, None, (compute(2),)),
        Task("C", 1, 11, 0, None, (lock, compute(2), unlock, compute(1))),
    )
    mutex = Resource("S", "mutex", "pip", 1, None, "priority")
    return Scenario("shared.toml", System(1000, "ms", 33, "pip"), (mutex,), tasks)


def test_a_boost_label_that_would_overlap_the_one_before_is_left_out() -> None:
    # "p3" takes 4 characters of 0.07 inch at 120 dpi: 33.6 pixels. On 528
    # pixels (16 per ms) the labels at 6.5, 16.5 and 26.5 are apart; on 100
    # (3 per ms: 11.1 ms for a label) 16.5 is too close to 6.5.
    tl = extract(simulate(shared()))
    assert [(b.start, b.end, b.priority) for b in tl.tasks[2].boosts] == [
        (6 * MS, 7 * MS, 3),
        (16 * MS, 17 * MS, 3),
        (26 * MS, 27 * MS, 3),
    ]
    wide, narrow = plan(tl, axis_pixels=528, dpi=120), plan(tl, axis_pixels=100, dpi=120)
    assert not wide.aggregated and not narrow.aggregated  # A's 7 releases
    assert [(lb.row, lb.x) for lb in wide.labels if lb.kind == "boost"] == [(0, 6.5), (0, 16.5), (0, 26.5)]
    assert [(lb.row, lb.x) for lb in narrow.labels if lb.kind == "boost"] == [(0, 6.5), (0, 26.5)]
    assert narrow.spans_of("boost") == [
        Spans("boost", "inherit", "", (0, 0, 0), (6.0, 16.0, 26.0), (7.0, 17.0, 27.0))
    ]


def artists(fig: Any) -> tuple[list[str], list[str | None], list[str]]:
    ax = fig.axes[0]
    return (
        [type(c).__name__ for c in ax.collections],
        [ln.get_gid() for ln in ax.lines],
        [t.get_text() for t in ax.texts],
    )


def test_one_artist_per_kind_whatever_the_number_of_jobs() -> None:
    # Aggregated: A's and U's shares are both blue: one collection; the
    # releases of both rows one line, the deadlines another. Ten times the
    # run (16,000 jobs): the same artists.
    from priora.record import replace

    for horizon in (2400, 24_000):
        scenario = busy()
        scenario = replace(scenario, system=replace(scenario.system, horizon=horizon))
        fig, drawn = gantt.build(extract(simulate(scenario)))
        assert drawn.aggregated
        assert artists(fig) == (["PolyCollection"], ["release stems", "deadline stems"], [])
    # Detailed: the holds, the waits, the running outside and inside S, the
    # boosts' lines and C's late strip; the boosts' end ticks, each kind of
    # arrow's stems and heads, the miss's cross; the three "p3".
    fig, drawn = gantt.build(extract(simulate(shared())), size=(10.0, 3.0))
    assert not drawn.aggregated
    assert artists(fig) == (
        ["PolyCollection"] * 4 + ["LineCollection", "PolyCollection"],
        [None, "release stems", None, "deadline stems", None, None, "missed deadline stems", None],
        ["p3", "p3", "p3"],
    )


def test_the_plan_is_made_for_the_axis_as_laid_out() -> None:
    # The legend and the row labels take their room: the plan's pixel is
    # the laid-out axis's, not the estimate's.
    fig, drawn = gantt.build(extract(simulate(busy())), size=(10.0, 3.0), dpi=80)
    pixels = gantt.axis_pixels(fig, fig.axes[0])
    assert pixels < gantt_model.AXIS_SHARE * 10.0 * 80
    assert drawn.pixel == 2400 / pixels


def test_slices_are_one_two_or_five_times_a_power_of_ten() -> None:
    assert [gantt_model.slice_width(x) for x in (0.3, 1.0, 1.01, 3.7, 16.0, 42.7, 600.0)] == [
        0.5,
        1.0,
        2.0,
        5.0,
        20.0,
        50.0,
        1000.0,
    ]


def test_running_inside_holds_that_cross() -> None:
    # T: lock A [0,2), lock B [1,3), running [0,4): A's colour [0,1), B's
    # (the hold taken last) [1,3), none [3,4).
    body = (
        Action("lock", "A"),
        compute(1),
        Action("lock", "B"),
        compute(1),
        Action("unlock", "A"),
        compute(1),
        Action("unlock", "B"),
        compute(1),
    )
    mutexes = tuple(Resource(n, "mutex", "pip", 1, None, "priority") for n in ("A", "B"))
    scenario = Scenario(
        "c.toml", System(1000, "ms", None, "pip"), mutexes, (Task("T", 1, None, 0, None, body),)
    )
    (task,) = extract(simulate(scenario)).tasks
    assert gantt_model.running_pieces(task) == [
        (0, MS, "A", ""),
        (MS, 3 * MS, "B", ""),
        (3 * MS, 4 * MS, "", ""),
    ]


# ---------------------------------------------------------------- title and legend


@pytest.mark.parametrize(
    ("cost_model", "target", "subtitle"),
    [
        (None, "host", "host port (simulated), protocol pip, cost model zero"),
        ("rtmach93", "host", "host port (simulated), protocol pip, cost model rtmach93"),
        (
            None,
            "qemu-rv32",
            "qemu-rv32 (the kernel under QEMU, RV32), protocol pip, costs: the kernel's instructions (no cost model)",
        ),
        (
            None,
            "qemu-rv64",
            "qemu-rv64 (the kernel under QEMU, RV64), protocol pip, costs: the kernel's instructions (no cost model)",
        ),
    ],
)
def test_the_title_names_the_target_and_the_cost_model(
    cost_model: str | None, target: str, subtitle: str
) -> None:
    fig = gantt.figure(extract(simulate(inversion(cost_model))), target=target)
    assert fig.get_suptitle() == "inversion.toml"
    assert fig.axes[0].get_title() == subtitle


def every_drawn(drawn: Plan) -> set[tuple[str, str, str]]:
    return {e for e in drawn.elements if e[0] != "label"}


@pytest.mark.parametrize("protocol", ["none", "pip", "pcp", "ipcp", "npcs", "rcs"])
def test_the_legend_explains_every_kind_drawn(protocol: str) -> None:
    from priora.scenario.loader import load

    examples = Path(__file__).resolve().parents[2] / "examples"
    for scenario in (load(examples / "protocols.toml").with_protocol(protocol), late(), busy()):  # type: ignore[arg-type]
        fig, drawn = gantt.build(extract(simulate(scenario)))
        handles = gantt.legend_handles(drawn)
        explained = set().union(*(covered for _, covered in handles))
        assert explained == every_drawn(drawn)
        labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert labels == [h.get_label() for h, _ in handles]


def test_the_legend_of_a_miss_and_of_its_aggregate() -> None:
    tl = extract(simulate(late()))
    detailed = [h.get_label() for h, _ in gantt.legend_handles(plan(tl, axis_pixels=2000, dpi=100))]
    assert detailed == [
        "running",
        "release",
        "deadline",
        "deadline missed",
        "miss (at the deadline)",
        "late: deadline to finish",
    ]
    aggregated = [h.get_label() for h, _ in gantt.legend_handles(plan(tl, axis_pixels=20, dpi=100))]
    assert aggregated == [
        "running (height: share of the slice)",
        "release (tick above)",
        "deadline (tick below)",
        "deadline missed (tick below)",
        "late: deadline to finish",
    ]


# ---------------------------------------------------------------- files


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_formats_size_and_dpi(inversion_run: SimResult, tmp_path: Path) -> None:
    gantt.draw(inversion_run, tmp_path / "c.png", size=(6.0, 3.0), dpi=50)
    assert png_size(tmp_path / "c.png") == (300, 150)
    gantt.draw(inversion_run, tmp_path / "d.png")
    assert png_size(tmp_path / "d.png") == (960, 480)  # 8 x 4 inches (3 rows) at 120 dpi
    gantt.draw(inversion_run, tmp_path / "c.pdf", size=(6.0, 3.0))
    assert (tmp_path / "c.pdf").read_bytes().startswith(b"%PDF-")
    assert b"/MediaBox [ 0 0 432 216 ]" in (tmp_path / "c.pdf").read_bytes()  # 6 x 3 inches in points
    gantt.draw(inversion_run, tmp_path / "c.svg", size=(6.0, 3.0))
    assert 'width="432pt" height="216pt"' in (tmp_path / "c.svg").read_text()


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
def test_charts_are_byte_identical(tmp_path: Path, suffix: str) -> None:
    first, second = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
    gantt.draw(simulate(busy()), first)  # aggregated
    gantt.draw(simulate(busy()), second)
    assert first.read_bytes() == second.read_bytes()


# ---------------------------------------------------------------- options


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("5", '--window: 5: expected FROM:TO (times in ms, such as 0:50) or "miss"'),
        ("1:2:3", '--window: 1:2:3: expected FROM:TO (times in ms, such as 0:50) or "miss"'),
        (":", '--window: :: expected FROM:TO (times in ms, such as 0:50) or "miss"'),
        ("-1:5", '--window: -1:5: FROM must be a number >= 0 in ms, got "-1"'),
        ("0:x", '--window: 0:x: TO must be a number >= 0 in ms, got "x"'),
        ("0:nan", '--window: 0:nan: TO must be a number >= 0 in ms, got "nan"'),
        ("5:2", "--window: 5:2: FROM must be before TO"),
        ("3:3", "--window: 3:3: FROM must be before TO"),
        ("0:1e99", "--window: 0:1e99: TO 1e99 is out of range"),
        ("0:250", "--window: 0:250: TO is after the end of the run (200 ms)"),
        ("200:", "--window: 200:: FROM is not before the end of the run (200 ms)"),
    ],
)
def test_window_messages(text: str, message: str) -> None:
    with pytest.raises(OptionError) as error:
        parse_window(text, late())
    assert str(error.value) == message


def test_windows_read() -> None:
    assert parse_window("miss", late()) == "miss"
    assert parse_window("0.5:1e2", late()) == (500_000, 100 * MS)
    assert parse_window(":20", late()) == (0, 20 * MS)
    assert parse_window("150:", late()) == (150 * MS, None)
    # In the file's unit: us, or ticks (here of 0.1 ms).
    in_us = Scenario(
        "u.toml", System(1000, "us", None, "pip"), (), (Task("T", 1, None, 0, None, (compute(1),)),)
    )
    assert parse_window("0:1.5", in_us) == (0, 1500)
    in_ticks = Scenario(
        "t.toml", System(10_000, "tick", 50, "pip"), (), (Task("T", 1, 10, 0, None, (compute(1),)),)
    )
    assert parse_window("2:3.5", in_ticks) == (200_000, 350_000)
    with pytest.raises(OptionError, match=r"^--window: 0:51: TO is after the end of the run \(50 ticks\)$"):
        parse_window("0:51", in_ticks)


def test_a_window_where_nothing_happens(tmp_path: Path) -> None:
    # late(): A runs [0,3), is idle until its release at 10; B starts at 100.
    result = simulate(late())
    fig, drawn = gantt.build(extract(result), window=(4 * MS, 9 * MS))
    assert (drawn.spans, drawn.instants, drawn.labels, drawn.elements) == ((), (), (), ())
    assert fig.axes[0].get_legend().get_texts() == []
    gantt.draw(result, tmp_path / "empty.svg", window=(4 * MS, 9 * MS))
    assert (tmp_path / "empty.svg").read_text().startswith("<?xml")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: parse_size("12"), "--size: 12: expected WxH in inches, such as 12x4"),
        (lambda: parse_size("12x-4"), "--size: 12x-4: expected WxH in inches, such as 12x4"),
        (lambda: parse_size("1x4"), "--size: 1x4: each side must be from 2 to 100 inches"),
        (lambda: parse_size("12x101"), "--size: 12x101: each side must be from 2 to 100 inches"),
        (lambda: parse_dpi("0"), "--dpi: 0: must be a whole number from 20 to 1200"),
        (lambda: parse_dpi("96.5"), "--dpi: 96.5: must be a whole number from 20 to 1200"),
        (
            lambda: gantt_model.check_pixels((100.0, 100.0), 100, "--size"),
            "--size: 100x100: a chart of 100x100 inches at 100 dpi is 10000x10000 pixels (at most 50 million)",
        ),
    ],
)
def test_size_and_dpi_messages(call: Any, message: str) -> None:
    with pytest.raises(OptionError) as error:
        call()
    assert str(error.value) == message


def test_size_and_dpi_read() -> None:
    assert (parse_size("12x4"), parse_size("6.5X3"), parse_dpi("300")) == ((12.0, 4.0), (6.5, 3.0), 300)


# ---------------------------------------------------------------- the command

LATE = """\
[system]
tick_hz = 1000
time_unit = "ms"
horizon = 200

[tasks.A]
priority = 2
period = 10
body = ["compute 3"]

[tasks.B]
priority = 1
period = 100
phase = 100
deadline = 20
body = ["compute 18"]
"""

INVERSION = """\
[system]
tick_hz = 1000
time_unit = "ms"
protocol = "pip"

[resources.S]
kind = "mutex"

[tasks.L]
priority = 1
body = ["lock S", "compute 4", "unlock S", "compute 1"]

[tasks.H]
priority = 3
phase = 1
body = ["compute 1", "lock S", "compute 1", "unlock S", "compute 1"]

[tasks.M]
priority = 2
phase = 2
body = ["compute 5"]
"""


def command(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--window", "5:2"], "priora: --window: 5:2: FROM must be before TO"),
        (["--window", "0:300"], "priora: --window: 0:300: TO is after the end of the run (200 ms)"),
        (["--size", "3"], "priora: --size: 3: expected WxH in inches, such as 12x4"),
        (["--dpi", "x"], "priora: --dpi: x: must be a whole number from 20 to 1200"),
        (
            ["--size", "50x50", "--dpi", "1200"],
            "priora: --size: 50x50: a chart of 50x50 inches at 1200 dpi is 60000x60000 pixels (at most 50 million)",
        ),
    ],
)
def test_the_command_refuses_bad_chart_options_before_running(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    options: list[str],
    message: str,
) -> None:
    ran: list[object] = []
    monkeypatch.setattr("priora.run.simulate.simulate", lambda *a: ran.append(a))
    (tmp_path / "late.toml").write_text(LATE)
    status, out, err = command(
        capsys, "simulate", str(tmp_path / "late.toml"), "--gantt", str(tmp_path / "g.png"), *options
    )
    assert (status, out, err, ran) == (2, "", message + "\n", [])


def test_chart_options_need_gantt(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "late.toml").write_text(LATE)
    status, out, err = command(
        capsys, "simulate", str(tmp_path / "late.toml"), "--dpi", "80", "--window", "miss"
    )
    assert (status, out, err) == (2, "", "priora: --window: only with --gantt\n")


def test_a_window_past_a_quiescent_run_is_refused_after_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # No horizon: the run ends when nothing can happen any more, at 13 ms.
    (tmp_path / "inversion.toml").write_text(INVERSION)
    chart = tmp_path / "g.png"
    status, out, err = command(
        capsys, "simulate", str(tmp_path / "inversion.toml"), "--gantt", str(chart), "--window", "0:20"
    )
    assert (status, out, err) == (2, "", "priora: --window: 0:20: TO is after the end of the run (13 ms)\n")
    assert not chart.exists()


def test_the_command_draws_the_window(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "late.toml").write_text(LATE)
    chart = tmp_path / "g.pdf"
    argv = [
        "simulate",
        str(tmp_path / "late.toml"),
        "--gantt",
        str(chart),
        "--window",
        "miss",
        "--size",
        "8x3",
    ]
    status, out, err = command(capsys, *argv)
    assert (status, err) == (0, "") and "Jobs" in out
    assert chart.read_bytes().startswith(b"%PDF-")
    (tmp_path / "inversion.toml").write_text(INVERSION)
    argv = ["simulate", str(tmp_path / "inversion.toml"), "--gantt", str(chart), "--window", "miss"]
    status, out, err = command(capsys, *argv)
    assert (status, err) == (
        0,
        "priora: --window miss: no job missed its deadline; the chart shows the whole run\n",
    )


def test_run_names_its_target_in_the_chart(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # QEMU itself is not needed: the run's result is the host's, the wiring is tested.
    from priora.run import qemu_run

    def fake_run(scenario: Scenario, target: str, *, timeout: float) -> qemu_run.QemuResult:
        return qemu_run.QemuResult(simulate(scenario), 0.0, 0)

    drawn: list[dict[str, object]] = []

    def fake_draw(result: SimResult, path: Path, **options: object) -> None:
        drawn.append(options)

    monkeypatch.setattr(qemu_run, "run", fake_run)
    monkeypatch.setattr(gantt, "draw", fake_draw)
    (tmp_path / "late.toml").write_text(LATE)
    argv = ["run", str(tmp_path / "late.toml"), "--target", "qemu-rv32", "--gantt", str(tmp_path / "g.svg")]
    assert command(capsys, *argv, "--dpi", "90")[0] == 0
    assert drawn == [{"dpi": 90, "target": "qemu-rv32"}]

"""priora generate: the utilisation generators' distributions, the task sets'
shapes, determinism by seed, files that simulate, analyze and breakdown read
unchanged, and the messages of bad parameters."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from priora.cli.main import main
from priora.errors import SpecError
from priora.generate import (
    GenerateError,
    Params,
    derive_seed,
    fixed_sum,
    generate,
    parse_params,
    uunifast,
    uunifast_discard,
)
from priora.generate.params import DEFAULT_PERIODS
from priora.scenario.loader import parse

# A generator that uses every shape: nested sections, constrained deadlines,
# deadline-monotonic priorities, random phases.
FULL = {
    "tasks": 6,
    "utilisation": 0.8,
    "mutexes": 3,
    "sections_per_job": [1, 3],
    "section_length": [0.05, 0.3],
    "nesting_depth": 3,
    "deadlines": "constrained",
    "priorities": "dm",
    "phases": "random",
}


def params(**table: object) -> Params:
    return parse_params("g.toml", table)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# ---------------------------------------------------------------- utilisations


@pytest.mark.parametrize("n", [1, 2, 5, 12])
@pytest.mark.parametrize("total", [0.1, 0.75, 1.0, 3.5])
def test_uunifast_sums_to_the_total(n: int, total: float) -> None:
    rng = random.Random(n * 1000 + int(total * 100))
    for _ in range(200):
        shares = uunifast(rng, n, total)
        assert len(shares) == n
        assert abs(sum(shares) - total) <= 1e-9
        assert all(u >= 0 for u in shares)


@pytest.mark.parametrize("method", ["discard", "fixed"])
@pytest.mark.parametrize(
    ("n", "total", "lower", "upper"),
    [(4, 0.9, 0.0, 0.5), (8, 3.0, 0.1, 0.6), (3, 2.4, 0.0, 0.9), (10, 1.0, 0.05, 0.2)],
)
def test_bounded_generators_sum_to_the_total_within_bounds(
    method: str, n: int, total: float, lower: float, upper: float
) -> None:
    rng = random.Random(7)
    draw = uunifast_discard if method == "discard" else fixed_sum
    for _ in range(300):
        shares = draw(rng, n, total, [lower] * n, [upper] * n)
        assert abs(sum(shares) - total) <= 1e-9
        assert all(lower <= u <= upper for u in shares)


def test_fixed_sum_takes_a_bound_per_task() -> None:
    # Dirichlet-Rescale's case: each task its own bounds.
    rng = random.Random(3)
    lower, upper = [0.0, 0.1, 0.2, 0.0], [0.1, 0.3, 0.9, 0.5]
    for _ in range(300):
        shares = fixed_sum(rng, 4, 1.0, lower, upper)
        assert abs(sum(shares) - 1.0) <= 1e-9
        assert all(lo <= u <= hi for u, lo, hi in zip(shares, lower, upper, strict=True))


def test_the_generators_are_uniform_over_the_simplex() -> None:
    # Uniform over {u_i >= 0, sum u_i = U}: each u_i is U times a Beta(1, n - 1),
    # mean U / n and P(u_i > U / 2) = (1/2)^(n-1). 4000 draws, seeded: the
    # tolerances are over 5 standard deviations.
    n, total, draws = 4, 1.0, 4000
    for name in ("uunifast", "fixed"):
        rng = random.Random(11)
        first = []
        for _ in range(draws):
            if name == "uunifast":
                shares = uunifast(rng, n, total)
            else:
                shares = fixed_sum(rng, n, total, [0.0] * n, [1.0] * n)
            first.append(shares[0])
        mean = sum(first) / draws
        assert abs(mean - total / n) < 0.02, name
        above = sum(u > total / 2 for u in first) / draws
        assert abs(above - 0.5 ** (n - 1)) < 0.03, name


def test_uunifast_discard_gives_up_with_a_message() -> None:
    with pytest.raises(GenerateError) as err:
        uunifast_discard(random.Random(1), 10, 4.99, [0.0] * 10, [0.5] * 10)
    assert str(err.value) == (
        "UUniFast-Discard drew 10000 vectors of 10 utilisations summing to 4.99 and discarded every one "
        '(a value out of its bounds): use utilisation_method = "dirichlet-rescale"'
    )


# ---------------------------------------------------------------- task sets


@pytest.mark.parametrize("method", ["uunifast-discard", "randfixedsum", "dirichlet-rescale"])
def test_a_set_has_the_utilisation_asked_within_rounding(method: str) -> None:
    p = params(tasks=8, utilisation=0.9, utilisation_method=method, task_utilisation_max=0.4)
    for i in range(50):
        ts = generate(p, derive_seed(1, i))
        assert len(ts.tasks) == 8 and ts.target == 0.9
        assert abs(sum(t.utilisation for t in ts.tasks) - 0.9) <= 1e-9
        assert all(0 <= t.utilisation <= 0.4 for t in ts.tasks)
        # C is u T rounded to a tick (at least one): off by half a tick a task at most.
        for t in ts.tasks:
            assert abs(t.wcet - t.utilisation * t.period) <= 0.5 or t.wcet == 1
        assert t.period in [x * 10 for x in DEFAULT_PERIODS]  # tick_hz 10000, in ms


def test_a_utilisation_range_draws_the_total_per_set() -> None:
    p = params(utilisation=[0.4, 0.6])
    totals = [generate(p, s).target for s in range(40)]
    assert all(0.4 <= u <= 0.6 for u in totals) and len(set(totals)) == 40


def test_periods_log_uniform_within_range_granularity_and_hyperperiod() -> None:
    p = params(
        tasks=5,
        periods="log-uniform",
        period_min=10,
        period_max=200,
        period_granularity=5,
        hyperperiod_max=2000,
    )
    seen = set()
    for s in range(200):
        ts = generate(p, s)
        periods = [t.period for t in ts.tasks]
        assert all(100 <= t <= 2000 and t % 50 == 0 for t in periods)  # ticks of 0.1 ms
        assert math.lcm(*periods) <= 20000
        seen.update(periods)
    assert min(seen) == 100 and max(seen) == 2000
    # Log-uniform: as many periods in [10, 44.7] ms as in [44.7, 200] ms, roughly.
    assert len([t for t in seen if t < 447]) > 5


def test_deadlines_implicit_constrained_arbitrary() -> None:
    for kind, check in (
        ("implicit", lambda c, d, t: d == t),
        ("constrained", lambda c, d, t: c <= d <= t),
        ("arbitrary", lambda c, d, t: c <= d <= c + 2 * (t - c)),
    ):
        p = params(tasks=6, deadlines=kind)
        triples = [(t.wcet, t.deadline, t.period) for s in range(30) for t in generate(p, s).tasks]
        assert all(check(*x) for x in triples), kind
    beyond = params(tasks=6, deadlines="arbitrary")
    assert any(t.deadline > t.period for s in range(10) for t in generate(beyond, s).tasks)


def test_priorities_rate_and_deadline_monotonic_random_and_given() -> None:
    for s in range(20):
        rm = generate(params(tasks=6), s).tasks
        assert sorted(rm, key=lambda t: -t.priority) == sorted(rm, key=lambda t: (t.period, int(t.name[1:])))
        dm = generate(params(tasks=6, deadlines="constrained", priorities="dm"), s).tasks
        assert sorted(dm, key=lambda t: -t.priority) == sorted(
            dm, key=lambda t: (t.deadline, int(t.name[1:]))
        )
        assert sorted(t.priority for t in rm) == list(range(26, 32))
    given = generate(params(tasks=3, priorities=[5, 9, 1]), 1).tasks
    assert [t.priority for t in given] == [5, 9, 1]
    orders = {
        tuple(t.priority for t in generate(params(tasks=4, priorities="random"), s).tasks) for s in range(20)
    }
    assert len(orders) > 5


def _sections(body: tuple[str, ...]) -> tuple[int, int, set[str]]:
    """(outermost sections, deepest nesting, mutexes) of a body."""
    depth = deepest = outer = 0
    used = set()
    for action in body:
        word = action.split()[0]
        if word == "lock":
            outer += depth == 0
            depth += 1
            deepest = max(deepest, depth)
            used.add(action.split()[1])
        elif word == "unlock":
            depth -= 1
    return outer, deepest, used


def test_sections_count_length_nesting_and_order() -> None:
    p = params(**FULL)
    depths = set()
    for s in range(60):
        ts = generate(p, s)
        assert ts.mutexes == ("M0", "M1", "M2")
        for t in ts.tasks:
            outer, deepest, _ = _sections(t.body)
            assert outer <= 3 and deepest <= 3
            depths.add(deepest)
            assert sum(int(a.split()[1]) for a in t.body if a.startswith("compute")) == t.wcet
            # Nested in increasing mutex order, so no two tasks can deadlock.
            held: list[int] = []
            for a in t.body:
                if a.startswith("lock"):
                    m = int(a.split()[1][1:])
                    assert not held or m > held[-1]
                    held.append(m)
                elif a.startswith("unlock"):
                    held.pop()
    assert depths == {1, 2, 3}


def test_sharing_patterns() -> None:
    chain = params(tasks=6, mutexes=3, sharing="chain", sections_per_job=[2, 4], section_length=0.1)
    for s in range(20):
        for i, t in enumerate(generate(chain, s).tasks):
            assert _sections(t.body)[2] <= {f"M{i % 3}", f"M{(i + 1) % 3}"}
    none = params(tasks=4, mutexes=2, sharing="random", sharing_factor=0.0)
    assert all(_sections(t.body)[0] == 0 for t in generate(none, 1).tasks)
    every = params(
        tasks=4, mutexes=2, sharing="random", sharing_factor=1.0, sections_per_job=2, section_length=0.1
    )
    assert all(_sections(t.body)[0] >= 1 for t in generate(every, 1).tasks)


# ---------------------------------------------------------------- files


SPEC = """\
[generator]
tasks = 5
utilisation = 0.85
mutexes = 2
nesting_depth = 2
deadlines = "constrained"
priorities = "dm"
phases = "random"
"""


def test_same_seed_same_files_byte_for_byte(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    spec = tmp_path / "gen.toml"
    spec.write_text(SPEC)
    outs = []
    for name, seed in (("a", "3"), ("b", "3"), ("c", "4")):
        status, out, err = run(
            capsys, "generate", str(spec), "--out", str(tmp_path / name), "--count", "5", "--seed", seed
        )
        assert (status, err) == (0, "")
        assert len(out.splitlines()) == 5
        outs.append([p.read_bytes() for p in sorted((tmp_path / name).iterdir())])
    assert outs[0] == outs[1]
    assert all(x != y for x, y in zip(outs[0], outs[2], strict=True))
    assert len(set(outs[0])) == 5
    first = outs[0][0].decode()
    assert first.startswith(
        f"# Generated by `priora generate` (docs/campaigns.md), seed {derive_seed(3, 0)}.\n"
    )


@pytest.mark.parametrize(
    "settings",
    [
        [],
        ["utilisation_method=randfixedsum", "deadlines=arbitrary", "priorities=random"],
        ["utilisation_method=dirichlet-rescale", "task_utilisation_max=[0.5, 0.5, 0.3, 0.3, 0.3]"],
        [
            'periods="log-uniform"',
            "period_min=5",
            "period_max=50",
            "period_granularity=5",
            "hyperperiod_max=600",
        ],
        ["sharing=chain", "mutexes=3", "nesting_depth=2", "horizon=300"],
        ['time_unit="us"', "tick_hz=100000", "periods=[1000, 2000, 5000]"],
    ],
)
def test_generated_files_run_unchanged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, settings: list[str]
) -> None:
    spec = tmp_path / "gen.toml"
    spec.write_text(SPEC)
    sets = [f"--set={s}" for s in settings]
    status, out, err = run(
        capsys, "generate", str(spec), "--out", str(tmp_path / "sets"), "--count", "3", *sets
    )
    assert (status, err) == (0, "")
    for path in sorted((tmp_path / "sets").iterdir()):
        for argv in (
            ["simulate", str(path)],
            ["simulate", str(path), "--protocol", "pcp", "--json"],
            ["analyze", str(path)],
            ["breakdown", str(path), "--vary", "T0.deadline", "--protocol", "pip"],
        ):
            status, out, err = run(capsys, *argv)
            assert (status, err) == (0, ""), (argv, path.read_text())
            assert out


def test_generate_without_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, err = run(
        capsys, "generate", "--out", str(tmp_path), "--set", "tasks=2", "--set", "utilisation=0.5"
    )
    assert (status, err) == (0, "")
    text = (tmp_path / "set-0000.toml").read_text()
    assert len(parse(text, "x").tasks) == 2


# ---------------------------------------------------------------- bad parameters


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            {"task": 3},
            "g.toml: [generator] task: unknown key (expected one of: tasks, utilisation, utilisation_method, task_utilisation_min, task_utilisation_max, periods, period_min, period_max, period_granularity, hyperperiod_max, deadlines, deadline_factor, priorities, phases, mutexes, sections_per_job, section_length, nesting_depth, sharing, sharing_factor, tick_hz, time_unit, protocol, horizon)",
        ),
        ({"tasks": 1025}, "g.toml: [generator] tasks: must be in 1..1024, got 1025"),
        ({"tasks": "4"}, 'g.toml: [generator] tasks: must be an integer, got a string ("4")'),
        ({"utilisation": 0}, "g.toml: [generator] utilisation: must be in (0, 8], got 0"),
        (
            {"tasks": 2, "utilisation": 1.5, "task_utilisation_max": 0.5},
            "g.toml: [generator] utilisation: 1.5 cannot be split over 2 tasks of at most 0.5 each (at most 1)",
        ),
        (
            {"utilisation": [0.9, 0.5]},
            "g.toml: [generator] utilisation: the low end 0.9 is above the high end 0.5",
        ),
        (
            {"utilisation_method": "drs"},
            'g.toml: [generator] utilisation_method: unknown value "drs" (expected "uunifast-discard", "randfixedsum" or "dirichlet-rescale")',
        ),
        (
            {"task_utilisation_max": [0.5, 0.5]},
            'g.toml: [generator] task_utilisation_max: a list of bounds, one per task, needs utilisation_method = "dirichlet-rescale"',
        ),
        (
            {"utilisation_method": "dirichlet-rescale", "task_utilisation_max": [0.5, 0.5]},
            "g.toml: [generator] task_utilisation_max: must have one bound per task (8), got 2",
        ),
        ({"periods": []}, "g.toml: [generator] periods: an empty set: give at least one period"),
        (
            {"periods": "uniform"},
            'g.toml: [generator] periods: must be "log-uniform" or a list of periods, got a string ("uniform")',
        ),
        (
            {"periods": [10, 0.05]},
            "g.toml: [generator] periods: 0.05 ms is not a whole number of ticks at tick_hz 10000",
        ),
        (
            {"periods": [10], "period_min": 5},
            'g.toml: [generator] period_min: only with periods = "log-uniform" (the periods are the set given)',
        ),
        (
            {"periods": "log-uniform", "period_min": 50, "period_max": 20},
            "g.toml: [generator] period_max: is below period_min (50)",
        ),
        (
            {"periods": "log-uniform", "period_min": 15, "period_granularity": 10},
            "g.toml: [generator] period_min: must be a multiple of period_granularity",
        ),
        (
            {"hyperperiod_max": 5},
            "g.toml: [generator] hyperperiod_max: is below the shortest period: no task set can have it",
        ),
        (
            {"deadlines": "implicit", "deadline_factor": [0.5, 1]},
            'g.toml: [generator] deadline_factor: only with deadlines = "constrained" or "arbitrary"',
        ),
        (
            {"deadlines": "constrained", "deadline_factor": [0.5, 1.5]},
            "g.toml: [generator] deadline_factor: must be in [0, 1], got 1.5",
        ),
        (
            {"priorities": "edf"},
            'g.toml: [generator] priorities: must be "rm", "dm", "random" or a list of priorities, got a string ("edf")',
        ),
        (
            {"tasks": 2, "priorities": [1, 300]},
            "g.toml: [generator] priorities: must be in 0..255 (the kernel's range), got 300",
        ),
        (
            {"tasks": 2, "priorities": [1]},
            "g.toml: [generator] priorities: a list of given priorities needs one per task (2), got 1",
        ),
        ({"mutexes": 65}, "g.toml: [generator] mutexes: must be in 0..64, got 65"),
        (
            {"mutexes": 1, "nesting_depth": 2},
            "g.toml: [generator] nesting_depth: 2 needs at least 2 mutexes, got mutexes = 1",
        ),
        ({"section_length": 0}, "g.toml: [generator] section_length: must be in (0, 1], got 0"),
        (
            {"sections_per_job": [3, 1]},
            "g.toml: [generator] sections_per_job: the low end 3 is above the high end 1",
        ),
        (
            {"sharing": "ring"},
            'g.toml: [generator] sharing: unknown value "ring" (expected "all", "random" or "chain")',
        ),
        ({"sharing_factor": 0.3}, 'g.toml: [generator] sharing_factor: only with sharing = "random"'),
        (
            {"tick_hz": 1024},
            "g.toml: [generator] tick_hz: must divide 1000000000 so that a tick is a whole number of ns, got 1024",
        ),
        (
            {"time_unit": "s"},
            'g.toml: [generator] time_unit: unknown value "s" (expected "tick", "us" or "ms")',
        ),
        (
            {"protocol": "srp"},
            'g.toml: [generator] protocol: unknown value "srp" (expected "none", "pip", "pcp", "ipcp", "npcs" or "rcs")',
        ),
    ],
)
def test_bad_parameters_are_one_line_errors(table: dict[str, object], message: str) -> None:
    with pytest.raises(SpecError) as err:
        parse_params("g.toml", table)
    assert str(err.value) == message


def test_generate_errors_on_the_command_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    spec = tmp_path / "gen.toml"
    spec.write_text("[generator]\ntasks = 0\n")
    assert run(capsys, "generate", str(spec), "--out", str(tmp_path)) == (
        2,
        "",
        f"priora: {spec}: [generator] tasks: must be in 1..1024, got 0\n",
    )
    spec.write_text("[generator\n")
    status, out, err = run(capsys, "generate", str(spec), "--out", str(tmp_path))
    assert (status, out) == (2, "")
    assert err.startswith(f"priora: {spec}: line 1: malformed TOML: ")
    assert run(capsys, "generate", "--out", str(tmp_path), "--set", "tasks") == (
        2,
        "",
        "priora: --set: tasks: expected KEY=VALUE, a generator parameter and its value\n",
    )
    assert run(capsys, "generate", "--out", str(tmp_path), "--set", "tasks=2000") == (
        2,
        "",
        "priora: --set: [generator] tasks: must be in 1..1024, got 2000\n",
    )
    assert run(capsys, "generate", "--out", str(tmp_path), "--count", "0") == (
        2,
        "",
        "priora: --count: must be >= 1, got 0\n",
    )

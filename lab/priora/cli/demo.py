"""`priora demo`: the classic priority inversion, without and with inheritance.

Runs examples/inversion.toml on the kernel's host port twice, with every
mutex under protocol "none" and then "pip", prints what it cost the urgent
task side by side, and writes one Gantt chart per run.
"""

from __future__ import annotations

from pathlib import Path

from priora.report.build import Report, TaskRow, build_report
from priora.run.simulate import SimResult, simulate
from priora.scenario.loader import load
from priora.scenario.model import Scenario

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from priora.scenario.model import Protocol

# The package's copy of the example (a wheel, lab/setup.py), else the checkout's.
PACKAGED = Path(__file__).resolve().parents[1] / "examples" / "inversion.toml"
CHECKOUT = Path(__file__).resolve().parents[3] / "examples" / "inversion.toml"
EXAMPLE = PACKAGED if PACKAGED.is_file() else CHECKOUT
PROTOCOLS: tuple[tuple[Protocol, str], ...] = (("none", "no inheritance"), ("pip", "priority inheritance"))


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else f"{value:.3f}"


def _table(scenario: Scenario, results: list[SimResult], reports: list[Report]) -> list[str]:
    unit = scenario.system.time_unit
    head = f"{'':28}" + "".join(f"{p + ' (' + why + ')':>30}" for p, why in PROTOCOLS)
    lines = [head]
    by_urgency = sorted(range(len(scenario.tasks)), key=lambda i: -scenario.tasks[i].priority)
    for i in by_urgency:
        name = scenario.tasks[i].name
        rows: list[TaskRow] = [report.tasks[name] for report in reports]
        for label, values in (
            (f"{name} response ({unit})", [r.max_response for r in rows]),
            (f"{name} blocked ({unit})", [r.max_blocked for r in rows]),
            (f"{name} inverted ({unit})", [r.max_inverted for r in rows]),
        ):
            lines.append(f"{label:28}" + "".join(f"{_fmt(v):>30}" for v in values))
    lines.append(f"{'context switches':28}" + "".join(f"{r.context_switches:>30}" for r in results))
    lines.append(f"{'priority changes':28}" + "".join(f"{r.priority_changes:>30}" for r in results))
    return lines


def run(out_dir: Path, example: Path = EXAMPLE) -> str:
    """Runs the demo, writes the charts into out_dir, returns the text to print."""
    from priora import outputs  # matplotlib is only needed here
    from priora.pictures import gantt

    scenario = load(example)
    out_dir.mkdir(parents=True, exist_ok=True)
    results = [simulate(scenario.with_protocol(p)) for p, _ in PROTOCOLS]
    reports = [build_report(r) for r in results]
    charts = []
    for (protocol, why), result in zip(PROTOCOLS, results, strict=True):
        chart = out_dir / f"inversion-{protocol}.png"
        with outputs.replacing(chart) as temporary:  # whole or not at all
            gantt.draw(result, temporary, title=f"{example.name}: protocol {protocol} ({why})")
        charts.append(chart)

    urgent = max(scenario.tasks, key=lambda t: t.priority).name
    before, after = (report.tasks[urgent] for report in reports)
    lines = [
        f"Priority inversion ({example.name}) on the Priora kernel's host port",
        "",
        *_table(scenario, results, reports),
        "",
        f"Without inheritance, {urgent} waits {_fmt(before.max_blocked)} {scenario.system.time_unit} for the "
        f"mutex while less urgent tasks run ({_fmt(before.max_inverted)} inverted);",
        f"with inheritance it waits {_fmt(after.max_blocked)} (only the holder's critical section), "
        f"and its response drops from {_fmt(before.max_response)} to {_fmt(after.max_response)}.",
        "",
        "Gantt charts: " + ", ".join(str(c) for c in charts),
    ]
    return "\n".join(lines) + "\n"

"""Campaigns: many generated task sets, per protocol, by analysis and on the
kernel (`priora campaign`, docs/campaigns.md).

    from priora.campaign import load, run
    campaign = load("examples/campaigns/quick.toml")
    run(campaign, Path("quick.sqlite"), jobs=2)

A specification names the generator's parameters, one of them as the axis
with its points, the sets per point, the protocols, the cost model and what
runs per set. Results go to one SQLite file, one row per set and protocol,
resumable; `report` summarises it, `plot` draws it, a row reruns alone.
"""

from __future__ import annotations

import os

from priora.campaign.evaluate import evaluate
from priora.campaign.run import DEFAULT_MAX_JOBS, CampaignError, Outcome, run
from priora.campaign.spec import Campaign, parse_campaign

__all__ = [
    "DEFAULT_MAX_JOBS",
    "Campaign",
    "CampaignError",
    "Outcome",
    "evaluate",
    "load",
    "parse_campaign",
    "run",
]


def load(path: str | os.PathLike[str]) -> Campaign:
    """The validated campaign of the specification file at `path`."""
    from priora.generate import load_spec
    from priora.scenario.loader import read_text

    source = os.fspath(path)
    doc = load_spec(path)
    return parse_campaign(source, read_text(path), doc)

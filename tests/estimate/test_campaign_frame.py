"""Campaign lines leave the estimator as a frame that passes the shared CampaignLine schema."""

from __future__ import annotations

from pathlib import Path

import pandera.errors
import polars as pl
import pytest

from trainbudget.estimate.campaign import CampaignLine, campaign_estimate
from trainbudget.estimate.campaign_frame import campaign_lines_frame
from trainbudget.plan import load_plan

SEED_PLAN = Path(__file__).resolve().parents[2] / "examples" / "demo-7b.plan.yaml"


def test_seed_lines_frame_validates_and_sums_to_the_plan() -> None:
    result = campaign_estimate(load_plan(SEED_PLAN))
    frame = campaign_lines_frame(result)
    assert frame.height == len(result.lines) == 5
    assert frame["gpu_hours"].sum() == 72 + 960 + 60 + 160
    assert frame.filter(pl.col("kind") == "contingency")["work_class"].to_list() == ["retry"]


def test_a_negative_line_is_rejected_by_the_schema() -> None:
    result = campaign_estimate(load_plan(SEED_PLAN))
    bad = CampaignLine("main", "x", "planned", -1, 0, "")
    broken = type(result)(**{**result.__dict__, "lines": [*result.lines, bad]})
    with pytest.raises(pandera.errors.SchemaError):
        campaign_lines_frame(broken)

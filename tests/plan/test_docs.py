"""docs/plan.md: every complete plan on the page loads and is forecast; every key of every
section is documented there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trainbudget.estimate.campaign import campaign_estimate
from trainbudget.estimate.campaign_payload import campaign_payload
from trainbudget.plan import parse_plan
from trainbudget.plan.fields import keys_of
from trainbudget.plan.forecast import FlopsSpec, Parallel, Phase, Reliability, Rollbacks
from trainbudget.plan.sections import MainRun, Plan

DOC = Path(__file__).resolve().parents[2] / "docs" / "plan.md"
TEXT = DOC.read_text(encoding="utf-8")
PLANS = [b for b in re.findall(r"```yaml\n(.*?)```", TEXT, re.S) if b.startswith("campaign:")]


@pytest.mark.parametrize("text", PLANS, ids=lambda t: t.split("\n", 1)[0])
def test_a_complete_plan_on_the_page_is_forecast(text: str) -> None:
    result = campaign_estimate(parse_plan(text))
    if "reliability" in text:
        assert result.forecast is not None and result.forecast.band is not None
        assert result.forecast.band.p10 <= result.forecast.main_gpu_hours
    # Every plan, with or without reliability: a throughput source and a band holding the
    # main line's figure.
    forecast = campaign_payload(result)["forecast"]
    band = forecast["main_gpu_hours_band"]
    assert forecast["throughput_source"] in ("plan", "pilot", "calibrated", "prior")
    (main,) = [line for line in result.lines if line.work_class == "main"]
    assert band["p10"] <= main.gpu_hours <= band["p90"]


def test_the_deepseek_plan_is_priced_at_the_prior_with_its_layout() -> None:
    plan = next(p for p in PLANS if p.startswith("campaign: deepseek-v3"))
    forecast = campaign_estimate(parse_plan(plan)).forecast
    assert forecast.throughput_source == "prior"
    assert float(forecast.layout.bubble_share) == pytest.approx(15 / (120 + 15))
    assert forecast.layout.fits is True


@pytest.mark.parametrize(
    "section", [Plan, MainRun, FlopsSpec, Phase, Parallel, Reliability, Rollbacks]
)
def test_every_key_is_on_the_page(section) -> None:
    for key in keys_of(section):
        assert f"`{key}`" in TEXT, f"{section.__name__}.{key} is not documented in docs/plan.md"

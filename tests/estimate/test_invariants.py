"""The pre-launch report's identities (estimate/invariants.py) on the seed's estimate."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from pathlib import Path

import pytest

from trainbudget.estimate.campaign import campaign_estimate
from trainbudget.estimate.invariants import BrokenIdentity, check_estimate
from trainbudget.plan import parse_plan

# Seed 000's plan (DESIGN.md): pilots 72, main 960, retries 160, evaluation 60 = 1,252.
SEED_PLAN = (Path(__file__).resolve().parents[2] / "examples" / "demo-7b.plan.yaml").read_text(
    encoding="utf-8"
)


def test_the_seed_plans_estimate_holds_its_identities() -> None:
    estimate = campaign_estimate(parse_plan(SEED_PLAN))
    # By hand: 6·4·3 + 8·120 + 2·8·10 + 12·2·2.5 = 72 + 960 + 160 + 60 = 1,252 GPU-hours.
    assert estimate.planned_gpu_hours == 1252
    check_estimate(estimate)


def test_an_estimate_whose_lines_do_not_sum_is_refused() -> None:
    estimate = campaign_estimate(parse_plan(SEED_PLAN))
    broken = dataclasses.replace(estimate, planned_gpu_hours=Decimal(1250))
    with pytest.raises(BrokenIdentity, match="planned = work \\+ contingency"):
        check_estimate(broken)
    case = estimate.sensitivity[0]
    # P + n·T·(1+f) + E at n = 1, f = 5 %: 72 + 960·1.05 + 60 = 1,140 (the seed's figure).
    assert case.gpu_hours == 1140
    wrong = dataclasses.replace(case, gpu_hours=Decimal(1141))
    with pytest.raises(BrokenIdentity, match="sensitivity n = 1"):
        check_estimate(
            dataclasses.replace(estimate, sensitivity=[wrong, *estimate.sensitivity[1:]])
        )

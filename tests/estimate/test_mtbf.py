"""The MTBF power law and its fleet prior, against Kokolis et al. 2024's two published points."""

import math
from decimal import Decimal

from trainbudget.estimate.mtbf import FLEET_PRIOR, MtbfCurve


def test_fleet_prior_passes_through_both_published_points():
    assert abs(float(FLEET_PRIOR.hours_at(1024)) - 7.9) < 1e-12
    assert abs(float(FLEET_PRIOR.hours_at(16384)) - 1.8) < 1e-12
    assert abs(float(FLEET_PRIOR.exponent) - math.log(1.8 / 7.9) / math.log(16)) < 1e-12
    assert FLEET_PRIOR.source == "fleet"


def test_independent_failures_scale_inversely():
    curve = MtbfCurve(8, Decimal(800), Decimal(-1), "plan", "test")
    assert curve.hours_at(16) == Decimal(400)
    assert curve.interval_at(16) is None


def test_interval_covers_the_draws():
    draws = tuple((Decimal(h), Decimal(-1)) for h in range(90, 111))
    curve = MtbfCurve(8, Decimal(100), Decimal(-1), "ledger", "test", draws)
    low, high = curve.interval_at(16)
    assert Decimal(45) <= low < Decimal(50) < high <= Decimal("55")

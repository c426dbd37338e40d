"""MTBF(n) fitted to synthetic failure histories whose true curve is known."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.estimate.mtbf import FLEET_PRIOR
from trainbudget.reliability.fit import FIXED, FREE, ThinHistory, fit_history
from trainbudget.reliability.history import Exposure, History

GPU_COUNTS = (8, 32, 128, 512)


def synthetic(
    seed: int, m8_hours: float, exponent: float, jobs_per_count: int = 60,
    counts: tuple[int, ...] = GPU_COUNTS,
) -> History:  # fmt: skip
    """Jobs planned for half the true MTBF of their size; each fails at an exponential time
    (a Poisson process with job MTBF m8·(n/8)^exponent) or completes its plan."""
    rng = np.random.default_rng(seed)
    exposures = []
    for gpus in counts:
        mtbf = m8_hours * (gpus / 8) ** exponent
        for i in range(jobs_per_count):
            fails = rng.exponential(mtbf)
            planned = mtbf / 2
            hours = min(fails, planned)
            exposures.append(
                Exposure(f"{gpus}-{i}", gpus, max(1, round(hours * 3600)), bool(fails < planned))
            )
    return History("synthetic", tuple(exposures))


@settings(max_examples=15, deadline=None, derandomize=True)
@given(
    m8=st.floats(10, 500),
    exponent=st.floats(-1.0, -0.2),
    seed=st.integers(0, 2**32 - 1),
)
def test_fit_recovers_the_true_exponent_within_a_wide_interval(m8, exponent, seed) -> None:
    fit = fit_history(synthetic(seed, m8, exponent), bootstrap=200, seed=1, level=0.99)
    low, high = fit.exponent_interval
    assert fit.method == FREE
    assert low <= exponent <= high
    # The true MTBF at 128 GPUs lies in the curve's 99 % interval there, give or take 10 %
    # (percentile bootstrap intervals run a little narrow at ~20 interruptions a count).
    curve_low, curve_high = fit.curve.interval_at(128, level=Decimal("0.99"))
    assert float(curve_low) / 1.1 <= m8 * 16**exponent <= float(curve_high) * 1.1


def test_the_90_percent_interval_covers_the_truth_most_of_the_time() -> None:
    truths = [(40.0, -0.6), (200.0, -1.0), (15.0, -0.3), (90.0, -0.53)]
    hits = total = 0
    for seed in range(10):
        for m8, exponent in truths:
            fit = fit_history(synthetic(seed, m8, exponent), bootstrap=200, seed=seed)
            low, high = fit.exponent_interval
            hits += low <= exponent <= high
            total += 1
    # Nominal 90 %: 40 histories; a biased fit or a too-narrow interval falls below 75 %.
    assert hits / total >= 0.75, (hits, total)


def test_point_estimate_is_the_poisson_mle_on_two_counts() -> None:
    # Two GPU counts: the MLE has a closed form, the observed rates' power law.
    exposures = [Exposure(f"a{i}", 8, 36_000, i < 4) for i in range(10)]  # 4 in 100 h
    exposures += [Exposure(f"b{i}", 64, 18_000, i < 5) for i in range(10)]  # 5 in 50 h
    fit = fit_history(History("c", tuple(exposures)), bootstrap=50)
    m8, m64 = 100 / 4, 50 / 5
    exponent = math.log(m64 / m8) / math.log(64 / 8)
    assert float(fit.curve.exponent) == pytest.approx(exponent, rel=1e-9)
    assert float(fit.curve.hours_at(8)) == pytest.approx(m8, rel=1e-9)
    assert float(fit.curve.hours_at(64)) == pytest.approx(m64, rel=1e-9)
    assert fit.curve.source == "ledger" and len(fit.curve.draws) + fit.draws_failed == 50


def test_a_thin_history_is_refused_with_a_sentence() -> None:
    exposures = tuple(Exposure(str(i), 8, 3600, i < 3) for i in range(40))
    with pytest.raises(ThinHistory, match=r"too thin to fit MTBF\(n\): 3 interruptions in 40 jobs"):
        fit_history(History("tiny", exposures))
    assert issubclass(ThinHistory, InputError)


def test_one_gpu_count_fits_the_scale_with_the_fleet_exponent() -> None:
    exposures = tuple(Exposure(str(i), 16, 36_000, i < 6) for i in range(12))  # 6 in 120 h
    fit = fit_history(History("one", exposures), bootstrap=100)
    assert fit.method == FIXED and fit.exponent_interval is None
    assert fit.curve.exponent == FLEET_PRIOR.exponent
    assert float(fit.curve.hours_at(16)) == pytest.approx(120 / 6, rel=1e-9)
    assert "exponent is the fleet prior's" in fit.curve.note

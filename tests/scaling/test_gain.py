"""Predicted loss and gain: interval orientation, the uncertainty rule, the gate's seam."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

from trainbudget.scaling.bootstrap import BootstrapFits
from trainbudget.scaling.fit import ScalingParams
from trainbudget.scaling.gain import LossPrediction, predict_gain, predict_loss, predicted_losses


def _fits(rows) -> BootstrapFits:
    return BootstrapFits(np.array(rows, dtype=float), len(rows), 0, 0, 1)


def test_predicted_losses_evaluate_the_law_per_row() -> None:
    rows = [[1.69, 406.4, 410.7, 0.34, 0.28], [1.8, 480.0, 2000.0, 0.35, 0.37]]
    got = predicted_losses(np.array(rows), 7e9, 1.4e11)
    expected = [e + a / 7e9**al + b / 1.4e11**be for e, a, b, al, be in rows]
    assert got == pytest.approx(expected, rel=1e-14)


def test_prediction_interval_is_widened_to_hold_the_point() -> None:
    law = ScalingParams(E=2.0, A=0.0, B=0.0, alpha=0.3, beta=0.3)  # predicts exactly 2.0
    fits = _fits([[2.1, 0, 0, 0.3, 0.3], [2.2, 0, 0, 0.3, 0.3], [2.3, 0, 0, 0.3, 0.3]])
    got = predict_loss(law, fits, 1e9, 1e10, 0.9)
    assert got.predicted_loss == 2.0
    assert got.interval[0] == 2.0  # all resamples above the point: low moved down to it
    assert got.interval[1] == pytest.approx(2.29)


@pytest.mark.parametrize(
    ("baseline", "interval", "gain", "gain_interval", "uncertainty", "exceeds"),
    [
        # gain 0.2 in [0.12, 0.25]: wider half 0.08 < 0.2, exceeds.
        (2.5, (2.25, 2.38), 0.2, (0.12, 0.25), 0.08, True),
        # gain 0.05 in [-0.03, 0.09]: wider half 0.08 > 0.05, ambiguous.
        (2.35, (2.26, 2.38), 0.05, (-0.03, 0.09), 0.08, False),
        # the run is predicted worse than the baseline.
        (2.2, (2.25, 2.38), -0.1, (-0.18, -0.05), 0.08, False),
    ],
)
def test_gain_interval_and_rule(
    baseline, interval, gain, gain_interval, uncertainty, exceeds
) -> None:
    prediction = LossPrediction(1e9, 2e10, 2.3, interval, 0.9)
    got = predict_gain(prediction, baseline, "test")
    assert float(got.value) == pytest.approx(gain)
    assert (float(got.low), float(got.high)) == pytest.approx(gain_interval)
    assert float(got.uncertainty) == pytest.approx(uncertainty)
    assert got.exceeds_uncertainty is exceeds


def test_the_decision_gate_reads_the_same_gain_and_uncertainty() -> None:
    from trainbudget.gates.decision import PredictedGain

    prediction = LossPrediction(1e9, 2e10, 2.3, (2.25, 2.38), 0.9)
    ours = predict_gain(prediction, 2.5, "fit")
    theirs = PredictedGain.from_loss(
        Decimal("2.5"), Decimal(repr(2.3)), (Decimal("2.25"), Decimal("2.38")), "fit"
    )
    assert ours == theirs
    assert (theirs.value > theirs.uncertainty) is ours.exceeds_uncertainty

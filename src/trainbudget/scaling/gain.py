"""Predicted loss at the target scale and the gain over a baseline, with bootstrap intervals.

Gain = baseline loss − predicted loss (positive = the run beats the baseline). Seed 004: the
gain must exceed its uncertainty from small-scale variance. The uncertainty is the wider half
of the gain's interval, the same rule `PredictedGain.uncertainty` (scaling/predicted.py) applies, so
the gate reaches the same answer from these numbers: predict_gain returns the gate's type.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trainbudget.estimate.exact import to_decimal
from trainbudget.scaling.bootstrap import BootstrapFits, percentile_interval
from trainbudget.scaling.fit import PARAM_NAMES, ScalingParams
from trainbudget.scaling.law import law_loss
from trainbudget.scaling.predicted import PredictedGain


@dataclass(frozen=True)
class LossPrediction:
    """Predicted loss at (params, tokens): the fit's value and its bootstrap interval."""

    params: float
    tokens: float
    predicted_loss: float
    interval: tuple[float, float]
    confidence: float


def predicted_losses(samples: np.ndarray, params: float, tokens: float) -> np.ndarray:
    """L(N, D) under each bootstrap parameter row (E, A, B, alpha, beta)."""
    return law_loss(dict(zip(PARAM_NAMES, samples.T, strict=True)), params, tokens)


def predict_loss(
    law: ScalingParams, fits: BootstrapFits, params: float, tokens: float, confidence: float
) -> LossPrediction:
    """The law's loss at (params, tokens), with the percentile interval over the resamples."""
    point = law.predict_loss(params, tokens)
    low, high = percentile_interval(predicted_losses(fits.samples, params, tokens), confidence)
    # A percentile interval can miss the point value when the resamples are skewed; widen
    # it to hold the point so that value ∈ [low, high] always (the decision gate needs it).
    return LossPrediction(
        params=params,
        tokens=tokens,
        predicted_loss=point,
        interval=(min(low, point), max(high, point)),
        confidence=confidence,
    )


def predict_gain(prediction: LossPrediction, baseline_loss: float, source: str) -> PredictedGain:
    """Gain = baseline − predicted loss, interval [baseline − high, baseline − low], exactly.

    The fit's floats enter as the decimals of their shortest text, so the fit command, the
    decide command and the pre-launch flow all judge the same PredictedGain.
    """
    return PredictedGain.from_loss(
        to_decimal(baseline_loss),
        to_decimal(prediction.predicted_loss),
        (to_decimal(prediction.interval[0]), to_decimal(prediction.interval[1])),
        source,
    )

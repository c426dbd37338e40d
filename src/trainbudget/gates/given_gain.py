"""The predicted gain a run is weighed by (seed 004), from what its proposer gave: a gain with
its uncertainty (± a spread, or a low-high interval), or a scaling fit's predicted loss at the
target scale against the loss to beat. Plain values in; errors name the fields in backticks
(`gain`, `gain_uncertainty`, `gain_low`, `gain_high`, `fit`, `baseline_loss`)."""

from __future__ import annotations

from decimal import Decimal

from trainbudget.base.errors import InputError
from trainbudget.scaling.predicted import PredictedGain


def given_gain(
    *,
    gain: Decimal | None,
    gain_uncertainty: Decimal | None = None,
    gain_low: Decimal | None = None,
    gain_high: Decimal | None = None,
    gain_source: str = "given",
    fit_loss: Decimal | None = None,
    fit_interval: tuple[Decimal, Decimal] | None = None,
    fit_source: str = "scaling fit",
    baseline_loss: Decimal | None = None,
) -> PredictedGain:
    """The PredictedGain: from the fit (`fit_loss` and its interval, against `baseline_loss`)
    when one is given, else `gain` with `gain_uncertainty` or with `gain_low` and `gain_high`.
    A gain without its uncertainty cannot be judged, so one of the two is required."""
    if fit_loss is not None:
        if gain is not None:
            raise InputError("`gain`: give either `gain` or `fit`, not both")
        if baseline_loss is None:
            raise InputError("`baseline_loss`: required with `fit` (the loss the run must beat)")
        interval = fit_interval if fit_interval is not None else (fit_loss, fit_loss)
        return PredictedGain.from_loss(baseline_loss, fit_loss, interval, fit_source)
    if gain is None:
        raise InputError("`gain`: required (or `fit` with `baseline_loss`)")
    if gain_uncertainty is not None:
        if gain_low is not None or gain_high is not None:
            raise InputError("`gain_uncertainty`: give it or `gain_low`/`gain_high`, not both")
        return PredictedGain.plus_minus(gain, gain_uncertainty, gain_source)
    if gain_low is None or gain_high is None:
        raise InputError(
            "`gain_uncertainty`: required (or both `gain_low` and `gain_high`); a gain without "
            "its uncertainty cannot be judged"
        )
    return PredictedGain(gain, gain_low, gain_high, gain_source)

"""The predicted gain of a run over a baseline (positive = better), with its interval: what the
scaling fit predicts (scaling/gain.py) and seed 004's worth gate judges (gates/decision.py)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from trainbudget.base.errors import InputError
from trainbudget.estimate.exact import finite, non_negative


def _plain(value: Decimal) -> str:
    """A number without an exponent or trailing zeros, for the error line."""
    text = f"{Decimal(value).normalize():f}"
    return text


@dataclass(frozen=True)
class PredictedGain:
    """A predicted improvement over the baseline (positive = better) with its interval.

    `value` lies in [low, high]; `source` says where it came from (a fit, an ablation, ...).
    """

    value: Decimal
    low: Decimal
    high: Decimal
    source: str

    def __post_init__(self) -> None:
        for name in ("value", "low", "high"):
            object.__setattr__(self, name, finite(f"gain.{name}", getattr(self, name)))
        if not self.low <= self.value <= self.high:
            raise InputError(
                f"gain: the interval [{_plain(self.low)}, {_plain(self.high)}] must contain the "
                f"value {_plain(self.value)}"
            )

    @classmethod
    def plus_minus(cls, value: Decimal, uncertainty: Decimal, source: str) -> PredictedGain:
        """A gain given as value ± uncertainty (e.g. the spread across ablation seeds)."""
        spread = non_negative("gain_uncertainty", uncertainty)
        center = finite("gain", value)
        return cls(center, center - spread, center + spread, source)

    @classmethod
    def from_loss(
        cls,
        baseline_loss: Decimal,
        predicted_loss: Decimal,
        interval: tuple[Decimal, Decimal],
        source: str,
    ) -> PredictedGain:
        """Gain as loss reduction: baseline - predicted, interval [baseline - high, baseline - low].

        This is the seam with the scaling fit (issue 6): its predicted_loss and
        predicted_loss_interval at the target scale.
        """
        base = finite("baseline_loss", baseline_loss)
        low_loss, high_loss = (finite("predicted_loss_interval", v) for v in interval)
        return cls(
            base - finite("predicted_loss", predicted_loss),
            base - max(low_loss, high_loss),
            base - min(low_loss, high_loss),
            source,
        )

    @property
    def uncertainty(self) -> Decimal:
        """The wider half of the interval: how far the true gain may be from `value`."""
        return max(self.value - self.low, self.high - self.value)

    @property
    def exceeds_uncertainty(self) -> bool:
        """Seed 004: a gain counts only when it is larger than its own uncertainty."""
        return self.value > self.uncertainty

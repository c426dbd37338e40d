"""Seed 004's decision: is a run's predicted gain worth its dollar cost?

From the run's cost (the estimator's dollars), a predicted gain with its uncertainty (given
directly or derived from a scaling fit against a baseline loss), the smallest gain with a
concrete benefit, and competing proposals: gain per dollar, whether the gain exceeds its
uncertainty, whether the run blocks more promising work, and a one-line verdict.

Verdicts, in the order they are checked: `not-worth-it` (no positive gain), `collect-more-data`
(gain within its uncertainty: seed 004 says collect more small-scale data rather than
gamble), `not-worth-it` (gain below the minimum worth paying for), `defer` (a competing
proposal promises more gain per dollar), else `run`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from trainbudget.base.errors import InputError
from trainbudget.estimate.exact import finite, non_negative
from trainbudget.gates.outcome import GateOutcome, plain, usd
from trainbudget.scaling.predicted import PredictedGain

__all__ = ["CompetingWork", "PredictedGain", "decide_run", "gain_per_1000_usd"]

_PER = Decimal(1000)  # gain per $1,000 reads better than per dollar


@dataclass(frozen=True)
class CompetingWork:
    """Another proposal wanting the same capacity: its predicted gain and its cost."""

    name: str
    gain: Decimal
    cost_usd: Decimal


def gain_per_1000_usd(gain: Decimal, cost_usd: Decimal) -> Decimal:
    """Predicted gain bought by each $1,000 (gain × 1000 / cost)."""
    if cost_usd <= 0:
        raise InputError(f"cost_usd: must be positive to compare gain per dollar, got {cost_usd}")
    return gain * _PER / cost_usd


def decide_run(
    cost_usd: Decimal,
    gain: PredictedGain,
    min_gain: Decimal,
    competing: Sequence[CompetingWork] = (),
) -> GateOutcome:
    """The gain-versus-cost verdict for one run; see the module docstring for the order."""
    cost = non_negative("cost_usd", cost_usd)
    floor = non_negative("min_gain", min_gain)
    rate = gain_per_1000_usd(gain.value, cost)
    rates = [
        (w, gain_per_1000_usd(finite(f"{w.name}.gain", w.gain), w.cost_usd)) for w in competing
    ]
    better = sorted((pair for pair in rates if pair[1] > rate), key=lambda pair: -pair[1])
    exceeds = gain.exceeds_uncertainty
    details = {
        "cost_usd": cost,
        "gain_per_1000_usd": rate,
        "gain_uncertainty": gain.uncertainty,
        "gain_exceeds_uncertainty": exceeds,
        "clears_min_gain": gain.value >= floor,
        "blocks_better_work": bool(better),
        "better_work": [
            {"name": w.name, "gain": w.gain, "cost_usd": w.cost_usd, "gain_per_1000_usd": r}
            for w, r in better
        ],
    }
    inputs = {
        "cost_usd": cost,
        "gain": {"value": gain.value, "low": gain.low, "high": gain.high, "source": gain.source},
        "min_gain": floor,
        "competing": [{"name": w.name, "gain": w.gain, "cost_usd": w.cost_usd} for w in competing],
    }
    stated = (
        f"predicted gain {_g(gain.value)} (interval {_g(gain.low)} to "
        f"{_g(gain.high)}, {gain.source}) for {usd(cost)}"
    )
    if gain.value <= 0:
        verdict, reason, why = (
            "not-worth-it",
            "no-predicted-gain",
            f"Not worth it: {stated}; the run is not predicted to beat the baseline.",
        )
    elif not exceeds:
        verdict, reason, why = (
            "collect-more-data",
            "gain-within-uncertainty",
            f"Ambiguous: {stated}; the gain does not exceed its uncertainty "
            f"(±{_g(gain.uncertainty)}), so collect more small-scale data before paying.",
        )
    elif gain.value < floor:
        verdict, reason, why = (
            "not-worth-it",
            "gain-below-minimum",
            f"Not worth it: {stated}; below the {plain(floor)} that would make a concrete "
            "difference.",
        )
    elif better:
        top, top_rate = better[0]
        verdict, reason, why = (
            "defer",
            "blocks-better-work",
            f"Defer: {stated}; {top.name} promises {_rate(top_rate)} per $1,000 against this "
            f"run's {_rate(rate)}, so this run would block more promising work.",
        )
    else:
        verdict, reason, why = (
            "run",
            None,
            f"Run: {stated}; {_rate(rate)} per $1,000, the gain exceeds its uncertainty and "
            f"the {plain(floor)} minimum.",
        )
    return GateOutcome("decision", verdict, reason, why, inputs, details)


def _g(value: Decimal) -> str:
    """A gain for a sentence: at most 4 significant digits (display only)."""
    return f"{float(value):.4g}"


def _rate(value: Decimal) -> str:
    """A gain rate for a sentence: 3 significant digits (display only)."""
    return f"{float(value):.3g}"

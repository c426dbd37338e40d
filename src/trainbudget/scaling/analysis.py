"""The whole scaling question in one call: fit, bootstrap, predict, allocate, compare.

`analyse_ablations` is what the `fit` command and the decision gate call; its result holds
plain floats and tuples (no numpy) so that callers can read or serialise it directly.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainbudget.base.errors import InputError
from trainbudget.scaling.allocation import Allocation, allocate, compute_optimal
from trainbudget.scaling.bootstrap import BootstrapFits, bootstrap_fits, percentile_interval
from trainbudget.scaling.fit import HUBER_DELTA, PARAM_NAMES, FitResult, fit_scaling_law
from trainbudget.scaling.gain import LossPrediction, predict_gain, predict_loss
from trainbudget.scaling.load import Ablations
from trainbudget.scaling.predicted import PredictedGain

EXTRAPOLATION_WARN_FACTOR = 100.0

Interval = tuple[float, float]


@dataclass(frozen=True)
class ScalingAnalysis:
    """Fit, intervals, prediction at the target, optional gain, compute-optimal allocation."""

    ablations: Ablations
    fit: FitResult
    bootstrap: BootstrapFits
    confidence: float
    param_intervals: dict[str, Interval]
    prediction: LossPrediction
    gain: PredictedGain | None
    baseline_loss: float | None
    allocation: Allocation
    allocation_intervals: dict[str, Interval]
    warnings: list[str]

    def payload(self) -> dict[str, object]:
        """The `fit` command's JSON object (keys of the public contract first)."""
        law = self.fit.params.as_dict()
        alloc = self.allocation
        gain = self.gain
        return {
            "params": law,
            "predicted_loss": self.prediction.predicted_loss,
            "predicted_loss_interval": list(self.prediction.interval),
            "params_interval": {k: list(v) for k, v in self.param_intervals.items()},
            "confidence": self.confidence,
            "target": {
                "params": self.prediction.params,
                "tokens": self.prediction.tokens,
                "flops": 6.0 * self.prediction.params * self.prediction.tokens,
            },
            "gain": None
            if gain is None
            else {
                "baseline_loss": self.baseline_loss,
                "gain": gain.value,
                "gain_interval": [gain.low, gain.high],
                "gain_uncertainty": gain.uncertainty,
                "gain_exceeds_uncertainty": gain.exceeds_uncertainty,
                "source": gain.source,
            },
            "allocation": {
                "budget_flops": alloc.budget_flops,
                "params_opt": alloc.params,
                "tokens_opt": alloc.tokens,
                "tokens_per_param": alloc.tokens_per_param,
                "params_opt_interval": list(self.allocation_intervals["params_opt"]),
                "tokens_opt_interval": list(self.allocation_intervals["tokens_opt"]),
                "tokens_per_param_interval": list(self.allocation_intervals["tokens_per_param"]),
            },
            "fit": {
                "points": len(self.ablations.loss),
                "dropped_points": len(self.ablations.dropped_lines),
                "huber_delta": HUBER_DELTA,
                "objective": self.fit.objective,
                "starts": self.fit.starts,
                "converged_starts": self.fit.converged,
            },
            "bootstrap": {
                "resamples": self.bootstrap.requested,
                "failed": self.bootstrap.failed,
                "seed": self.bootstrap.seed,
                "starts_per_resample": self.bootstrap.starts_per_resample,
            },
            "warnings": list(self.warnings),
        }


def analyse_ablations(
    ablations: Ablations,
    target_params: float,
    target_tokens: float,
    *,
    baseline_loss: float | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.9,
    budget_flops: float | None = None,
) -> ScalingAnalysis:
    """Fit the law to `ablations` and answer for the target run (N, D) and FLOP budget.

    The budget defaults to the target's own 6·N·D, so the allocation says how the same
    compute would be split optimally.
    """
    _check_positive("target_params", target_params)
    _check_positive("target_tokens", target_tokens)
    if not 0.0 < confidence < 1.0:
        raise InputError(f"confidence: must lie strictly between 0 and 1, got {confidence}")
    if baseline_loss is not None:
        _check_positive("baseline_loss", baseline_loss)
    compute = {"target": 6.0 * target_params * target_tokens}
    if budget_flops is not None:
        _check_positive("budget_flops", budget_flops)
        compute["budget"] = budget_flops
    budget = compute.get("budget", compute["target"])
    points = (ablations.params, ablations.tokens, ablations.loss)
    fit = fit_scaling_law(*points)
    fits = bootstrap_fits(*points, fit, resamples, seed)
    param_intervals = {
        name: percentile_interval(fits.samples[:, i], confidence)
        for i, name in enumerate(PARAM_NAMES)
    }
    prediction = predict_loss(fit.params, fits, target_params, target_tokens, confidence)
    gain = None
    if baseline_loss is not None:
        source = (
            f"scaling fit of {ablations.path.name} ({len(ablations.loss)} points, "
            f"{fits.requested} bootstrap resamples, {confidence:.0%} interval)"
        )
        gain = predict_gain(prediction, baseline_loss, source)
    law = fit.params
    allocation = allocate(budget, law.A, law.B, law.alpha, law.beta)
    n_opt, d_opt = compute_optimal(
        budget, fits.column("A"), fits.column("B"), fits.column("alpha"), fits.column("beta")
    )
    allocation_intervals = {
        "params_opt": percentile_interval(n_opt, confidence),
        "tokens_opt": percentile_interval(d_opt, confidence),
        "tokens_per_param": percentile_interval(d_opt / n_opt, confidence),
    }
    return ScalingAnalysis(
        ablations=ablations,
        fit=fit,
        bootstrap=fits,
        confidence=confidence,
        param_intervals=param_intervals,
        prediction=prediction,
        gain=gain,
        baseline_loss=baseline_loss,
        allocation=allocation,
        allocation_intervals=allocation_intervals,
        warnings=extrapolation_warnings(ablations, compute),
    )


def extrapolation_warnings(ablations: Ablations, compute: dict[str, float]) -> list[str]:
    """Warn for each named compute (FLOPs) over 100× outside the ablations' compute range."""
    low, high = float(ablations.flops.min()), float(ablations.flops.max())
    found = []
    for label, flops in compute.items():
        if flops > EXTRAPOLATION_WARN_FACTOR * high:
            found.append(
                f"{label} compute {flops:.3g} FLOPs is {flops / high:,.0f}× the largest "
                f"ablation ({high:.3g} FLOPs): an extrapolation beyond 100×, trust the "
                "interval more than the point value"
            )
        elif flops * EXTRAPOLATION_WARN_FACTOR < low:
            found.append(
                f"{label} compute {flops:.3g} FLOPs is {low / flops:,.0f}× below the smallest "
                f"ablation ({low:.3g} FLOPs): an extrapolation beyond 100×"
            )
    return found


def _check_positive(name: str, value: float) -> None:
    if not value > 0 or value == float("inf"):
        raise InputError(f"{name}: must be a positive number, got {value}")

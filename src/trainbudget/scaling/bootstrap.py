"""Bootstrap the scaling fit: resample the points, refit, read percentile intervals.

A resample of n points drawn with replacement is the original problem with each point
weighted by how often it was drawn, so all resamples are refitted together in one batched
L-BFGS. Each refit starts from the distinct optima of the full-data grid fit (one start when
the grid found a single basin) instead of from all 4,500 grid points: the resample's optimum
lies near the full-data one, and `bench/scaling_bench.py` checks that a full-grid refit of
sampled resamples finds nothing better. Seeded numpy Generator: the same seed gives the same
intervals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trainbudget.base.errors import InputError
from trainbudget.scaling.fit import PARAM_NAMES, TIGHT, FitResult, minimize_starts

MAX_BOOTSTRAP_STARTS = 3


@dataclass(frozen=True)
class BootstrapFits:
    """Refitted parameters of each successful resample: columns E, A, B, alpha, beta."""

    samples: np.ndarray
    requested: int
    failed: int
    seed: int
    starts_per_resample: int

    def column(self, name: str) -> np.ndarray:
        return self.samples[:, PARAM_NAMES.index(name)]


def resample_weights(points: int, resamples: int, seed: int) -> np.ndarray:
    """How often each point is drawn in each resample (rows sum to `points`)."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(points, np.full(points, 1.0 / points), size=resamples).astype(float)


def bootstrap_fits(
    params: np.ndarray,
    tokens: np.ndarray,
    loss: np.ndarray,
    fit: FitResult,
    resamples: int,
    seed: int,
) -> BootstrapFits:
    """Refit `resamples` bootstrap resamples of the points; keep each one's best converged start."""
    if resamples < 2:
        raise InputError(f"bootstrap: need at least 2 resamples for an interval, got {resamples}")
    starts = fit.optima[:MAX_BOOTSTRAP_STARTS]
    weights = resample_weights(len(loss), resamples, seed)
    per = len(starts)
    theta0 = np.tile(starts, (resamples, 1))  # resample r uses rows r*per .. r*per+per-1
    result = minimize_starts(
        theta0,
        np.log(params),
        np.log(tokens),
        np.log(loss),
        np.repeat(weights, per, axis=0),
        **TIGHT,
    )
    fun = np.where(result.converged & np.isfinite(result.fun), result.fun, np.inf)
    fun = fun.reshape(resamples, per)
    best = np.argmin(fun, axis=1)
    ok = np.isfinite(fun[np.arange(resamples), best])
    theta = result.x.reshape(resamples, per, 5)[np.arange(resamples), best][ok]
    a, b, e, alpha, beta = theta.T
    samples = np.column_stack([np.exp(e), np.exp(a), np.exp(b), alpha, beta])
    return BootstrapFits(
        samples=samples,
        requested=resamples,
        failed=int((~ok).sum()),
        seed=seed,
        starts_per_resample=per,
    )


def percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """Equal-tailed percentile interval holding `confidence` of the finite values."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return (float("nan"), float("nan"))
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(finite, [tail, 1.0 - tail])
    return (float(low), float(high))

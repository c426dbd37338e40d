"""Fit L(N, D) = E + A/N^α + B/D^β the way Hoffmann et al. 2022 (Approach 3) did.

Hoffmann et al., "Training Compute-Optimal Large Language Models" (arXiv:2203.15556),
Appendix D.2: minimise the Huber loss (δ = 1e-3) between the log of the predicted loss,
written as LSE(a − α·log N, b − β·log D, e) with A = eᵃ, B = eᵇ, E = eᵉ, and the log of the
observed loss, by L-BFGS from a grid of initialisations, keeping the best. Every start runs
at once in `lbfgs.minimize_rows`; resamples of the bootstrap are the same problem with
per-point weights (how often each point was drawn), so they batch the same way.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from trainbudget.base.errors import InputError
from trainbudget.scaling.law import law_loss
from trainbudget.scaling.lbfgs import BatchResult, minimize_rows

HUBER_DELTA = 1e-3
# The Huber objective is nearly flat along the A-α and B-β valleys: scipy's default stopping
# rule (absolute decrease ≤ 2.2e-9 when the objective is below 1) halts a start from nearby
# long before the valley's minimum. The grid runs with scipy's default tolerances; the best
# start is then polished, and bootstrap refits run, with these tight ones.
TIGHT = {"ftol": 1e-15, "gtol": 1e-9, "max_iterations": 5000}
PARAM_NAMES = ("E", "A", "B", "alpha", "beta")
_BLOCK_ROWS = 64


def hoffmann_grid() -> np.ndarray:
    """The 4,500 initialisations of Hoffmann et al.: rows of (a, b, e, α, β).

    α, β ∈ {0, 0.5, …, 2}, e ∈ {−1, −0.5, …, 1}, a, b ∈ {0, 5, …, 25}.
    """
    exponents = [0.0, 0.5, 1.0, 1.5, 2.0]
    e_values = [-1.0, -0.5, 0.0, 0.5, 1.0]
    ab_values = [0.0, 5.0, 10.0, 15.0, 20.0, 25.0]
    return np.array(list(itertools.product(ab_values, ab_values, e_values, exponents, exponents)))


@dataclass(frozen=True)
class ScalingParams:
    """The fitted law L(N, D) = E + A/N^alpha + B/D^beta (loss in nats per token)."""

    E: float
    A: float
    B: float
    alpha: float
    beta: float

    @classmethod
    def from_theta(cls, theta: np.ndarray) -> ScalingParams:
        """From the optimiser's (a, b, e, α, β) with A = eᵃ, B = eᵇ, E = eᵉ."""
        a, b, e, alpha, beta = (float(v) for v in theta)
        return cls(E=math.exp(e), A=math.exp(a), B=math.exp(b), alpha=alpha, beta=beta)

    def as_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in PARAM_NAMES}

    def predict_loss(self, params: float, tokens: float) -> float:
        """Predicted loss at N parameters trained on D tokens."""
        return law_loss(self.as_dict(), params, tokens)


@dataclass(frozen=True)
class FitResult:
    """The best converged start of the grid, and what the grid did."""

    params: ScalingParams
    theta: np.ndarray  # (a, b, e, alpha, beta) of the best start
    objective: float  # summed Huber loss of log-loss residuals at the optimum
    starts: int
    converged: int
    optima: np.ndarray  # up to 10 converged optima more than 0.1 apart in theta, best first


def huber_objective(
    theta: np.ndarray,
    log_params: np.ndarray,
    log_tokens: np.ndarray,
    log_loss: np.ndarray,
    weights: np.ndarray | None = None,
    delta: float = HUBER_DELTA,
) -> tuple[np.ndarray, np.ndarray]:
    """Summed Huber loss of LSE(a − α·log N, b − β·log D, e) − log L, and its gradient.

    theta has one row (a, b, e, α, β) per problem; weights (rows × points) count how often
    each point is in that row's sample (None = every point once).
    """
    a, b, e, alpha, beta = (theta[:, i : i + 1] for i in range(5))
    u1 = a - alpha * log_params
    u2 = b - beta * log_tokens
    top = np.maximum(np.maximum(u1, u2), e)  # log-sum-exp shift: no overflow, no underflow
    x1 = np.exp(u1 - top, out=u1)
    x2 = np.exp(u2 - top, out=u2)
    x3 = np.exp(e - top)
    total = x1 + x2 + x3
    residual = np.log(total) + top - log_loss
    # With c = clip(r, ±δ): c·(r − c/2) is r²/2 inside the band and δ(|r| − δ/2) outside.
    clipped = np.clip(residual, -delta, delta)
    huber = clipped * (residual - 0.5 * clipped)
    slope = clipped / total  # dHuber/dr times the softmax's 1/total
    if weights is not None:
        huber = huber * weights
        slope = slope * weights
    s1 = slope * x1
    s2 = slope * x2
    grad = np.empty_like(theta)
    grad[:, 0] = s1.sum(axis=1)
    grad[:, 1] = s2.sum(axis=1)
    grad[:, 2] = (slope * x3).sum(axis=1)
    grad[:, 3] = -(s1 @ log_params)
    grad[:, 4] = -(s2 @ log_tokens)
    return huber.sum(axis=1), grad


def minimize_starts(
    starts: np.ndarray,
    log_params: np.ndarray,
    log_tokens: np.ndarray,
    log_loss: np.ndarray,
    weights: np.ndarray | None = None,
    **tolerances: float,
) -> BatchResult:
    """L-BFGS from every row of `starts`; row i uses weights[i] when weights are given."""

    def objective(theta: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        f = np.empty(len(rows))
        g = np.empty_like(theta)
        # Blocks of rows keep each temporary array in cache: about twice as fast as one
        # (rows × points) pass over thousands of starts.
        for lo in range(0, len(rows), _BLOCK_ROWS):
            hi = lo + _BLOCK_ROWS
            w = None if weights is None else weights[rows[lo:hi]]
            f[lo:hi], g[lo:hi] = huber_objective(theta[lo:hi], log_params, log_tokens, log_loss, w)
        return f, g

    return minimize_rows(objective, starts, **tolerances)


def fit_scaling_law(
    params: np.ndarray,
    tokens: np.ndarray,
    loss: np.ndarray,
    grid: np.ndarray | None = None,
) -> FitResult:
    """Fit E, A, B, α, β to points (N, D, loss) from every start of `grid` (default Hoffmann's)."""
    starts = hoffmann_grid() if grid is None else np.asarray(grid, dtype=float)
    log_n, log_d, log_l = np.log(params), np.log(tokens), np.log(loss)
    result = minimize_starts(starts, log_n, log_d, log_l)
    ok = np.flatnonzero(result.converged & np.isfinite(result.fun))
    if ok.size == 0:
        raise InputError(
            f"scaling fit: none of the {len(starts)} L-BFGS starts converged; "
            "the points may not follow L = E + A/N^alpha + B/D^beta"
        )
    order = ok[np.argsort(result.fun[ok], kind="stable")]
    optima = _distinct_rows(result.x[order])
    polished = minimize_starts(optima, log_n, log_d, log_l, **TIGHT)
    # The line search only accepts decreases, so a polished row is never worse than its
    # start; one that stopped on the iteration cap keeps its (still better) endpoint.
    fun = np.where(np.isfinite(polished.fun), polished.fun, np.inf)
    ranked = np.argsort(fun, kind="stable")
    best = int(ranked[0])
    optima = _distinct_rows(polished.x[ranked])
    return FitResult(
        params=ScalingParams.from_theta(polished.x[best]),
        theta=polished.x[best].copy(),
        objective=float(fun[best]),
        starts=len(starts),
        converged=int(ok.size),
        optima=optima,
    )


def _distinct_rows(thetas: np.ndarray, tolerance: float = 0.1, limit: int = 10) -> np.ndarray:
    """Up to `limit` rows, each farther than `tolerance` (largest coordinate gap) from the
    earlier kept ones: the separate basins the grid found, best first."""
    kept = thetas[:1]
    for row in thetas[1:]:
        if len(kept) >= limit:
            break
        if np.abs(kept - row).max(axis=1).min() > tolerance:
            kept = np.vstack([kept, row])
    return kept

"""Compute-optimal model size and tokens for a FLOP budget under the fitted law.

Minimising E + A/N^α + B/D^β subject to C = 6·N·D gives (Hoffmann et al. 2022, eq. 4)
N_opt = G·(C/6)^(β/(α+β)), D_opt = G⁻¹·(C/6)^(α/(α+β)), G = (αA / (βB))^(1/(α+β)).
Both exponents hinge on α and β, so the point values say little without their intervals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Allocation:
    """Parameters, tokens and tokens per parameter that minimise loss for `budget_flops`."""

    budget_flops: float
    params: float
    tokens: float
    tokens_per_param: float


def compute_optimal(
    budget_flops: float,
    A: np.ndarray | float,
    B: np.ndarray | float,
    alpha: np.ndarray | float,
    beta: np.ndarray | float,
) -> tuple[np.ndarray, np.ndarray]:
    """(N_opt, D_opt) for each parameter set; NaN where α or β is not positive.

    Worked in logs so that 1e25-FLOP budgets and tiny exponents stay in range.
    """
    a, b = np.asarray(alpha, dtype=float), np.asarray(beta, dtype=float)
    valid = (a > 0) & (b > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = np.where(valid, a + b, np.nan)
        log_g = (np.log(a * np.asarray(A, dtype=float)) - np.log(b * np.asarray(B))) / total
        log_c6 = np.log(budget_flops / 6.0)
        log_n = log_g + (b / total) * log_c6
        log_d = -log_g + (a / total) * log_c6
    return np.exp(log_n), np.exp(log_d)


def allocate(budget_flops: float, A: float, B: float, alpha: float, beta: float) -> Allocation:
    """The point allocation for one parameter set."""
    n_opt, d_opt = compute_optimal(budget_flops, A, B, alpha, beta)
    n, d = float(n_opt), float(d_opt)
    return Allocation(budget_flops=budget_flops, params=n, tokens=d, tokens_per_param=d / n)

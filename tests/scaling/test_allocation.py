"""Compute-optimal allocation: closed form against a direct search along the iso-FLOP line."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

from trainbudget.scaling.allocation import allocate, compute_optimal


def _search_optimum(budget, E, A, B, alpha, beta):
    # Minimise L(N, C/(6N)) over log N numerically: no use of the closed form.
    def loss(log_n):
        n = np.exp(log_n)
        return E + A / n**alpha + B / (budget / (6 * n)) ** beta

    best = minimize_scalar(
        loss, bounds=(0.0, np.log(budget)), method="bounded", options={"xatol": 1e-10}
    )
    n = np.exp(best.x)
    return n, budget / (6 * n)


@pytest.mark.parametrize("budget", [1e19, 5.76e23, 1e25])
def test_closed_form_matches_search_on_hoffmanns_law(budget) -> None:
    law = {"E": 1.69, "A": 406.4, "B": 410.7, "alpha": 0.34, "beta": 0.28}
    got = allocate(budget, law["A"], law["B"], law["alpha"], law["beta"])
    n, d = _search_optimum(budget, **law)
    assert got.params == pytest.approx(n, rel=1e-4)
    assert got.tokens == pytest.approx(d, rel=1e-4)
    assert got.tokens_per_param == pytest.approx(d / n, rel=1e-4)


@settings(max_examples=60, deadline=None)
@given(
    budget=st.floats(1e17, 1e26),
    A=st.floats(10, 5000),
    B=st.floats(10, 5000),
    alpha=st.floats(0.1, 0.8),
    beta=st.floats(0.1, 0.8),
)
def test_allocation_spends_exactly_the_budget(budget, A, B, alpha, beta) -> None:
    n, d = compute_optimal(budget, A, B, alpha, beta)
    assert 6 * n * d == pytest.approx(budget, rel=1e-9)
    # At the optimum, the marginal losses balance: alpha·A/N^alpha = beta·B/D^beta.
    assert alpha * A / n**alpha == pytest.approx(beta * B / d**beta, rel=1e-6)


def test_non_positive_exponents_give_no_allocation() -> None:
    n, d = compute_optimal(
        1e21,
        np.array([400.0, 400.0]),
        np.array([400.0, 400.0]),
        np.array([0.3, 0.0]),
        np.array([0.3, 0.3]),
    )
    assert np.isfinite(n[0]) and np.isfinite(d[0])
    assert np.isnan(n[1]) and np.isnan(d[1])

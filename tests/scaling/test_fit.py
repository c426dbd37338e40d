"""The Approach-3 fit: objective and gradient, recovery of a known law, the published oracle."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import check_grad, minimize
from scipy.special import huber, logsumexp

from trainbudget.scaling.fit import (
    ScalingParams,
    fit_scaling_law,
    hoffmann_grid,
    huber_objective,
)


def _objective_by_hand(theta, params, tokens, loss, delta=1e-3):
    # Independent of the package: scipy's huber(δ, r) and logsumexp, one point at a time.
    a, b, e, alpha, beta = theta
    total = 0.0
    for n, d, observed in zip(params, tokens, loss, strict=True):
        predicted = logsumexp([a - alpha * np.log(n), b - beta * np.log(d), e])
        total += huber(delta, predicted - np.log(observed))
    return total


def test_grid_is_hoffmanns_4500_starts() -> None:
    grid = hoffmann_grid()
    assert grid.shape == (4500, 5)
    assert sorted(set(grid[:, 0])) == [0, 5, 10, 15, 20, 25]
    assert sorted(set(grid[:, 2])) == [-1, -0.5, 0, 0.5, 1]
    assert sorted(set(grid[:, 3])) == [0, 0.5, 1, 1.5, 2]
    assert len({tuple(r) for r in grid}) == 4500


def test_objective_matches_a_point_by_point_computation(make_points) -> None:
    params, tokens, loss = make_points(seed=1)
    rng = np.random.default_rng(0)
    thetas = np.column_stack(
        [
            rng.uniform(4, 8, 6),
            rng.uniform(4, 8, 6),
            rng.uniform(0, 1, 6),
            rng.uniform(0.1, 0.6, 6),
            rng.uniform(0.1, 0.6, 6),
        ]
    )
    f, _ = huber_objective(thetas, np.log(params), np.log(tokens), np.log(loss))
    expected = [_objective_by_hand(t, params, tokens, loss) for t in thetas]
    assert np.allclose(f, expected, rtol=1e-10, atol=0)


def test_gradient_matches_finite_differences(make_points) -> None:
    params, tokens, loss = make_points(seed=2)
    logs = (np.log(params), np.log(tokens), np.log(loss))
    weights = np.random.default_rng(5).integers(0, 3, size=(1, params.size)).astype(float)

    def f(theta):
        return huber_objective(theta[None], *logs, weights)[0][0]

    def g(theta):
        return huber_objective(theta[None], *logs, weights)[1][0]

    for theta in ([6.0, 6.0, 0.5, 0.34, 0.28], [3.0, 9.0, -0.5, 0.2, 0.5]):
        # Relative error: the Huber kink makes tiny absolute differences, compare scale-free.
        error = check_grad(f, g, np.array(theta), epsilon=1e-7)
        assert error <= 1e-4 * max(1.0, np.linalg.norm(g(np.array(theta))))


def test_recovers_a_known_law_from_noisy_synthetic_points(make_points, true_law, loss_of) -> None:
    params, tokens, loss = make_points(seed=11, noise=0.003)
    fit = fit_scaling_law(params, tokens, loss)
    got = fit.params
    assert got.alpha == pytest.approx(true_law["alpha"], abs=0.03)
    assert got.beta == pytest.approx(true_law["beta"], abs=0.03)
    assert pytest.approx(true_law["E"], abs=0.05) == got.E
    # Loss predicted 10x beyond the data, against the true law.
    far = loss_of(true_law, np.array([1e10]), np.array([3e11]))[0]
    assert got.predict_loss(1e10, 3e11) == pytest.approx(far, rel=0.01)
    assert fit.converged > 0.9 * fit.starts


def test_chinchilla_fit_matches_the_epoch_replication(chinchilla_fit) -> None:
    # Besiroglu et al. 2024 (arXiv:2404.10102) fit this data (5 highest losses removed) the
    # same way and report E ≈ 1.82, A ≈ 482, B ≈ 2085, alpha ≈ 0.35, beta ≈ 0.37.
    got = chinchilla_fit.params
    assert pytest.approx(1.82, abs=0.02) == got.E
    assert pytest.approx(482.0, rel=0.05) == got.A
    assert pytest.approx(2085.0, rel=0.05) == got.B
    assert got.alpha == pytest.approx(0.35, abs=0.01)
    assert got.beta == pytest.approx(0.37, abs=0.01)
    # ... and not Hoffmann et al.'s published B = 410.7, beta = 0.28 (the replication's point).
    assert got.beta > 0.33


def test_batched_grid_is_no_worse_than_scipy_from_the_same_starts(
    chinchilla_points, chinchilla_fit
) -> None:
    p = chinchilla_points
    logs = (np.log(p.params), np.log(p.tokens), np.log(p.loss))

    def fun(theta):
        f, g = huber_objective(theta[None], *logs)
        return f[0], g[0]

    starts = hoffmann_grid()[::150]  # 30 starts spread over the grid
    best = min(
        r.fun for r in (minimize(fun, s, jac=True, method="L-BFGS-B") for s in starts) if r.success
    )
    assert chinchilla_fit.objective <= best + 1e-9
    assert chinchilla_fit.objective == pytest.approx(best, rel=1e-3)


def test_params_convert_from_log_parameterisation() -> None:
    law = ScalingParams.from_theta(
        np.array([np.log(406.4), np.log(410.7), np.log(1.69), 0.34, 0.28])
    )
    assert law.as_dict() == pytest.approx(
        {"E": 1.69, "A": 406.4, "B": 410.7, "alpha": 0.34, "beta": 0.28}, rel=1e-12
    )
    assert law.predict_loss(1e9, 2e10) == pytest.approx(
        1.69 + 406.4 / 1e9**0.34 + 410.7 / 2e10**0.28
    )


def test_weights_equal_repeating_points(make_points) -> None:
    # A bootstrap resample as weights must score exactly like the resample written out.
    params, tokens, loss = make_points(seed=6)
    rng = np.random.default_rng(1)
    draw = rng.integers(0, params.size, params.size)
    counts = np.bincount(draw, minlength=params.size).astype(float)
    theta = np.array([[6.0, 6.0, 0.5, 0.34, 0.28], [5.0, 7.0, 0.4, 0.3, 0.35]])
    weighted = huber_objective(theta, np.log(params), np.log(tokens), np.log(loss), counts[None])
    written = huber_objective(theta, np.log(params[draw]), np.log(tokens[draw]), np.log(loss[draw]))
    assert np.allclose(weighted[0], written[0], rtol=1e-12)
    assert np.allclose(weighted[1], written[1], rtol=1e-10)

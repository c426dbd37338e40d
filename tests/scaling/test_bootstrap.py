"""Bootstrap intervals: reproducible, honest refits, coverage of the truth, stable on fixtures."""

from __future__ import annotations

import numpy as np
import pytest

from trainbudget.base.errors import InputError
from trainbudget.scaling.bootstrap import bootstrap_fits, percentile_interval, resample_weights
from trainbudget.scaling.fit import fit_scaling_law, hoffmann_grid, minimize_starts
from trainbudget.scaling.gain import predicted_losses

COARSE_GRID = hoffmann_grid()[::25]  # 180 of the 4,500 starts: enough for clean synthetic data


def test_resample_weights_are_counts_of_n_draws_and_seeded() -> None:
    w = resample_weights(40, 200, seed=7)
    assert w.shape == (200, 40)
    assert (w.sum(axis=1) == 40).all()
    assert np.array_equal(w, resample_weights(40, 200, seed=7))
    assert not np.array_equal(w, resample_weights(40, 200, seed=8))
    # Each point is drawn once per resample on average.
    assert w.mean() == pytest.approx(1.0)


def test_percentile_interval_of_known_values() -> None:
    values = np.arange(101, dtype=float)  # 0..100: the 5th and 95th percentiles are 5 and 95
    assert percentile_interval(values, 0.9) == pytest.approx((5.0, 95.0), abs=1e-12)
    # Non-finite refits are ignored: the interval of [1, 3] at 50 % is [1.5, 2.5].
    got = percentile_interval(np.array([np.nan, 1.0, np.inf, 3.0]), 0.5)
    assert got == pytest.approx((1.5, 2.5), abs=1e-12)


def test_same_seed_same_intervals(make_points) -> None:
    params, tokens, loss = make_points(seed=3)
    fit = fit_scaling_law(params, tokens, loss, grid=COARSE_GRID)
    first = bootstrap_fits(params, tokens, loss, fit, 60, seed=42)
    again = bootstrap_fits(params, tokens, loss, fit, 60, seed=42)
    other = bootstrap_fits(params, tokens, loss, fit, 60, seed=43)
    assert np.array_equal(first.samples, again.samples)
    assert not np.array_equal(first.samples, other.samples)


def test_refit_from_the_optimum_equals_a_full_grid_refit(make_points) -> None:
    # The bootstrap starts each resample from the full-data optimum; check that a refit of
    # the same resample from the whole 4,500-start grid lands on the same answer.
    params, tokens, loss = make_points(seed=4, noise=0.01)
    fit = fit_scaling_law(params, tokens, loss)
    fits = bootstrap_fits(params, tokens, loss, fit, 3, seed=9)
    weights = resample_weights(len(loss), 3, seed=9)
    grid = hoffmann_grid()
    for r in range(3):
        full = minimize_starts(
            grid,
            np.log(params),
            np.log(tokens),
            np.log(loss),
            np.repeat(weights[r : r + 1], len(grid), axis=0),
        )
        best = np.flatnonzero(full.converged)[np.argmin(full.fun[full.converged])]
        e, alpha, beta = full.x[best][2:]
        assert fits.samples[r, 3] == pytest.approx(alpha, abs=2e-3)
        assert fits.samples[r, 4] == pytest.approx(beta, abs=2e-3)
        assert fits.samples[r, 0] == pytest.approx(np.exp(e), rel=2e-3)


def test_ninety_percent_intervals_cover_the_truth_most_of_the_time(
    make_points, true_law, loss_of
) -> None:
    repetitions, hits = 20, {"alpha": 0, "beta": 0, "loss": 0}
    target = (np.array([3e9]), np.array([1e11]))  # 3x beyond the largest synthetic model
    truth_loss = loss_of(true_law, *target)[0]
    for rep in range(repetitions):
        params, tokens, loss = make_points(seed=100 + rep, noise=0.01)
        fit = fit_scaling_law(params, tokens, loss, grid=COARSE_GRID)
        fits = bootstrap_fits(params, tokens, loss, fit, 200, seed=rep)
        low, high = percentile_interval(fits.column("alpha"), 0.9)
        hits["alpha"] += low <= true_law["alpha"] <= high
        low, high = percentile_interval(fits.column("beta"), 0.9)
        hits["beta"] += low <= true_law["beta"] <= high
        low, high = percentile_interval(predicted_losses(fits.samples, *target), 0.9)
        hits["loss"] += low <= truth_loss <= high
    # Nominal 90 %: 18 of 20 expected; at 14 or fewer the intervals would be too narrow.
    for name, count in hits.items():
        assert count >= 15, f"{name}: truth inside the 90 % interval in {count} of {repetitions}"


def test_fixture_intervals_are_stable_across_seeds(chinchilla_points, chinchilla_fit) -> None:
    p = chinchilla_points
    runs = [bootstrap_fits(p.params, p.tokens, p.loss, chinchilla_fit, 300, seed=s) for s in (1, 2)]
    for name, tolerance in (("E", 0.02), ("alpha", 0.01), ("beta", 0.015)):
        (low1, high1), (low2, high2) = (percentile_interval(r.column(name), 0.9) for r in runs)
        assert low1 == pytest.approx(low2, abs=tolerance), name
        assert high1 == pytest.approx(high2, abs=tolerance), name
        point = getattr(chinchilla_fit.params, name)
        assert low1 < point < high1
    assert all(r.failed == 0 for r in runs)


def test_too_few_resamples_is_an_error(make_points) -> None:
    params, tokens, loss = make_points(seed=3)
    fit = fit_scaling_law(params, tokens, loss, grid=COARSE_GRID)
    with pytest.raises(InputError, match="bootstrap: need at least 2"):
        bootstrap_fits(params, tokens, loss, fit, 1, seed=0)

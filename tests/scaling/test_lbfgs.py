"""The batched L-BFGS: a known minimum, independence of rows, agreement with scipy."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize, rosen, rosen_der

from trainbudget.scaling.lbfgs import CONVERGED, minimize_rows


def _rosenbrock_rows(x: np.ndarray, rows: np.ndarray):
    # Row i is the Rosenbrock function scaled by (1 + i): same minimum (1, 1), other scales.
    scale = 1.0 + rows
    f = np.array([rosen(r) for r in x]) * scale
    g = np.array([rosen_der(r) for r in x]) * scale[:, None]
    return f, g


def test_every_row_finds_the_rosenbrock_minimum() -> None:
    starts = np.array([[-1.2, 1.0], [2.0, 2.0], [0.0, 0.0], [-2.0, 3.0], [1.5, -0.5]])
    result = minimize_rows(_rosenbrock_rows, starts, gtol=1e-8, ftol=1e-15)
    assert (result.status == CONVERGED).all()
    assert np.allclose(result.x, 1.0, atol=1e-4)
    assert (result.iterations > 5).all()


def test_rows_do_not_influence_each_other() -> None:
    starts = np.array([[-1.2, 1.0], [2.0, 2.0], [0.5, -1.0]])
    together = minimize_rows(_rosenbrock_rows, starts)
    for i in range(len(starts)):

        def one_row(x, rows, i=i):
            return _rosenbrock_rows(x, rows + i)

        alone = minimize_rows(one_row, starts[i : i + 1])
        assert np.array_equal(alone.x[0], together.x[i])
        assert alone.iterations[0] == together.iterations[i]


def test_quadratic_minimum_matches_the_linear_solve() -> None:
    # f(x) = ½ xᵀQx − bᵀx has its minimum at Q⁻¹b: an exact, independent answer.
    rng = np.random.default_rng(3)
    m = rng.normal(size=(5, 5))
    q = m @ m.T + 5 * np.eye(5)
    b = rng.normal(size=5)

    def quad(x, rows):
        return 0.5 * np.einsum("ij,jk,ik->i", x, q, x) - x @ b, x @ q - b

    result = minimize_rows(quad, rng.normal(size=(4, 5)) * 10, gtol=1e-10, ftol=0.0)
    assert np.allclose(result.x, np.linalg.solve(q, b), atol=1e-7)
    reference = minimize(lambda x: quad(x[None], None)[0][0], np.zeros(5), method="L-BFGS-B")
    assert np.allclose(result.fun, reference.fun, atol=1e-9)

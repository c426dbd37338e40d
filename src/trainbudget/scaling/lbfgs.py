"""L-BFGS run on many independent problems at once, one row of a matrix per problem.

The scaling fit starts L-BFGS from thousands of initialisations, and the bootstrap refits
hundreds of resamples. Stepping them together as (rows × parameters) arrays turns thousands
of small Python-level optimiser loops into a few hundred numpy operations on large arrays.
Each row keeps its own history, step length and stopping state, so every row follows the
algorithm of Nocedal & Wright (2006), "Numerical Optimization", Algorithm 7.4 (two-loop
recursion) with a backtracking Armijo line search (their Algorithm 3.1) and the stopping
tests of scipy's L-BFGS-B (relative decrease `ftol`, largest gradient component `gtol`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

# Objective over a subset of rows: (x[rows], rows) -> (f[rows], grad[rows]).
BatchObjective = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]

CONVERGED = 0
MAX_ITERATIONS = 1
LINE_SEARCH_FAILED = 2

_ARMIJO_C1 = 1e-4
_MAX_BACKTRACKS = 40
_TINY = np.finfo(float).tiny


@dataclass(frozen=True)
class BatchResult:
    """Per-row outcome: final point, objective, status code and iterations used."""

    x: np.ndarray
    fun: np.ndarray
    status: np.ndarray
    iterations: np.ndarray

    @property
    def converged(self) -> np.ndarray:
        """True where the row stopped on a tolerance (not on iterations or line search)."""
        return self.status == CONVERGED


def minimize_rows(
    objective: BatchObjective,
    x0: np.ndarray,
    *,
    memory: int = 10,
    max_iterations: int = 2000,
    ftol: float = 2.220446049250313e-09,
    gtol: float = 1e-05,
) -> BatchResult:
    """Minimise each row's problem from its row of `x0` (shape rows × parameters).

    Defaults match scipy.optimize.minimize(method="L-BFGS-B"): memory 10, ftol = 1e7 · eps,
    gtol 1e-5 on the largest absolute gradient component. Trial steps that overflow give
    non-finite values, which the line search rejects, so numpy's warnings are silenced.
    """
    with np.errstate(over="ignore", divide="ignore", invalid="ignore", under="ignore"):
        return _minimize_rows(objective, x0, memory, max_iterations, ftol, gtol)


def _minimize_rows(
    objective: BatchObjective,
    x0: np.ndarray,
    memory: int,
    max_iterations: int,
    ftol: float,
    gtol: float,
) -> BatchResult:
    x = np.array(x0, dtype=float, copy=True)
    rows, dim = x.shape
    all_rows = np.arange(rows)
    f, g = objective(x, all_rows)
    s_hist = np.zeros((memory, rows, dim))
    y_hist = np.zeros((memory, rows, dim))
    rho = np.zeros((memory, rows))
    gamma = np.zeros(rows)  # initial inverse-Hessian scale; 0 = no curvature pair yet
    status = np.full(rows, MAX_ITERATIONS)
    iterations = np.zeros(rows, dtype=int)
    active = np.isfinite(f) & np.all(np.isfinite(g), axis=1)
    status[~active] = LINE_SEARCH_FAILED
    active &= np.abs(g).max(axis=1) > gtol
    status[np.flatnonzero(~active & (status != LINE_SEARCH_FAILED))] = CONVERGED

    for _ in range(max_iterations):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        d = _two_loop_direction(g[idx], s_hist[:, idx], y_hist[:, idx], rho[:, idx], gamma[idx])
        slope = np.einsum("ij,ij->i", g[idx], d)
        uphill = ~(slope < 0)
        if uphill.any():
            # Lost curvature information: restart that row from steepest descent.
            rho[:, idx[uphill]] = 0.0
            gamma[idx[uphill]] = 0.0
            d[uphill] = _steepest(g[idx[uphill]])
            slope[uphill] = np.einsum("ij,ij->i", g[idx[uphill]], d[uphill])
        accepted, x_new, f_new, g_new = _backtrack(objective, idx, x[idx], f[idx], d, slope)
        failed = idx[~accepted]
        status[failed] = LINE_SEARCH_FAILED
        active[failed] = False
        ok = idx[accepted]
        if ok.size == 0:
            continue
        x_new, f_new, g_new = x_new[accepted], f_new[accepted], g_new[accepted]
        s = x_new - x[ok]
        y = g_new - g[ok]
        sy = np.einsum("ij,ij->i", s, y)
        yy = np.einsum("ij,ij->i", y, y)
        # Keep a pair only with clear positive curvature (and y·y not underflowed to zero).
        keep = (sy > 1e-10 * np.sqrt(yy * np.einsum("ij,ij->i", s, s))) & (yy > _TINY)
        upd = ok[keep]
        # Newest pair goes last; the oldest falls off the front.
        s_hist[:-1, upd] = s_hist[1:, upd]
        y_hist[:-1, upd] = y_hist[1:, upd]
        rho[:-1, upd] = rho[1:, upd]
        s_hist[-1, upd] = s[keep]
        y_hist[-1, upd] = y[keep]
        rho[-1, upd] = 1.0 / sy[keep]
        gamma[upd] = sy[keep] / yy[keep]
        decrease = f[ok] - f_new
        scale = np.maximum(np.maximum(np.abs(f[ok]), np.abs(f_new)), 1.0)
        x[ok], f[ok], g[ok] = x_new, f_new, g_new
        iterations[ok] += 1
        done = (decrease <= ftol * scale) | (np.abs(g_new).max(axis=1) <= gtol)
        status[ok[done]] = CONVERGED
        active[ok[done]] = False
    return BatchResult(x=x, fun=f, status=status, iterations=iterations)


def _steepest(g: np.ndarray) -> np.ndarray:
    # First step of length at most 1 along -g, as scipy's L-BFGS-B takes on iteration 0.
    norm = np.linalg.norm(g, axis=1, keepdims=True)
    return -g / np.maximum(norm, 1.0)


def _two_loop_direction(
    g: np.ndarray, s_hist: np.ndarray, y_hist: np.ndarray, rho: np.ndarray, gamma: np.ndarray
) -> np.ndarray:
    """-H·g by the two-loop recursion; rows without curvature pairs get steepest descent."""
    q = g.copy()
    memory = s_hist.shape[0]
    alphas = np.zeros((memory, g.shape[0]))
    for i in range(memory - 1, -1, -1):
        alphas[i] = rho[i] * np.einsum("ij,ij->i", s_hist[i], q)
        q -= alphas[i][:, None] * y_hist[i]
    r = gamma[:, None] * q
    for i in range(memory):
        beta = rho[i] * np.einsum("ij,ij->i", y_hist[i], r)
        r += s_hist[i] * (alphas[i] - beta)[:, None]
    d = -r
    fresh = gamma == 0.0
    if fresh.any():
        d[fresh] = _steepest(g[fresh])
    return d


def _backtrack(
    objective: BatchObjective,
    idx: np.ndarray,
    x: np.ndarray,
    f: np.ndarray,
    d: np.ndarray,
    slope: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Armijo backtracking from step 1, halving (or interpolating) until sufficient decrease."""
    rows = idx.size
    step = np.ones(rows)
    accepted = np.zeros(rows, dtype=bool)
    x_new = x.copy()
    f_new = np.full(rows, np.inf)
    g_new = np.zeros_like(x)
    pending = np.arange(rows)
    for _ in range(_MAX_BACKTRACKS):
        trial_x = x[pending] + step[pending, None] * d[pending]
        trial_f, trial_g = objective(trial_x, idx[pending])
        finite = np.isfinite(trial_f) & np.all(np.isfinite(trial_g), axis=1)
        armijo = trial_f <= f[pending] + _ARMIJO_C1 * step[pending] * slope[pending]
        good = finite & armijo
        took = pending[good]
        accepted[took] = True
        x_new[took], f_new[took], g_new[took] = trial_x[good], trial_f[good], trial_g[good]
        pending = pending[~good]
        if pending.size == 0:
            break
        # Minimiser of the quadratic through f, slope and the rejected trial, kept in
        # [0.1, 0.5] of the current step (Nocedal & Wright eq. 3.57 with safeguards).
        bad = ~good
        t = step[pending]
        excess = np.where(finite[bad], trial_f[bad] - f[pending] - slope[pending] * t, np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_quad = -slope[pending] * t * t / (2.0 * excess)
        t_quad = np.where(np.isfinite(t_quad), t_quad, 0.5 * t)
        step[pending] = np.clip(t_quad, 0.1 * t, 0.5 * t)
    return accepted, x_new, f_new, g_new

"""MTBF(n) = M_ref·(n/n_ref)^b fitted to a failure history: a Poisson GLM with a bootstrap.

Interruptions y of the jobs of GPU count n with time at risk T (job hours) are Poisson with
mean T·exp(a + β·ln(n/n_ref)) (log link, offset ln T, covariate ln n/n_ref), so M_ref = e^−a
and b = −β. The maximum-likelihood (a, β) is found by Newton's method on the per-GPU-count
sums (sufficient statistics); the interval comes from a seeded bootstrap over jobs. With
interruptions at one GPU count only β is not identified: b is fixed at the fleet prior's and
only M_ref is fitted, labelled so. Parameters are floats (the GLM), not exact figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from trainbudget.base.errors import InputError
from trainbudget.estimate.mtbf import FLEET_PRIOR, MtbfCurve
from trainbudget.reliability.history import History

MIN_INTERRUPTIONS = 5
FREE = "poisson-glm"
FIXED = "poisson-glm, exponent fixed at the fleet prior's"


class ThinHistory(InputError):
    """The history has too few interruptions to fit MTBF(n)."""


@dataclass(frozen=True)
class PowerLawFit:
    """The fitted curve, how it was fitted, and the bootstrap's spread of its parameters."""

    curve: MtbfCurve
    method: str
    jobs: int
    interruptions: int
    draws_failed: int
    exponent_interval: tuple[float, float] | None
    reference_hours_interval: tuple[float, float]


def _mle(
    x: np.ndarray, y: np.ndarray, t: np.ndarray, beta: float | None
) -> tuple[float, float] | None:
    """(a, β) maximising the Poisson likelihood; β held when given; None if not identified."""
    if y.sum() <= 0:
        return None
    if beta is not None:
        return math.log(y.sum() / float((t * np.exp(beta * x)).sum())), beta
    if len(np.unique(x[y > 0])) < 2:
        return None  # events at one GPU count: the likelihood rises forever along β
    a, b = math.log(y.sum() / t.sum()), 0.0
    for _ in range(100):
        mu = t * np.exp(a + b * x)
        grad = np.array([(y - mu).sum(), ((y - mu) * x).sum()])
        hess = np.array([[mu.sum(), (mu * x).sum()], [(mu * x).sum(), (mu * x * x).sum()]])
        step = np.linalg.solve(hess, grad)
        a, b = a + float(step[0]), b + float(step[1])
        if not (math.isfinite(a) and math.isfinite(b)):
            return None
        if abs(step).max() < 1e-12:
            return a, b
    return None


def _decimal(value: float) -> Decimal:
    return Decimal(repr(value))


def fit_history(
    history: History, bootstrap: int = 1000, seed: int = 0, level: float = 0.9
) -> PowerLawFit:
    """Fit MTBF(n) to `history`; ThinHistory (an InputError) when it cannot be fitted."""
    where = f"cluster {history.cluster}" if history.cluster else "the ledger"
    jobs, k = len(history.exposures), history.interruptions
    if k < MIN_INTERRUPTIONS:
        raise ThinHistory(
            f"reliability: the failure history of {where} is too thin to fit MTBF(n): {k} "
            f"interruptions in {jobs} jobs (at least {MIN_INTERRUPTIONS} needed); use "
            "`mtbf: fleet` or give job_mtbf_hours"
        )
    buckets = history.buckets()
    reference = max(buckets, key=lambda b: (b.gpus * b.job_seconds_at_risk, -b.gpus)).gpus
    gpus = np.array([e.gpus for e in history.exposures])
    counts = np.unique(gpus)
    index = np.searchsorted(counts, gpus)
    x = np.log(counts / reference)
    hours = np.array([e.seconds / 3600 for e in history.exposures])
    events = np.array([float(e.interrupted) for e in history.exposures])
    beta_fixed = None
    method = FREE
    if len({e.gpus for e in history.exposures if e.interrupted}) < 2:
        beta_fixed, method = -float(FLEET_PRIOR.exponent), FIXED

    def fit(take: np.ndarray | None) -> tuple[float, float] | None:
        w = np.bincount(index[take] if take is not None else index, minlength=len(counts))
        if take is None:
            y = np.bincount(index, weights=events, minlength=len(counts))
            t = np.bincount(index, weights=hours, minlength=len(counts))
        else:
            y = np.bincount(index[take], weights=events[take], minlength=len(counts))
            t = np.bincount(index[take], weights=hours[take], minlength=len(counts))
        keep = w > 0
        return _mle(x[keep], y[keep], t[keep], beta_fixed)

    point = fit(None)
    assert point is not None  # k ≥ MIN_INTERRUPTIONS and, when free, events at ≥ 2 counts
    rng = np.random.default_rng(seed)
    draws: list[tuple[float, float]] = []
    failed = 0
    for _ in range(bootstrap):
        got = fit(rng.integers(0, jobs, jobs))
        if got is None:
            failed += 1
        else:
            draws.append((math.exp(-got[0]), -got[1]))
    tail = (1 - level) / 2 * 100
    ref_hours = np.array([d[0] for d in draws]) if draws else np.array([math.exp(-point[0])])
    exps = np.array([d[1] for d in draws]) if draws else np.array([-point[1]])
    label = (
        f"ledger fit ({method}) over {jobs} jobs, {k} interruptions on {where}; "
        f"{len(draws)} bootstrap draws over jobs (seed {seed})"
    )
    if beta_fixed is not None:
        label += (
            f"; interruptions at one GPU count only, so the exponent is the fleet prior's "
            f"{float(FLEET_PRIOR.exponent):.3f}"
        )
    curve = MtbfCurve(
        reference_gpus=int(reference),
        reference_hours=_decimal(math.exp(-point[0])),
        exponent=FLEET_PRIOR.exponent if beta_fixed is not None else _decimal(-point[1]),
        source="ledger",
        note=label,
        draws=tuple(
            (_decimal(h), FLEET_PRIOR.exponent if beta_fixed is not None else _decimal(b))
            for h, b in draws
        ),
    )
    return PowerLawFit(
        curve=curve,
        method=method,
        jobs=jobs,
        interruptions=k,
        draws_failed=failed,
        exponent_interval=None
        if beta_fixed is not None
        else (float(np.percentile(exps, tail)), float(np.percentile(exps, 100 - tail))),
        reference_hours_interval=(
            float(np.percentile(ref_hours, tail)),
            float(np.percentile(ref_hours, 100 - tail)),
        ),
    )

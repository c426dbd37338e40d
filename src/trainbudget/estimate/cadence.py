"""Checkpoint cadence: Young's and Daly's optimal intervals and the expected lost fraction.

Young 1974, "A first order approximation to the optimum checkpoint interval": τ = √(2δM).
Daly 2006, "A higher order estimate of the optimum checkpoint interval for restart dumps"
(FGCS 22(3)): τ = √(2δM)·[1 + ⅓·√(δ/2M) + (1/9)·(δ/2M)] − δ for δ < 2M, else τ = M;
and his expected wall time for solve time Ts: Tw = M·e^(R/M)·(e^((τ+δ)/M) − 1)·Ts/τ.
δ is the checkpoint write time, R the restart time, M the job's mean time between failures.
All times here are in hours; computed in Decimal (exp and sqrt to 50 digits).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Context, Decimal

from trainbudget.base.errors import InputError
from trainbudget.estimate.exact import Numeric, non_negative, positive, to_decimal

_CTX = Context(prec=50)
HOURS_PER_MONTH = Decimal("730.5")  # 365.25 days · 24 h / 12


def job_mtbf_hours(
    gpus: int,
    *,
    mtbf_hours_per_gpu: Numeric | None = None,
    mtbf_hours_per_node: Numeric | None = None,
    gpus_per_node: int = 8,
) -> Decimal:
    """A job's MTBF from a per-GPU or per-node MTBF, assuming independent exponential failures.

    The job fails when any of its parts fails: M_job = M_part / parts (nodes = ⌈gpus / per node⌉).
    """
    if (mtbf_hours_per_gpu is None) == (mtbf_hours_per_node is None):
        raise InputError("mtbf: give exactly one of mtbf_hours_per_gpu or mtbf_hours_per_node")
    if gpus < 1 or gpus_per_node < 1:
        raise InputError(f"gpus: must be a positive integer, got {gpus}")
    if mtbf_hours_per_gpu is not None:
        part, count = to_decimal(mtbf_hours_per_gpu), gpus
    else:
        part, count = to_decimal(mtbf_hours_per_node), math.ceil(gpus / gpus_per_node)
    if part <= 0:
        raise InputError(f"mtbf: must be positive, got {part}")
    return _CTX.divide(part, Decimal(count))


def young_interval(write_hours: Numeric, mtbf_hours: Numeric) -> Decimal:
    """Young's first-order optimum compute time between checkpoints, √(2δM), in hours."""
    delta, m = positive("write time", write_hours), positive("mtbf", mtbf_hours)
    return _CTX.sqrt(_CTX.multiply(2 * delta, m))


def daly_interval(write_hours: Numeric, mtbf_hours: Numeric) -> Decimal:
    """Daly's higher-order optimum compute time between checkpoints, in hours."""
    delta, m = positive("write time", write_hours), positive("mtbf", mtbf_hours)
    if delta >= 2 * m:
        return m
    ratio = _CTX.divide(delta, 2 * m)
    bracket = 1 + _CTX.sqrt(ratio) / 3 + ratio / 9
    return _CTX.multiply(young_interval(delta, m), bracket) - delta


def expected_wall_factor(
    interval_hours: Numeric, write_hours: Numeric, restart_hours: Numeric, mtbf_hours: Numeric
) -> Decimal:
    """Tw / Ts: expected wall time per hour of useful compute (Daly 2006), ≥ 1."""
    tau = positive("interval", interval_hours)
    delta = non_negative("write time", write_hours)
    restart = non_negative("restart time", restart_hours)
    m = positive("mtbf", mtbf_hours)
    growth = _CTX.exp(_CTX.divide(tau + delta, m)) - 1
    return _CTX.divide(_CTX.multiply(_CTX.multiply(m, _CTX.exp(restart / m)), growth), tau)


def restart_from_scratch_factor(
    solve_hours: Numeric, restart_hours: Numeric, mtbf: Numeric
) -> Decimal:
    """Tw / Ts with no checkpoints: every failure restarts from zero, Tw = (M + R)(e^(Ts/M) − 1).

    The classic expected completion time under exponential failures with full restarts.
    """
    ts = positive("solve time", solve_hours)
    m = positive("mtbf", mtbf)
    restart = non_negative("restart time", restart_hours)
    wall = _CTX.multiply(m + restart, _CTX.exp(_CTX.divide(ts, m)) - 1)
    return _CTX.divide(wall, ts)


@dataclass(frozen=True)
class Cadence:
    """A checkpoint schedule and what it costs; hours, fractions of the useful compute time."""

    mtbf_hours: Decimal
    write_hours: Decimal
    restart_hours: Decimal
    young_interval_hours: Decimal
    daly_interval_hours: Decimal
    interval_hours: Decimal
    expected_wall_factor: Decimal
    write_overhead_fraction: Decimal
    lost_fraction: Decimal
    overhead_fraction: Decimal
    checkpoints_written: int | None
    write_gpu_hours: Decimal | None
    retained_gb: Decimal | None
    retained_gb_months: Decimal | None


def checkpoint_cadence(
    *,
    write_hours: Numeric,
    restart_hours: Numeric,
    mtbf_hours: Numeric,
    solve_hours: Numeric | None = None,
    gpus: int | None = None,
    size_gb: Numeric | None = None,
    keep_last: int = 1,
) -> Cadence:
    """Daly's interval for a job, its write overhead δ/τ and lost fraction (rework + restart).

    overhead_fraction = Tw/Ts − 1 is the derived f of the sensitivity model: checkpoint writes
    δ/τ plus lost_fraction (rework and restarts), as a fraction of the useful compute. With
    `solve_hours` (the main run's compute hours) and `gpus`, also the checkpoints written and
    their GPU-hours; with `size_gb`, the storage of the `keep_last` recovery checkpoints held
    for the run's duration.
    """
    m = positive("mtbf", mtbf_hours)
    delta = positive("write time", write_hours)
    restart = non_negative("restart time", restart_hours)
    tau = daly_interval(delta, m)
    factor = expected_wall_factor(tau, delta, restart, m)
    write_fraction = _CTX.divide(delta, tau)
    written = write_gpu_hours = retained = retained_months = None
    if solve_hours is not None:
        solve = positive("solve time", solve_hours)
        written = math.ceil(solve / tau)
        if gpus is not None:
            write_gpu_hours = _CTX.multiply(Decimal(written * gpus), delta)
        if size_gb is not None:
            retained = _CTX.multiply(Decimal(min(keep_last, written)), to_decimal(size_gb))
            duration_months = _CTX.divide(_CTX.multiply(solve, factor), HOURS_PER_MONTH)
            retained_months = _CTX.multiply(retained, duration_months)
    return Cadence(
        mtbf_hours=m,
        write_hours=delta,
        restart_hours=restart,
        young_interval_hours=young_interval(delta, m),
        daly_interval_hours=tau,
        interval_hours=tau,
        expected_wall_factor=factor,
        write_overhead_fraction=write_fraction,
        lost_fraction=factor - 1 - write_fraction,
        overhead_fraction=factor - 1,
        checkpoints_written=written,
        write_gpu_hours=write_gpu_hours,
        retained_gb=retained,
        retained_gb_months=retained_months,
    )

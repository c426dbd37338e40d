"""One phase of the main run under failures: Daly's expected wall time split into its causes.

Daly 2006 (FGCS 22(3)): with compute time τ between checkpoints, blocking write δ, restart R
and job MTBF M, one segment takes M·e^(R/M)·(e^((τ+δ)/M) − 1) expected hours. With a =
(τ+δ)/M and r = R/M, that is exactly
  (τ + δ)                       the segment's work and its checkpoint write,
  + M·(e^a − 1) − (τ + δ)       progress lost in failed attempts (lost progress),
  + (e^a − 1)·M·(e^r − 1)       restarts, interrupted restarts included,
over Ts/τ segments, with (e^a − 1)·e^r interruptions per segment (Tw / M in all).
Each line is charged at the allocation's GPUs (training + spares: the whole allocation
waits); the spares line is the spares' hours during compute. Hours in, hours out, Decimal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Context, Decimal

from trainbudget.base.errors import InputError
from trainbudget.estimate.exact import non_negative, positive

_CTX = Context(prec=50)
# Sums of 50-digit terms are kept exact (their exponents differ by far less than 150 digits).
_SUM = Context(prec=200)
# Beyond e^100 per segment a run never finishes (and e^x would leave Decimal's range).
MAX_EXPONENT = 100
OVERHEAD_LINES = ("checkpoint_writes", "lost_progress", "restarts", "spares")


def exact_sum(values: Iterable[Decimal]) -> Decimal:
    """The sum of `values` without rounding (a 200-digit context)."""
    total = Decimal(0)
    for value in values:
        total = _SUM.add(total, value)
    return total


@dataclass(frozen=True)
class PhaseOverhead:
    """A phase's expected wall time and GPU-hours by line; `overhead_gpu_hours` by cause."""

    compute_wall_hours: Decimal
    gpus: int
    spare_gpus: int
    mtbf_hours: Decimal
    write_hours: Decimal
    restart_hours: Decimal
    interval_hours: Decimal
    checkpoints: Decimal
    interruptions: Decimal
    checkpoint_write_wall_hours: Decimal
    lost_progress_wall_hours: Decimal
    restart_wall_hours: Decimal
    wall_hours: Decimal
    compute_gpu_hours: Decimal
    overhead_gpu_hours: dict[str, Decimal]
    main_gpu_hours: Decimal
    ettr: Decimal

    @property
    def allocated_gpus(self) -> int:
        """GPUs held for the phase: training plus spares."""
        return self.gpus + self.spare_gpus


def phase_overhead(
    *,
    compute_wall_hours: Decimal,
    gpus: int,
    spare_gpus: int,
    mtbf_hours: Decimal,
    write_hours: Decimal,
    restart_hours: Decimal,
    interval_hours: Decimal,
) -> PhaseOverhead:
    """Expected lines of one phase (module docstring); they sum exactly to main_gpu_hours."""
    ts = positive("compute wall hours", compute_wall_hours)
    m = positive("mtbf", mtbf_hours)
    delta = non_negative("checkpoint write time", write_hours)
    restart = non_negative("restart time", restart_hours)
    tau = positive("checkpoint interval", interval_hours)
    if max(_CTX.divide(_CTX.add(tau, delta), m), _CTX.divide(restart, m)) > MAX_EXPONENT:
        raise InputError(
            f"reliability: a job MTBF of {m:.3g} h against a {float(tau + delta):.3g} h segment "
            f"(interval + write) and a {float(restart):.3g} h restart never finishes; check "
            "the MTBF and the minutes"
        )
    segments = _CTX.divide(ts, tau)
    # Every step in 50 digits (a bare `-` would round to the default context's 28).
    grow = _CTX.subtract(_CTX.exp(_CTX.divide(_CTX.add(tau, delta), m)), 1)
    restart_grow = _CTX.exp(_CTX.divide(restart, m))
    writes_h = _CTX.multiply(segments, delta)
    lost_per_segment = _CTX.subtract(_CTX.subtract(_CTX.multiply(m, grow), tau), delta)
    lost_h = _CTX.multiply(segments, lost_per_segment)
    restart_per_segment = _CTX.multiply(_CTX.multiply(grow, m), _CTX.subtract(restart_grow, 1))
    restart_h = _CTX.multiply(segments, restart_per_segment)
    interruptions = _CTX.multiply(segments, _CTX.multiply(grow, restart_grow))
    allocated = Decimal(gpus + spare_gpus)
    lines = {
        "checkpoint_writes": _SUM.multiply(allocated, writes_h),
        "lost_progress": _SUM.multiply(allocated, lost_h),
        "restarts": _SUM.multiply(allocated, restart_h),
        "spares": _SUM.multiply(Decimal(spare_gpus), ts),
    }
    compute = _SUM.multiply(Decimal(gpus), ts)
    total = exact_sum([compute, *lines.values()])
    return PhaseOverhead(
        compute_wall_hours=ts,
        gpus=gpus,
        spare_gpus=spare_gpus,
        mtbf_hours=m,
        write_hours=delta,
        restart_hours=restart,
        interval_hours=tau,
        checkpoints=segments,
        interruptions=interruptions,
        checkpoint_write_wall_hours=writes_h,
        lost_progress_wall_hours=lost_h,
        restart_wall_hours=restart_h,
        wall_hours=exact_sum([ts, writes_h, lost_h, restart_h]),
        compute_gpu_hours=compute,
        overhead_gpu_hours=lines,
        main_gpu_hours=total,
        ettr=_CTX.divide(compute, total),
    )

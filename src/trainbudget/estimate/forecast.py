"""The main run forecast before launch: compute at the stated rate, plus failure overheads.

Per phase: compute GPU-hours = FLOPs on the stated basis ÷ (per-GPU rate · 3600), the rate
being `throughput_tflops` or peak · MFU; then Daly's expected checkpoint writes, lost progress
and restarts at the job MTBF M(n) of the phase's GPU count, and the spares
(estimate/forecast_model.py). Daly's optimum interval unless the plan fixes one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Context, Decimal
from typing import TYPE_CHECKING

from trainbudget.errors import InputError
from trainbudget.estimate.cadence import daly_interval
from trainbudget.estimate.exact import Numeric, div, mul
from trainbudget.estimate.forecast_compute import PhaseWork, phase_work
from trainbudget.estimate.forecast_model import (
    OVERHEAD_LINES,
    PhaseOverhead,
    exact_sum,
    phase_overhead,
)
from trainbudget.estimate.mtbf import FLEET_PRIOR, MtbfCurve

if TYPE_CHECKING:
    from trainbudget.plan import Plan
    from trainbudget.plan.forecast import Reliability

_CTX = Context(prec=50)
MINUTES_PER_HOUR = 60
LEDGER_MISSING = (
    "reliability.mtbf: ledger needs a ledger with failure history; "
    "run `trainbudget reliability` (or give job_mtbf_hours, or mtbf: fleet)"
)


def resolve_mtbf(
    reliability: Reliability, gpus: int, ledger_curve: MtbfCurve | None = None
) -> MtbfCurve:
    """The plan's MTBF(n): job_mtbf_hours at `gpus` (scaled by the fleet exponent elsewhere),
    the fleet prior, or `ledger_curve` (the caller's fit of the ledger's failure history)."""
    if reliability.job_mtbf_hours is not None:
        return MtbfCurve(
            reference_gpus=gpus,
            reference_hours=reliability.job_mtbf_hours,
            exponent=FLEET_PRIOR.exponent,
            source="plan",
            note=(
                f"plan: job MTBF {reliability.job_mtbf_hours:f} h at {gpus:,} GPUs; other GPU "
                f"counts scaled as n^{float(FLEET_PRIOR.exponent):.2f} (the fleet exponent, "
                "Kokolis et al. 2024)"
            ),
        )
    if reliability.mtbf == "fleet":
        return FLEET_PRIOR
    if ledger_curve is None:
        raise InputError(LEDGER_MISSING)
    return ledger_curve


@dataclass(frozen=True)
class PhaseForecast:
    """One phase: what it computes, at which rate and basis, and its expected overhead."""

    name: str
    tokens: Decimal | None
    flops: Decimal | None
    flops_basis: str
    rate_source: str
    throughput_tflops: Decimal | None
    mfu: Decimal | None
    model_flops_mfu: Decimal | None
    overhead: PhaseOverhead


@dataclass(frozen=True)
class Forecast:
    """The main run's forecast: DESIGN.md's `forecast` keys (campaign --json) and its phases."""

    main_gpu_hours: Decimal
    main_wall_hours: Decimal
    compute_gpu_hours: Decimal
    ettr: Decimal
    overhead_gpu_hours: dict[str, Decimal]
    mtbf_hours: Decimal
    mtbf_source: str
    mtbf_note: str
    checkpoint_interval_minutes: Decimal
    checkpoint_interval_source: str
    interruptions: Decimal
    checkpoints: Decimal
    phases: list[PhaseForecast]
    mtbf_hours_interval: tuple[Decimal, Decimal] | None = None
    ettr_interval: tuple[Decimal, Decimal] | None = None
    main_gpu_hours_interval: tuple[Decimal, Decimal] | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def failure_fraction(self) -> Decimal:
        """The forecast as seed 000's f: (main − compute) ÷ compute."""
        overhead = exact_sum([self.main_gpu_hours, -self.compute_gpu_hours])
        return div(overhead, self.compute_gpu_hours)


def _overheads(
    works: list[PhaseWork], plan: Plan, curve: MtbfCurve, mtbf_of: dict[int, Decimal]
) -> list[PhaseOverhead]:
    rel = plan.reliability
    write = div(rel.checkpoint_write_minutes, MINUTES_PER_HOUR)
    fixed = rel.checkpoint_interval_minutes
    result = []
    for work in works:
        m = mtbf_of[work.gpus]
        tau = daly_interval(write, m) if fixed is None else div(fixed, MINUTES_PER_HOUR)
        result.append(
            phase_overhead(
                compute_wall_hours=work.compute_wall_hours,
                gpus=work.gpus,
                spare_gpus=rel.spare_gpus,
                mtbf_hours=m,
                write_hours=write,
                restart_hours=div(rel.restart_minutes, MINUTES_PER_HOUR),
                interval_hours=tau,
            )
        )
    return result


def _totals(phases: list[PhaseOverhead]) -> tuple[Decimal, Decimal, dict[str, Decimal]]:
    lines = {key: exact_sum(p.overhead_gpu_hours[key] for p in phases) for key in OVERHEAD_LINES}
    compute = exact_sum(p.compute_gpu_hours for p in phases)
    return compute, exact_sum([compute, *lines.values()]), lines


def forecast_main(
    plan: Plan,
    curve: MtbfCurve,
    *,
    mfu: Numeric | None = None,
    mfu_source: str | None = None,
) -> Forecast:
    """Forecast the plan's main run with MTBF(n) `curve` (see resolve_mtbf); `mfu` overrides
    the main run's MFU or throughput (a measured one: pilot, calibrated), not a phase's own."""
    rel = plan.reliability
    if rel is None:
        raise InputError("reliability: the forecast needs a reliability section")
    warnings: list[str] = []
    works = phase_work(plan, mfu, mfu_source, warnings)
    counts = {work.gpus for work in works} | {plan.main.gpus}
    point = {n: curve.hours_at(n) for n in counts}
    overheads = _overheads(works, plan, curve, point)
    compute, total, lines = _totals(overheads)
    main_m = point[plan.main.gpus]
    write = div(rel.checkpoint_write_minutes, MINUTES_PER_HOUR)
    if rel.checkpoint_interval_minutes is not None:
        interval, interval_source = rel.checkpoint_interval_minutes, "plan"
    else:
        interval, interval_source = mul(daly_interval(write, main_m), MINUTES_PER_HOUR), "daly"
    bounds = _interval_bounds(works, plan, curve, counts, overheads)
    phases = [
        PhaseForecast(
            name=w.name,
            tokens=w.tokens,
            flops=w.flops,
            flops_basis=w.flops_basis,
            rate_source=w.rate_source,
            throughput_tflops=w.throughput_tflops,
            mfu=w.mfu,
            model_flops_mfu=w.model_flops_mfu,
            overhead=o,
        )
        for w, o in zip(works, overheads, strict=True)
    ]
    if curve.source == "plan" and any(w.gpus != plan.main.gpus for w in works):
        warnings.append(
            f"reliability.job_mtbf_hours is the MTBF at main.gpus ({plan.main.gpus:,}); phases on "
            f"other GPU counts use it scaled as n^{float(curve.exponent):.2f} (the fleet exponent)"
        )
    return Forecast(
        main_gpu_hours=total,
        main_wall_hours=exact_sum(o.wall_hours for o in overheads),
        compute_gpu_hours=compute,
        ettr=_CTX.divide(compute, total),
        overhead_gpu_hours=lines,
        mtbf_hours=main_m,
        mtbf_source=curve.source,
        mtbf_note=curve.note,
        checkpoint_interval_minutes=interval,
        checkpoint_interval_source=interval_source,
        interruptions=exact_sum(o.interruptions for o in overheads),
        checkpoints=exact_sum(o.checkpoints for o in overheads),
        phases=phases,
        warnings=warnings,
        **bounds,
    )


def _interval_bounds(
    works: list[PhaseWork],
    plan: Plan,
    curve: MtbfCurve,
    counts: set[int],
    planned: list[PhaseOverhead],
) -> dict[str, tuple[Decimal, Decimal] | None]:
    """ETTR and GPU-hours at the ends of the curve's MTBF interval, at the planned intervals."""
    ends = {n: curve.interval_at(n) for n in counts}
    if any(end is None for end in ends.values()):
        return {}
    results = []
    for side in (0, 1):
        phases = []
        for work, plan_phase in zip(works, planned, strict=True):
            phases.append(
                phase_overhead(
                    compute_wall_hours=work.compute_wall_hours,
                    gpus=work.gpus,
                    spare_gpus=plan_phase.spare_gpus,
                    mtbf_hours=ends[work.gpus][side],
                    write_hours=plan_phase.write_hours,
                    restart_hours=plan_phase.restart_hours,
                    interval_hours=plan_phase.interval_hours,
                )
            )
        compute, total, _ = _totals(phases)
        results.append((_CTX.divide(compute, total), total))
    (low_ettr, high_hours), (high_ettr, low_hours) = results
    return {
        "mtbf_hours_interval": ends[plan.main.gpus],
        "ettr_interval": (low_ettr, high_ettr),
        "main_gpu_hours_interval": (low_hours, high_hours),
    }


def campaign_forecast(
    plan: Plan,
    mfu: Numeric | None = None,
    mfu_source: str | None = None,
    ledger_mtbf: MtbfCurve | None = None,
) -> Forecast:
    """The forecast of a plan with a reliability section, its MTBF resolved (resolve_mtbf)."""
    curve = resolve_mtbf(plan.reliability, plan.main.gpus, ledger_mtbf)
    return forecast_main(plan, curve, mfu=mfu, mfu_source=mfu_source)

"""The main run forecast before launch: compute at the stated rate, plus failure overheads.

Per phase: compute GPU-hours = FLOPs on the stated basis ÷ (per-GPU rate · 3600), the rate
being `throughput_tflops` or peak · MFU; then Daly's expected checkpoint writes, lost progress
and restarts at the job MTBF M(n) of the phase's GPU count, and the spares
(estimate/forecast_model.py). Daly's optimum interval unless the plan fixes one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Context, Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
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
    from trainbudget.estimate.forecast_band import Band
    from trainbudget.estimate.parallel import Layout
    from trainbudget.estimate.throughput_prior import ThroughputPrior
    from trainbudget.plan import Plan
    from trainbudget.plan.forecast import Reliability

# From least to most measured: the forecast's throughput_source is the least measured phase's.
THROUGHPUT_SOURCES = ("prior", "plan", "pilot", "calibrated")

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
    throughput_source: str = "plan"
    throughput_note: str | None = None
    prior: ThroughputPrior | None = None
    band: Band | None = None
    rollback_wall_hours: Decimal | None = None
    layout: Layout | None = None

    @property
    def failure_fraction(self) -> Decimal:
        """The forecast as seed 000's f: (main − compute) ÷ compute."""
        overhead = exact_sum([self.main_gpu_hours, -self.compute_gpu_hours])
        return div(overhead, self.compute_gpu_hours)


def _overheads(
    works: list[PhaseWork], plan: Plan, curve: MtbfCurve, mtbf_of: dict[int, Decimal]
) -> list[PhaseOverhead]:
    rel = plan.reliability
    fixed = rel.checkpoint_interval_minutes
    phases = plan.main.phases if plan.main.params is not None and plan.main.phases else []
    result = []
    for index, work in enumerate(works):
        phase = phases[index] if index < len(phases) else None
        write_minutes, restart_minutes, spares = (
            rel.checkpoint_write_minutes,
            rel.restart_minutes,
            rel.spare_gpus,
        )
        if phase is not None:
            if phase.checkpoint_write_minutes is not None:
                write_minutes = phase.checkpoint_write_minutes
            if phase.restart_minutes is not None:
                restart_minutes = phase.restart_minutes
            if phase.spare_gpus is not None:
                spares = phase.spare_gpus
        write = div(write_minutes, MINUTES_PER_HOUR)
        m = mtbf_of[work.gpus]
        if fixed is None and write == 0:
            raise InputError(
                f"main.phases[{index}].checkpoint_write_minutes: Daly's optimum interval needs "
                "a positive write time; or give reliability.checkpoint_interval_minutes"
            )
        tau = daly_interval(write, m) if fixed is None else div(fixed, MINUTES_PER_HOUR)
        result.append(
            phase_overhead(
                compute_wall_hours=work.compute_wall_hours,
                gpus=work.gpus,
                spare_gpus=spares,
                mtbf_hours=m,
                write_hours=write,
                restart_hours=div(restart_minutes, MINUTES_PER_HOUR),
                interval_hours=tau,
            )
        )
    return result


def _totals(
    phases: list[PhaseOverhead], rollbacks: Decimal | None = None
) -> tuple[Decimal, Decimal, dict[str, Decimal]]:
    lines = {key: exact_sum(p.overhead_gpu_hours[key] for p in phases) for key in OVERHEAD_LINES}
    if rollbacks is not None:
        lines["rollbacks"] = rollbacks
    compute = exact_sum(p.compute_gpu_hours for p in phases)
    return compute, exact_sum([compute, *lines.values()]), lines


def rollback_lines(plan: Plan) -> tuple[Decimal, Decimal] | None:
    """(wall hours, GPU-hours) of `reliability.rollbacks`: count × lost_hours, charged at the
    main run's allocation (main.gpus + spare_gpus: the whole allocation redoes or waits)."""
    rollbacks = plan.reliability.rollbacks
    if rollbacks is None:
        return None
    wall = mul(rollbacks.count, rollbacks.lost_hours)
    return wall, mul(wall, plan.main.gpus + plan.reliability.spare_gpus)


def forecast_main(
    plan: Plan,
    curve: MtbfCurve,
    *,
    mfu: Numeric | None = None,
    mfu_source: str | None = None,
    prior_options: dict[str, Any] | None = None,
) -> Forecast:
    """Forecast the plan's main run with MTBF(n) `curve` (see resolve_mtbf); `mfu` overrides
    the main run's MFU or throughput (a measured one: pilot, calibrated), not a phase's own;
    `prior_options` narrow the throughput prior's points (throughput_prior's before, exclude)."""
    rel = plan.reliability
    if rel is None:
        raise InputError("reliability: the forecast needs a reliability section")
    warnings: list[str] = []
    works = phase_work(plan, mfu, mfu_source, warnings, prior_options)
    counts = {work.gpus for work in works} | {plan.main.gpus}
    point = {n: curve.hours_at(n) for n in counts}
    overheads = _overheads(works, plan, curve, point)
    rollback = rollback_lines(plan)
    compute, total, lines = _totals(overheads, None if rollback is None else rollback[1])
    main_m = point[plan.main.gpus]
    write = div(rel.checkpoint_write_minutes, MINUTES_PER_HOUR)
    if rel.checkpoint_interval_minutes is not None:
        interval, interval_source = rel.checkpoint_interval_minutes, "plan"
    else:
        interval, interval_source = mul(daly_interval(write, main_m), MINUTES_PER_HOUR), "daly"
    bounds = _interval_bounds(works, plan, curve, counts, overheads, rollback)
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
    _family_warning(plan, curve, works, warnings)
    source = next(k for k in THROUGHPUT_SOURCES if k in {w.throughput_source for w in works})
    band = _band(works, overheads, curve, plan.main.gpus, source, rollback)
    layout = None
    if plan.main.parallel is not None:
        from trainbudget.estimate.parallel import plan_layout

        layout = plan_layout(plan)
        warnings.extend(layout.warnings)
    wall = [o.wall_hours for o in overheads] + ([] if rollback is None else [rollback[0]])
    return Forecast(
        main_gpu_hours=total,
        main_wall_hours=exact_sum(wall),
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
        throughput_source=source,
        throughput_note=next((w.prior.note for w in works if w.prior is not None), None),
        prior=next((w.prior for w in works if w.prior is not None), None),
        band=band,
        rollback_wall_hours=None if rollback is None else rollback[0],
        layout=layout,
        **bounds,
    )


def _band(
    works: list[PhaseWork],
    overheads: list[PhaseOverhead],
    curve: MtbfCurve,
    gpus: int,
    source: str,
    rollback: tuple[Decimal, Decimal] | None,
) -> Band:
    """The GPU-hours band (estimate/forecast_band.py) at the least measured throughput's σ."""
    from trainbudget.estimate.forecast_band import MEASURED_SIGMA, main_gpu_hours_band

    priors = [w.prior for w in works if w.prior is not None]
    if priors:
        sigma = max(p.sigma for p in priors)
        label = f"prior, σ {sigma:.3f} on ln MFU from published runs"
    else:
        sigma, label = MEASURED_SIGMA, f"{source}-measured, σ {MEASURED_SIGMA:.3f} assumed"
    extra = Decimal(0) if rollback is None else rollback[1]
    return main_gpu_hours_band(overheads, curve, gpus, sigma, label, extra)


def _family_warning(
    plan: Plan, curve: MtbfCurve, works: list[PhaseWork], warnings: list[str]
) -> None:
    """Say plainly when the fleet prior (measured on GPUs) prices another hardware family."""
    if curve.source != "fleet":
        return
    others = sorted({w.gpu for w in works if w.gpu and not _is_gpu(w.gpu)})
    if others:
        warnings.append(
            f"reliability.mtbf: fleet is a GPU prior (Meta's A100/H100 research clusters, "
            f"Kokolis et al. 2024) used here for {', '.join(others)}: no failure rate of that "
            "hardware family was published; give job_mtbf_hours if you have one"
        )


def _is_gpu(name: str) -> bool:
    """False for accelerators that are not GPUs (TPU, Gaudi), by catalog name."""
    return not name.upper().startswith(("TPU", "GAUDI"))


def _interval_bounds(
    works: list[PhaseWork],
    plan: Plan,
    curve: MtbfCurve,
    counts: set[int],
    planned: list[PhaseOverhead],
    rollback: tuple[Decimal, Decimal] | None = None,
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
        compute, total, _ = _totals(phases, None if rollback is None else rollback[1])
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
    prior_options: dict[str, Any] | None = None,
) -> Forecast:
    """The forecast of a plan with a reliability section, its MTBF resolved (resolve_mtbf)."""
    curve = resolve_mtbf(plan.reliability, plan.main.gpus, ledger_mtbf)
    return forecast_main(plan, curve, mfu=mfu, mfu_source=mfu_source, prior_options=prior_options)

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
from trainbudget.estimate.exact import Numeric, as_plain, div, mul, to_decimal
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
SECONDS_PER_HOUR = 3600
TERA = 10**12
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


@dataclass(frozen=True)
class _Work:
    """A phase's compute before failures."""

    name: str
    gpus: int
    compute_wall_hours: Decimal
    tokens: Decimal | None = None
    flops: Decimal | None = None
    flops_basis: str = "hours given (no FLOPs)"
    rate_source: str = "main.hours"
    throughput_tflops: Decimal | None = None
    mfu: Decimal | None = None
    model_flops_mfu: Decimal | None = None


def _phase_work(
    plan: Plan, mfu: Numeric | None, mfu_source: str | None, warnings: list[str]
) -> list[_Work]:
    from trainbudget.estimate.campaign import main_peak
    from trainbudget.estimate.run import implied_class, plausible_mfu_high, run_basis

    main = plan.main
    if main.params is None or (main.hours is not None and mfu is None):
        return [_Work("main", main.gpus, to_decimal(main.hours))]
    spec = main.flops
    shape = spec if spec is not None else main
    basis = run_basis(
        main.flops_method,
        tuple(spec.terms) if spec is not None else (),
        n_layers=shape.n_layers,
        d_model=shape.d_model,
        seq_len=shape.seq_len,
        vocab=spec.vocab if spec is not None else None,
        where="main.flops.",
    )
    moe = main.flops_method == "moe"
    if moe and main.active_params is None:
        raise InputError("main.active_params: required by the moe FLOPs method")
    work_params = as_plain(main.active_params if moe else main.params)
    peak = main_peak(plan)
    model_class = implied_class(main.model_class, main.flops_method)
    phases = main.phases or [None]
    works = []
    for index, phase in enumerate(phases):
        where = "main" if phase is None else f"main.phases[{index}]"
        name = "main" if phase is None else phase.name or f"phase {index + 1}"
        tokens = main.tokens if phase is None else phase.tokens
        gpus = main.gpus if phase is None or phase.gpus is None else phase.gpus
        seq_len = None if phase is None else phase.seq_len
        per_token = basis.per_token(work_params, seq_len)
        flops = mul(per_token, tokens)
        rate, source, tflops = _rate(plan, phase, mfu, mfu_source, peak, model_class)
        if rate > peak:
            raise InputError(
                f"{where}.throughput_tflops: {tflops:f} TFLOP/s is above the GPU's dense peak "
                f"of {peak / TERA:f} TFLOP/s"
            )
        basis_mfu = div(rate, peak)
        model_mfu = div(mul(basis_mfu, 6, work_params), per_token)
        high = plausible_mfu_high(model_class, main.precision)
        if tflops is not None and not basis.terms and model_mfu > high:
            warnings.append(
                f"{where}.throughput_tflops: {tflops:f} TFLOP/s is MFU {model_mfu:.3g} on model "
                f"FLOPs 6·N·T, above the plausible {high} for {model_class} {main.precision}: "
                "if it counts hardware FLOPs, say so in main.flops.terms"
            )
        gpu_hours = div(flops, mul(rate, SECONDS_PER_HOUR))
        works.append(
            _Work(
                name=name,
                gpus=gpus,
                compute_wall_hours=div(gpu_hours, gpus),
                tokens=to_decimal(tokens),
                flops=flops,
                flops_basis=basis.describe(),
                rate_source=source,
                throughput_tflops=tflops,
                mfu=basis_mfu,
                model_flops_mfu=model_mfu,
            )
        )
    return works


def _rate(plan, phase, mfu, mfu_source, peak, model_class):  # type: ignore[no-untyped-def]
    """Per-GPU FLOP/s on the basis, where it came from, and the TFLOP/s if given as one."""
    from trainbudget.estimate.run import default_mfu

    main = plan.main
    if phase is not None and phase.throughput_tflops is not None:
        return (
            mul(phase.throughput_tflops, TERA),
            "phase throughput_tflops",
            phase.throughput_tflops,
        )
    if phase is not None and phase.mfu is not None:
        return mul(peak, phase.mfu), "phase mfu", None
    if mfu is not None:
        return mul(peak, mfu), f"mfu ({mfu_source or 'user'})", None
    if main.throughput_tflops is not None:
        return mul(main.throughput_tflops, TERA), "main.throughput_tflops", main.throughput_tflops
    if main.mfu is not None:
        return mul(peak, main.mfu), "main.mfu", None
    value = default_mfu(model_class, main.precision)
    return mul(peak, value), f"class-default mfu {value} ({model_class}, {main.precision})", None


def _overheads(
    works: list[_Work], plan: Plan, curve: MtbfCurve, mtbf_of: dict[int, Decimal]
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
    works = _phase_work(plan, mfu, mfu_source, warnings)
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
    works: list[_Work],
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

"""A campaign plan priced line by line (seed 000): work classes, storage, sensitivity, ceiling.

Lines are GPU-hours = jobs × GPUs × hours per work class; planned work and contingency (the
explicit retry line) stay on separate lines; storage exposure is GB-months = count · size ·
months, priced on its own line. The sensitivity grid replaces the retry line, never adds to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.estimate.cadence import Cadence, checkpoint_cadence, job_mtbf_hours
from trainbudget.estimate.campaign_lines import (
    CampaignLine,
    many,
    num,
    work_lines,
)
from trainbudget.estimate.capacity import CapacityCost, CapacityOption, compare_capacity
from trainbudget.estimate.exact import (
    MAX_GB_MONTHS,
    MAX_USD,
    Numeric,
    as_plain,
    bounded,
    div,
    mul,
)
from trainbudget.estimate.peak import main_peak  # also imported from here (old path)
from trainbudget.estimate.run import RunEstimate, estimate_from_flops, estimate_run, implied_class
from trainbudget.estimate.sensitivity import SensitivityCase, sensitivity_grid

if TYPE_CHECKING:
    from trainbudget.estimate.billing import CampaignBilling
    from trainbudget.estimate.forecast import Forecast
    from trainbudget.estimate.mtbf import MtbfCurve
    from trainbudget.plan import Plan

MINUTES_PER_HOUR = 60


@dataclass(frozen=True)
class CeilingCheck:
    """Planned GPU-hours (and dollars, if the plan caps them) against the approved ceiling."""

    ceiling_gpu_hours: Decimal
    planned_gpu_hours: Decimal
    margin_gpu_hours: Decimal
    margin_fraction: Decimal
    within: bool
    ceiling_usd: Decimal | None
    total_usd: Decimal
    within_usd: bool | None
    worst_case_gpu_hours: Decimal
    cases_over_ceiling: int


@dataclass(frozen=True)
class CampaignEstimate:
    """Everything `trainbudget campaign` reports for one plan."""

    campaign: str
    unit_of_progress: str
    gpu_hour_usd: Decimal
    storage_gb_month_usd: Decimal
    lines: list[CampaignLine]
    planned_work_gpu_hours: Decimal
    contingency_gpu_hours: Decimal
    planned_gpu_hours: Decimal
    compute_usd: Decimal
    storage_gb_months: Decimal
    storage_usd: Decimal
    total_usd: Decimal
    sensitivity: list[SensitivityCase]
    ceiling: CeilingCheck
    main: RunEstimate | None = None
    cadence: Cadence | None = None
    capacity: list[CapacityCost] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    forecast: Forecast | None = None
    # Without a forecast: the main line's throughput_source and band (estimate/main_band.py).
    main_band: dict[str, Any] | None = None
    # With cluster.billing: every GPU line in the cluster's billing units (estimate/billing.py).
    billing: CampaignBilling | None = None


def main_run(plan: Plan, mfu: Numeric | None = None, mfu_source: str | None = None) -> RunEstimate:
    """The main run derived from (params, tokens, gpu, gpus, mfu); a given mfu overrides the plan's.

    `mfu_source` says where an overriding mfu came from (pilot, calibrated, user); the plan's
    own mfu is `plan` (estimate/mfu_rule.py chooses between them).
    """

    main = plan.main
    if main.params is None or main.tokens is None:
        raise InputError("main: give hours, or params, tokens and gpu to derive them")
    peak = main_peak(plan)
    if mfu is not None:
        value, source = mfu, mfu_source or "user"
    elif main.mfu is not None:
        value, source = main.mfu, "plan"
    elif main.throughput_tflops is not None:
        rate = mul(main.throughput_tflops, 10**12)
        if rate > peak:
            raise InputError(
                f"main.throughput_tflops: {main.throughput_tflops:f} TFLOP/s is above the GPU's "
                f"dense peak of {div(peak, 10**12):f} TFLOP/s"
            )
        value, source = div(rate, peak), "plan"
    else:
        from trainbudget.estimate.throughput_prior import assumed_mfu

        # No stated or measured throughput: the published-runs prior (class default for cnn/snn).
        assumed = assumed_mfu(implied_class(main.model_class, main.flops_method), main.precision)
        value, source = assumed.mfu, assumed.source
    spec = main.flops
    shape = spec if spec is not None else main
    run = estimate_run(
        main.params,
        main.tokens,
        main.gpus,
        peak,
        value,
        plan.prices.gpu_hour_usd,
        mfu_source=source,
        method=main.flops_method,
        active_params=main.active_params,
        n_layers=shape.n_layers,
        d_model=shape.d_model,
        seq_len=shape.seq_len,
        terms=tuple(spec.terms) if spec is not None else (),
        vocab=spec.vocab if spec is not None else None,
    )
    from trainbudget.estimate.forecast_compute import ON_MODEL_FLOPS, plan_basis

    shaped = spec is not None and (spec.n_heads is not None or spec.tied_embeddings)
    if not shaped and source not in ON_MODEL_FLOPS:
        return run
    # The forecast's basis (n_heads × head_dim, tied embeddings), and an assumed MFU (model
    # FLOPs 6·N) moved onto it: one compute figure for the main line and the forecast.
    basis = plan_basis(plan)
    work = as_plain(main.active_params if main.flops_method == "moe" else main.params)
    per_token = basis.per_token(work)
    if not shaped and per_token == mul(6, work):
        return run  # 6·N·T: the prior is on the run's own basis
    if source in ON_MODEL_FLOPS:
        value = mul(value, div(per_token, mul(6, work)))
    return estimate_from_flops(
        mul(per_token, main.tokens),
        main.gpus,
        peak,
        value,
        plan.prices.gpu_hour_usd,
        mfu_source=source,
        method=main.flops_method,
        formula=basis.formula() if basis.terms else run.formula,
        flops_name=f"params, tokens ({basis.describe()})",
        basis=basis,
    )


def _cadence(plan: Plan, main_hours: Decimal) -> Cadence | None:
    spec = plan.cadence
    if spec is None:
        return None
    mtbf = job_mtbf_hours(
        plan.main.gpus,
        mtbf_hours_per_gpu=spec.mtbf_hours_per_gpu,
        mtbf_hours_per_node=spec.mtbf_hours_per_node,
        gpus_per_node=spec.gpus_per_node,
    )
    size = spec.size_gb
    if size is None and plan.checkpoints is not None:
        size = plan.checkpoints.size_gb
    return checkpoint_cadence(
        write_hours=div(spec.write_minutes, MINUTES_PER_HOUR),
        restart_hours=div(spec.restart_minutes, MINUTES_PER_HOUR),
        mtbf_hours=mtbf,
        solve_hours=main_hours,
        gpus=plan.main.gpus,
        size_gb=size,
        keep_last=spec.keep_last,
    )


def _capacity(plan: Plan, main_hours: Decimal) -> list[CapacityCost]:
    options = [
        CapacityOption(
            name=choice.name,
            gpu_hour_usd=choice.gpu_hour_usd,
            mtbf_hours=choice.mtbf_hours,
            restart_hours=div(choice.restart_minutes, MINUTES_PER_HOUR),
            write_hours=div(choice.write_minutes, MINUTES_PER_HOUR),
            checkpointing=choice.checkpointing,
            delay_usd_per_day=choice.delay_usd_per_day,
        )
        for choice in plan.capacity
    ]
    return compare_capacity(options, main_hours, plan.main.gpus) if options else []


def campaign_estimate(
    plan: Plan,
    *,
    mfu: Numeric | None = None,
    mfu_source: str | None = None,
    ledger_mtbf: MtbfCurve | None = None,
) -> CampaignEstimate:
    """Price every line of `plan`; `mfu`, `mfu_source` override the main run's MFU (a pilot's).

    With a `reliability` section the main line is the forecast's main_gpu_hours (compute plus
    failure overheads and spares); `ledger_mtbf` is the ledger's fitted MTBF(n), used when the
    plan says `mtbf: ledger`.
    """
    warnings: list[str] = []
    run = None
    derivable = plan.main.params is not None and plan.main.tokens is not None
    if mfu is not None and plan.main.hours is not None and not derivable:
        warnings.append(
            f"main: hours are given and params/tokens are not, so the {mfu_source or 'given'} "
            f"MFU {float(mfu):.3g} cannot re-derive them; the plan's {plan.main.hours} h is kept"
        )
        mfu = None
    forecast = None
    if plan.reliability is not None:
        from trainbudget.estimate.forecast import campaign_forecast

        forecast = campaign_forecast(plan, mfu, mfu_source, ledger_mtbf)
    if plan.main.hours is not None and mfu is None:
        main_hours = plan.main.hours
        main_detail = f"{plan.main.gpus} GPUs × {num(main_hours)} h"
    elif plan.main.phases:
        main_hours = div(forecast.compute_gpu_hours, plan.main.gpus)
        main_detail = f"{len(plan.main.phases)} phases"
    else:
        run = main_run(plan, mfu, mfu_source)
        main_hours = run.wall_hours
        warnings += run.warnings
        main_detail = (
            f"{plan.main.gpus} GPUs × {float(main_hours):,.2f} h derived: {run.formula}, "
            f"MFU {float(run.mfu):.3g} on {run.flops_basis} ({run.mfu_source})"
        )
        if plan.main.hours is not None:
            warnings.append(
                f"main: the plan's {plan.main.hours} h is replaced by {float(main_hours):,.2f} h "
                f"derived with the {run.mfu_source} MFU {float(run.mfu):.3g}"
            )

    main_gpu_hours = mul(plan.main.gpus, main_hours)
    if forecast is not None:
        main_gpu_hours = forecast.main_gpu_hours
        from trainbudget.estimate.forecast_lines import main_line_detail

        if forecast.throughput_source == "prior" and forecast.throughput_note:
            main_detail = f"{plan.main.gpus:,} GPUs at the throughput {forecast.throughput_note}"

        main_detail = main_line_detail(forecast, main_detail)
        warnings += forecast.warnings
        band = None
        shown = None
        if forecast.band is not None:
            moved = forecast.band.moved_most_by
            shown = (forecast.band.as_dict(), forecast.throughput_source, moved)
    else:
        from trainbudget.estimate.main_band import main_band_payload

        band = main_band_payload(plan, run, main_gpu_hours)
        warnings += band["warnings"]
        shown = (
            band["main_gpu_hours_band"],
            band["throughput_source"],
            band["band_detail"]["moved_most_by"],
        )
    if shown is not None:
        from trainbudget.estimate.main_band import band_text

        # The band beside the point figure: the table's and the pre-launch report's main line.
        text = band_text(*shown)
        main_detail = f"{main_detail}; {text}" if text else main_detail
    lines = work_lines(plan, main_gpu_hours, main_detail)
    storage_months = Decimal(0)
    price = plan.prices.gpu_hour_usd
    if plan.checkpoints is not None:
        ckpt = plan.checkpoints
        storage_months = bounded(
            "checkpoints (count × size_gb × retention_months)",
            mul(ckpt.count, ckpt.size_gb, ckpt.retention_months),
            MAX_GB_MONTHS,
            "GB-months",
        )
        bounded(
            "checkpoints × prices.storage_gb_month_usd",
            mul(storage_months, plan.prices.storage_gb_month_usd),
            MAX_USD,
            "USD",
        )
        lines.append(
            CampaignLine(
                "storage",
                "checkpoints",
                "planned",
                Decimal(0),
                mul(storage_months, plan.prices.storage_gb_month_usd),
                f"{many(ckpt.count, 'checkpoint')} × {num(ckpt.size_gb)} GB × "
                f"{num(ckpt.retention_months)} "
                f"month{'' if ckpt.retention_months == 1 else 's'}",
                gb_months=storage_months,
            )
        )

    def hours_of(*classes: str) -> Decimal:
        return sum((ln.gpu_hours for ln in lines if ln.work_class in classes), Decimal(0))

    contingency = sum((ln.gpu_hours for ln in lines if ln.kind == "contingency"), Decimal(0))
    planned_work = sum((ln.gpu_hours for ln in lines if ln.kind == "planned"), Decimal(0))
    planned_total = planned_work + contingency
    compute_usd = mul(planned_total, price)
    storage_usd = mul(storage_months, plan.prices.storage_gb_month_usd)

    cadence = _cadence(plan, main_hours)
    fractions = plan.sensitivity.failure_fraction
    grid = sensitivity_grid(
        pilot=hours_of("pilot"),
        # With a forecast T is its failure-free compute, so f = forecast gives its main line.
        main=hours_of("main") if forecast is None else forecast.compute_gpu_hours,
        evaluation=hours_of("evaluation"),
        diagnostic=hours_of("diagnostic"),
        attempts=list(plan.sensitivity.attempts),
        failure_fractions=[f for f in fractions if f != "forecast"],
        gpu_hour_usd=price,
        ceiling_gpu_hours=plan.ceiling.gpu_hours,
        derived_fraction=None if cadence is None else cadence.overhead_fraction,
        forecast_fraction=forecast.failure_fraction if "forecast" in fractions else None,
    )
    billing = None
    if plan.cluster is not None and plan.cluster.billing is not None:
        from trainbudget.estimate.billing import campaign_billing

        billing = campaign_billing(plan, lines)
        warnings += billing.warnings
    ceiling_hours = plan.ceiling.gpu_hours
    total_usd = compute_usd + storage_usd
    ceiling = CeilingCheck(
        ceiling_gpu_hours=ceiling_hours,
        planned_gpu_hours=planned_total,
        margin_gpu_hours=ceiling_hours - planned_total,
        margin_fraction=div(ceiling_hours - planned_total, ceiling_hours),
        within=planned_total <= ceiling_hours,
        ceiling_usd=plan.ceiling.usd,
        total_usd=total_usd,
        within_usd=None if plan.ceiling.usd is None else total_usd <= plan.ceiling.usd,
        worst_case_gpu_hours=max(case.gpu_hours for case in grid),
        cases_over_ceiling=sum(1 for case in grid if not case.within_ceiling),
    )
    return CampaignEstimate(
        campaign=plan.campaign,
        unit_of_progress=plan.unit_of_progress,
        gpu_hour_usd=price,
        storage_gb_month_usd=plan.prices.storage_gb_month_usd,
        lines=lines,
        planned_work_gpu_hours=planned_work,
        contingency_gpu_hours=contingency,
        planned_gpu_hours=planned_total,
        compute_usd=compute_usd,
        storage_gb_months=storage_months,
        storage_usd=storage_usd,
        total_usd=total_usd,
        sensitivity=grid,
        ceiling=ceiling,
        main=run,
        cadence=cadence,
        capacity=_capacity(plan, main_hours),
        warnings=warnings,
        forecast=forecast,
        main_band=band,
        billing=billing,
    )

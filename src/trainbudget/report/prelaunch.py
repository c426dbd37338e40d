"""The pre-launch report: admission and gain-versus-cost verdicts, then the estimate behind them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainbudget.estimate.forecast_lines import forecast_lines
from trainbudget.report import format as fmt
from trainbudget.report.charts import scaling_fit_chart, sensitivity_chart
from trainbudget.report.format import Column
from trainbudget.report.model import Chart, Report, Table, Verdict
from trainbudget.report.tables import GATE_COLUMNS, data_docs_links, gate_rows, quality_table
from trainbudget.report.verdicts import verdict_of

if TYPE_CHECKING:
    from trainbudget.estimate.campaign import CampaignEstimate
    from trainbudget.estimate.forecast import Forecast
    from trainbudget.estimate.mfu_rule import MfuChoice
    from trainbudget.gates.outcome import GateOutcome
    from trainbudget.pilot.summary import PilotSummary
    from trainbudget.quality.checkpoint import QualityReport
    from trainbudget.scaling.bootstrap import BootstrapFits
    from trainbudget.scaling.fit import FitResult
    from trainbudget.scaling.gain import LossPrediction
    from trainbudget.scaling.load import Ablations


@dataclass(frozen=True)
class ScalingFigures:
    """What the report shows of a scaling fit: the points, the fitted law, the target."""

    params: dict[str, float]
    observed_loss: list[float]
    fitted_loss: list[float]
    target_params: float
    target_tokens: float
    predicted_loss: float
    predicted_loss_interval: tuple[float, float]
    params_interval: dict[str, tuple[float, float]] = field(default_factory=dict)
    confidence: float | None = None


def scaling_figures(
    points: Ablations,
    fit: FitResult,
    target: LossPrediction,
    fits: BootstrapFits | None = None,
    confidence: float | None = None,
) -> ScalingFigures:
    """The report's view of a fit: observed and fitted loss per point, the target, and each
    parameter's bootstrap percentile interval when the resamples (`fits`) are given."""
    law = fit.params
    intervals = {}
    if fits is not None and confidence is not None:
        from trainbudget.scaling.bootstrap import percentile_interval  # numpy: only with fits

        intervals = {
            name: percentile_interval(fits.column(name), confidence) for name in law.as_dict()
        }
    return ScalingFigures(
        params=law.as_dict(),
        observed_loss=[float(v) for v in points.loss],
        fitted_loss=[
            law.predict_loss(n, d) for n, d in zip(points.params, points.tokens, strict=True)
        ],
        target_params=target.params,
        target_tokens=target.tokens,
        predicted_loss=target.predicted_loss,
        predicted_loss_interval=target.interval,
        params_interval=intervals,
        confidence=confidence,
    )


ESTIMATE_COLUMNS = [
    Column("work_class", "Work class"),
    Column("name", "Line"),
    Column("kind", "Kind"),
    Column("gpu_hours", "GPU-hours", fmt.gpu_hours),
    Column("usd", "Cost (USD)", fmt.usd),
    Column("arithmetic", "Arithmetic"),
]
SENSITIVITY_COLUMNS = [
    Column("attempts", "Attempts n", fmt.number),
    Column("failure_fraction", "Failure and recovery fraction f", fmt.percent),
    Column("f_from", "f from"),
    Column("gpu_hours", "Campaign GPU-hours", fmt.gpu_hours),
    Column("compute_usd", "Compute cost (USD)", fmt.usd),
    Column("margin_gpu_hours", "Margin to the ceiling (GPU-hours)", fmt.gpu_hours),
    Column("within_ceiling", "Within the ceiling", fmt.yes_no),
]
TRACE_COLUMNS = [
    Column("rank", "Rank", fmt.number),
    Column("gpu_busy_us", "GPU busy", fmt.duration_us),
    Column("gpu_idle_us", "GPU idle", fmt.duration_us),
    Column("idle_pct", "Idle (%)", fmt.decimals(2)),
    Column("computation_us", "Compute kernels", fmt.duration_us),
    Column("communication_us", "Communication kernels", fmt.duration_us),
    Column("comm_comp_overlap_pct", "Communication overlapped (%)", fmt.decimals(2)),
    Column("memory_peak_bytes", "Peak memory", fmt.gib),
    Column("achieved_tflops_per_second", "Achieved TFLOP/s", fmt.decimals(1)),
]
_F_FROM = {"plan": "plan", "cadence": "checkpoint cadence (Daly)"}


def estimate_rows(estimate: CampaignEstimate) -> list[dict[str, Any]]:
    """The campaign's priced lines, planned and contingency kept apart."""
    return [
        {
            "work_class": line.work_class,
            "name": line.name,
            "kind": line.kind,
            "gpu_hours": line.gpu_hours,
            "usd": line.usd,
            "arithmetic": line.detail,
        }
        for line in estimate.lines
    ]


def sensitivity_rows(estimate: CampaignEstimate) -> list[dict[str, Any]]:
    """The grid P + n·T·(1+f) + E: one row per (n, f)."""
    return [
        {
            "attempts": case.attempts,
            "failure_fraction": case.failure_fraction,
            "f_from": _F_FROM.get(case.failure_fraction_source, case.failure_fraction_source),
            "gpu_hours": case.gpu_hours,
            "compute_usd": case.compute_usd,
            "margin_gpu_hours": case.margin_gpu_hours,
            "within_ceiling": case.within_ceiling,
        }
        for case in estimate.sensitivity
    ]


def sensitivity_terms(planned_by_class: dict[str, Any]) -> tuple[float, float]:
    """(P + E + D, T) in GPU-hours from planned hours per work class: the lines of the chart."""
    base = sum(float(planned_by_class.get(c) or 0) for c in ("pilot", "evaluation", "diagnostic"))
    return base, float(planned_by_class.get("main") or 0)


def _planned_by_class(estimate: CampaignEstimate) -> dict[str, Any]:
    hours: dict[str, Any] = {}
    for line in estimate.lines:
        if line.kind == "planned":
            hours[line.work_class] = hours.get(line.work_class, 0) + line.gpu_hours
    return hours


def trace_rows(trace_payload: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per rank: GPU time (µs), kernel time by category, overlap, memory, TFLOP/s."""
    rows = []
    for r in trace_payload["ranks"]:
        kernels = r.get("gpu_kernel_us_by_category") or {}
        rows.append(
            {
                **r,
                "computation_us": kernels.get("computation"),
                "communication_us": kernels.get("communication"),
            }
        )
    return rows


def _main_run_rows(estimate: CampaignEstimate) -> list[dict[str, Any]]:
    run = estimate.main
    if run is None:
        return []
    return [
        {"quantity": "FLOPs", "value": f"{float(run.flops):.4g}", "note": run.formula},
        {"quantity": "MFU", "value": f"{run.mfu:.3g}", "note": f"source: {run.mfu_source}"},
        {"quantity": "wall clock (hours)", "value": run.wall_hours, "note": f"{run.gpus} GPUs"},
        {"quantity": "wall clock (days)", "value": run.wall_days, "note": ""},
        {"quantity": "GPU-hours", "value": run.gpu_hours, "note": ""},
        {"quantity": "cost (USD)", "value": fmt.usd(run.dollar_cost), "note": "main run alone"},
    ]


def scaling_rows(scaling: ScalingFigures) -> list[dict[str, Any]]:
    """The law's parameters with their bootstrap intervals, then the target's loss."""
    rows = [
        {
            "parameter": _PARAM_WORDS.get(name, name),
            "value": value,
            "interval": fmt.interval(*scaling.params_interval[name])
            if name in scaling.params_interval
            else "",
        }
        for name, value in scaling.params.items()
    ]
    rows.append(
        {
            "parameter": f"predicted loss at N = {scaling.target_params:.3g}, "
            f"D = {scaling.target_tokens:.3g}",
            "value": scaling.predicted_loss,
            "interval": fmt.interval(*scaling.predicted_loss_interval),
        }
    )
    return rows


_PARAM_WORDS = {
    "E": "E (irreducible loss)",
    "A": "A (parameter term)",
    "B": "B (data term)",
    "alpha": "α (parameter exponent)",
    "beta": "β (data exponent)",
}


FORECAST_COLUMNS = [
    Column("line", "Line"),
    Column("gpu_hours", "GPU-hours", fmt.gpu_hours),
    Column("detail", "Arithmetic"),
]


def forecast_table(forecast: Forecast) -> Table:
    """The main-run forecast by line (compute, then each overhead), as `campaign` prints it."""

    rows = [{**row, "line": row["line"].replace("_", " ")} for row in forecast_lines(forecast)]
    rows.append(
        {"line": "main run", "gpu_hours": forecast.main_gpu_hours,
         "detail": "allocated, spares included"}
    )  # fmt: skip
    interval = ""
    if forecast.ettr_interval is not None:
        low, high = forecast.ettr_interval
        interval = f" (interval {fmt.number(low, 3)} to {fmt.number(high, 3)})"
    note = (
        f"ETTR {fmt.number(forecast.ettr, 3)}{interval}; wall "
        f"{fmt.number(forecast.main_wall_hours, 1)} h; "
        f"{fmt.number(forecast.interruptions, 1)} expected interruptions at job MTBF "
        f"{fmt.number(forecast.mtbf_hours, 2)} h ({forecast.mtbf_note}); a checkpoint every "
        f"{fmt.number(forecast.checkpoint_interval_minutes, 1)} min "
        f"({forecast.checkpoint_interval_source})."
    )
    if forecast.band is not None:
        band = forecast.band
        note += (
            f" Band p10–p50–p90: {fmt.gpu_hours(band.p10)} – {fmt.gpu_hours(band.p50)} – "
            f"{fmt.gpu_hours(band.p90)} GPU-hours (throughput: {forecast.throughput_source}); "
            f"the input that moves it most: {band.moved_most_by}."
        )
    return Table.of("Main-run forecast", rows, FORECAST_COLUMNS, note)


def build_prelaunch_report(
    estimate: CampaignEstimate,
    gates: list[GateOutcome],
    pilot: PilotSummary,
    trace_payload: dict[str, Any] | None,
    scaling: ScalingFigures | None,
    quality: QualityReport,
    folder: Path,
    mfu: MfuChoice,
) -> Report:
    """The pre-launch report of one campaign plan, written into `folder`."""
    ceiling = estimate.ceiling
    over = ceiling.cases_over_ceiling
    summary = [
        f"Planned {fmt.gpu_hours(estimate.planned_gpu_hours)} GPU-hours (work "
        f"{fmt.gpu_hours(estimate.planned_work_gpu_hours)} + contingency "
        f"{fmt.gpu_hours(estimate.contingency_gpu_hours)}) = {fmt.usd(estimate.compute_usd)} "
        f"compute at {fmt.usd(estimate.gpu_hour_usd)} per GPU-hour; storage "
        f"{fmt.number(estimate.storage_gb_months, 1)} GB-months = "
        f"{fmt.usd(estimate.storage_usd)}.",
        f"Ceiling {fmt.gpu_hours(ceiling.ceiling_gpu_hours)} GPU-hours: margin "
        f"{fmt.gpu_hours(ceiling.margin_gpu_hours)}; worst sensitivity case "
        f"{fmt.gpu_hours(ceiling.worst_case_gpu_hours)} "
        f"({fmt.plural(over, 'case')} over the ceiling).",
    ]
    if pilot.mfu is not None:
        summary.append(
            f"Pilot: {fmt.plural(pilot.steps, 'step')} in {fmt.plural(pilot.runs, 'run')}, "
            f"measured MFU {pilot.mfu:.3g}."
        )
    if estimate.billing is not None:  # the cluster's own units (estimate/billing.py)
        summary.append(
            f"In the cluster's billing units: {fmt.gpu_hours(estimate.billing.billing_hours)} "
            f"billing-hours (rule {estimate.billing.rule}; a job's billing truncated as Slurm "
            "stores it)."
        )
    summary.append(f"Main-run MFU: {mfu.describe()}.")
    summary += [f"Note: {w}" for w in (*estimate.warnings, *pilot.warnings)]
    grid = sensitivity_rows(estimate)
    tables = [
        Table.of("Gate decisions", gate_rows(gates), GATE_COLUMNS),
        Table.of("Campaign lines", estimate_rows(estimate), ESTIMATE_COLUMNS),
        Table.of(
            "Sensitivity grid",
            grid,
            SENSITIVITY_COLUMNS,
            "Campaign GPU-hours P + n·T·(1+f) + E (+ D) for n attempts of the main run T at "
            "failure and recovery fraction f; it replaces the retry line, never adds to it. "
            'P, E and D are the pilot, evaluation and diagnostic lines of "Campaign lines"; '
            + (
                'T is the compute line of "Main-run forecast" (the forecast\'s f adds its '
                "overheads)."
                if estimate.forecast is not None
                else "T is its main line."
            ),
        ),
    ]
    if estimate.forecast is not None:
        tables.append(forecast_table(estimate.forecast))
    if main := _main_run_rows(estimate):
        tables.append(
            Table.of(
                "Main-run estimate",
                main,
                [Column("quantity", "Quantity"), Column("value", "Value"), Column("note", "Note")],
            )
        )
    base, main_hours = sensitivity_terms(_planned_by_class(estimate))
    charts = [
        Chart(
            "Sensitivity",
            sensitivity_chart(grid, float(ceiling.ceiling_gpu_hours), base, main_hours),
            "Campaign GPU-hours against the failure and recovery fraction f, one line per "
            "number of attempts n; the dots are the grid's cells, the dashed line the ceiling.",
        )
    ]
    if trace_payload is not None:
        tables.append(
            Table.of(
                "Profiler trace by rank", trace_rows(trace_payload), TRACE_COLUMNS,
                "Times under a second in ms, longer ones in s; memory in GiB (2³⁰ bytes).",
            )
        )  # fmt: skip
    if scaling is not None:
        low, high = scaling.predicted_loss_interval
        level = f"{scaling.confidence:.0%} " if scaling.confidence is not None else ""
        summary.append(
            f"Scaling fit: predicted loss {scaling.predicted_loss:.4f} ({level}interval "
            f"{low:.4f} to {high:.4f}) at N = {scaling.target_params:.3g} parameters, "
            f"D = {scaling.target_tokens:.3g} tokens."
        )
        tables.append(
            Table.of(
                "Scaling-law parameters",
                scaling_rows(scaling),
                [
                    Column("parameter", "Parameter"),
                    Column("value", "Fitted value", fmt.significant(4)),
                    Column("interval", f"{level}bootstrap interval".capitalize()),
                ],
                "L(N, D) = E + A/N^α + B/D^β; intervals are percentiles of the refits over "
                "resampled ablation points.",
            )
        )
        charts.append(
            Chart(
                "Scaling fit",
                scaling_fit_chart(
                    scaling.observed_loss,
                    scaling.fitted_loss,
                    (scaling.predicted_loss, low, high),
                ),
                "Observed against fitted loss of the ablation points; the band is the target's "
                "predicted-loss interval.",
            )
        )
    tables.append(quality_table(quality))
    verdicts = [verdict_of(g) for g in gates]
    if not quality.success:
        verdicts.insert(0, Verdict("data quality", "failed", quality.summary(), "bad"))
    return Report(
        title=f"Pre-launch estimate: {estimate.campaign}",
        subtitle=f"generated {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by trainbudget",
        verdicts=verdicts,
        summary=summary,
        tables=tables,
        charts=charts,
        links=data_docs_links(quality, folder),
    )

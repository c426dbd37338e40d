"""The pre-launch report: admission and gain-versus-cost verdicts, then the estimate behind them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainbudget.report.charts import scaling_fit_chart, sensitivity_chart
from trainbudget.report.model import Chart, Report, Table, Verdict
from trainbudget.report.verdicts import verdict_of
from trainbudget.report.weekly import data_docs_links, gate_rows

if TYPE_CHECKING:
    from trainbudget.estimate.campaign import CampaignEstimate
    from trainbudget.estimate.mfu_rule import MfuChoice
    from trainbudget.gates.outcome import GateOutcome
    from trainbudget.pilot.summary import PilotSummary
    from trainbudget.quality.checkpoint import QualityReport
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


def scaling_figures(points: Ablations, fit: FitResult, target: LossPrediction) -> ScalingFigures:
    """The report's view of a fit: observed and fitted loss per point, and the target."""
    law = fit.params
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
    )


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
            "f_from": case.failure_fraction_source,
            "gpu_hours": case.gpu_hours,
            "compute_usd": case.compute_usd,
            "within_ceiling": case.within_ceiling,
        }
        for case in estimate.sensitivity
    ]


def _main_run_rows(estimate: CampaignEstimate) -> list[dict[str, Any]]:
    run = estimate.main
    if run is None:
        return []
    return [
        {"quantity": "FLOPs", "value": f"{float(run.flops):.4g}", "note": run.formula},
        {"quantity": "MFU", "value": f"{run.mfu:.3g}", "note": f"source: {run.mfu_source}"},
        {"quantity": "wall hours", "value": run.wall_hours, "note": f"{run.gpus} GPUs"},
        {"quantity": "wall days", "value": run.wall_days, "note": ""},
        {"quantity": "GPU-hours", "value": run.gpu_hours, "note": ""},
        {"quantity": "dollars", "value": run.dollar_cost, "note": "main run alone"},
    ]


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
    summary = [
        f"Planned {float(estimate.planned_gpu_hours):,.2f} GPU-hours (work "
        f"{float(estimate.planned_work_gpu_hours):,.2f} + contingency "
        f"{float(estimate.contingency_gpu_hours):,.2f}) = ${float(estimate.compute_usd):,.2f} "
        f"compute at ${float(estimate.gpu_hour_usd):,.2f}/GPU-hour; storage "
        f"{float(estimate.storage_gb_months):,.1f} GB-months = "
        f"${float(estimate.storage_usd):,.2f}.",
        f"Ceiling {float(ceiling.ceiling_gpu_hours):,.2f} GPU-hours: margin "
        f"{float(ceiling.margin_gpu_hours):,.2f}; worst sensitivity case "
        f"{float(ceiling.worst_case_gpu_hours):,.2f} ({ceiling.cases_over_ceiling} case(s) over).",
    ]
    if pilot.mfu is not None:
        summary.append(
            f"Pilot: {pilot.steps} steps in {pilot.runs} run(s), measured MFU {pilot.mfu:.3g}."
        )
    summary.append(f"Main-run MFU: {mfu.describe()}.")
    summary += [f"Note: {w}" for w in (*estimate.warnings, *pilot.warnings)]
    grid = sensitivity_rows(estimate)
    tables = [
        Table.from_records("Gate decisions", gate_rows(gates)),
        Table.from_records("Campaign lines", estimate_rows(estimate)),
        Table.from_records(
            "Sensitivity grid",
            grid,
            "P + n·T·(1+f) + E replaces the retry line; it is never added to it.",
        ),
    ]
    if main := _main_run_rows(estimate):
        tables.append(Table.from_records("Main-run estimate", main))
    charts = [
        Chart(
            "Sensitivity",
            sensitivity_chart(grid, float(ceiling.ceiling_gpu_hours)),
            "Campaign GPU-hours against the failure fraction f, one line per number of attempts.",
        )
    ]
    if trace_payload is not None:
        ranks = [
            {
                "rank": r["rank"],
                "gpu_busy_us": r["gpu_busy_us"],
                "gpu_idle_us": r["gpu_idle_us"],
                "idle_pct": r["idle_pct"],
                "comm_comp_overlap_pct": r["comm_comp_overlap_pct"],
                "memory_peak_bytes": r["memory_peak_bytes"],
            }
            for r in trace_payload["ranks"]
        ]
        tables.append(Table.from_records("Profiler trace by rank", ranks))
    if scaling is not None:
        low, high = scaling.predicted_loss_interval
        summary.append(
            f"Scaling fit: predicted loss {scaling.predicted_loss:.4f} (interval {low:.4f} to "
            f"{high:.4f}) at N = {scaling.target_params:.3g}, D = {scaling.target_tokens:.3g}."
        )
        tables.append(
            Table.from_records(
                "Scaling-law parameters",
                [{"parameter": k, "value": v} for k, v in scaling.params.items()],
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
    tables.append(Table.from_records("Data-quality expectations", quality.rows()))
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

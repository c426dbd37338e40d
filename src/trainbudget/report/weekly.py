"""The weekly review's report: verdicts, actual versus plan, accounting by week, diagnosis."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from trainbudget.gates.outcome import GateOutcome
from trainbudget.report.charts import (
    allocation_by_week_chart,
    plan_vs_actual_chart,
    sensitivity_chart,
)
from trainbudget.report.goodput import goodput_section
from trainbudget.report.model import Chart, Report, Table, Verdict
from trainbudget.report.verdicts import verdict_of

if TYPE_CHECKING:
    from trainbudget.estimate.mfu_rule import MfuChoice
    from trainbudget.plan import Plan
    from trainbudget.quality.checkpoint import QualityReport
    from trainbudget.reconcile.review import Review

JOB_COLUMNS = (
    "job_id",
    "state",
    "work_class",
    "experiment_id",
    "gpus",
    "allocated_gpu_hours",
    "useful_gpu_hours",
    "recovery_gpu_hours",
    "lost_gpu_hours",
    "unverified_gpu_hours",
)


def data_docs_links(quality: QualityReport, folder: Path) -> dict[str, str]:
    """A link to the run's Great Expectations Data Docs, relative to the report's folder."""
    if quality.docs_index is None:
        return {}
    return {"Great Expectations Data Docs": quality.docs_index.relative_to(folder).as_posix()}


def gate_rows(gates: list[GateOutcome]) -> list[dict[str, Any]]:
    """One table row per gate decision (the retry gate names its job)."""
    return [
        {
            "gate": g.gate,
            "job_id": g.inputs.get("job_id", ""),
            "outcome": g.outcome,
            "reason": g.reason,
            "sentence": g.sentence,
        }
        for g in gates
    ]


def weekly_verdicts(gates: list[GateOutcome], quality: QualityReport) -> list[Verdict]:
    """Data quality first (nothing else counts without it), then each gate's verdict."""
    tone = "good" if quality.success else "bad"
    verdicts = [
        Verdict("data quality", "passed" if quality.success else "failed", quality.summary(), tone)
    ]
    for gate in gates:
        verdict = verdict_of(gate)
        if job := gate.inputs.get("job_id"):
            verdict = dataclasses.replace(verdict, subject=f"{verdict.subject} (job {job})")
        verdicts.append(verdict)
    return verdicts


def build_weekly_report(
    plan: Plan,
    week: str,
    review: Review,
    gates: list[GateOutcome],
    quality: QualityReport,
    folder: Path,
    mfu: MfuChoice,
) -> Report:
    """The weekly review's report for `week` (ISO `YYYY-Www`), from the review's typed result
    (its jobs JSON written) and the gate outcomes; `mfu` priced the plan's main run."""
    totals = review.totals
    by_week = list(review.accounting_by_week)
    jobs = orjson.loads(review.jobs_path.read_bytes())
    summary = [
        f"{totals['jobs']} allocations in {week}: {float(totals['allocated_gpu_hours']):,.2f} "
        f"GPU-hours allocated = useful {float(totals['useful_gpu_hours']):,.2f} + recovery "
        f"{float(totals['recovery_gpu_hours']):,.2f} + lost {float(totals['lost_gpu_hours']):,.2f}"
        f" + unverified {float(totals['unverified_gpu_hours']):,.2f}.",
    ]
    if review.failure_fraction is not None:
        summary.append(
            f"Measured failure and recovery fraction of the main run f = (lost + recovery) / "
            f"useful = {float(review.failure_fraction):.3f}."
        )
    summary.append(f"Main-run MFU: {mfu.describe()}.")
    tables: list[Table] = []
    charts: list[Chart] = []
    variance = review.variance
    if variance is not None:
        summary.append(
            f"Campaign to date: {float(variance['actual_gpu_hours']):,.2f} of "
            f"{float(variance['planned_gpu_hours']):,.2f} planned GPU-hours; projected "
            f"{float(variance['projected_gpu_hours']):,.2f} against the ceiling of "
            f"{float(variance['ceiling_gpu_hours']):,.2f}."
        )
        tables.append(
            Table.from_records("Actual versus plan by work class", variance["by_work_class"])
        )
        charts.append(
            Chart(
                "Plan versus actual",
                plan_vs_actual_chart(variance["by_work_class"]),
                "Planned and allocated GPU-hours per work class, campaign to date.",
            )
        )
        grid = variance.get("sensitivity_at_measured_f") or []
        if grid:
            tables.append(Table.from_records("Sensitivity at the measured f", grid))
            charts.append(
                Chart(
                    "Sensitivity",
                    sensitivity_chart(grid, variance["ceiling_gpu_hours"]),
                    "P + n·T·(1+f) + E at the measured failure fraction, against the ceiling.",
                )
            )
    goodput_lines, goodput_tables = goodput_section(review, plan.campaign)
    summary += goodput_lines
    tables += goodput_tables
    tables.append(Table.from_records("Gate decisions", gate_rows(gates)))
    tables.append(
        Table.from_records(
            "Diagnosis, in the seed's order",
            [{"step": f["step"], "finding": f["summary"]} for f in review.diagnosis],
        )
    )
    tables.append(
        Table.from_records(f"Jobs of {week}", [{c: j.get(c) for c in JOB_COLUMNS} for j in jobs])
    )
    if by_week:
        tables.append(Table.from_records("Allocated GPU-hours by week", by_week))
        charts.append(
            Chart(
                "Allocated GPU-hours by week",
                allocation_by_week_chart(by_week),
                "Every allocated GPU-hour is useful, recovery, lost or unverified.",
            )
        )
    tables.append(Table.from_records("Data-quality expectations", quality.rows()))
    return Report(
        title=f"Weekly review: {plan.campaign}, {week}",
        subtitle=f"generated {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by trainbudget",
        verdicts=weekly_verdicts(gates, quality),
        summary=summary,
        tables=tables,
        charts=charts,
        links=data_docs_links(quality, folder),
    )

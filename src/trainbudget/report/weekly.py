"""The weekly review's report: verdicts, actual versus plan, accounting by week, diagnosis."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainbudget.gates.outcome import GateOutcome
from trainbudget.reconcile.goodput import total
from trainbudget.reconcile.variance import gpu_hours
from trainbudget.report import format as fmt
from trainbudget.report.charts import (
    allocation_by_week_chart,
    plan_vs_actual_chart,
    sensitivity_chart,
)
from trainbudget.report.format import Column
from trainbudget.report.goodput import GOODPUT_TITLE, MAIN_RUN, goodput_section
from trainbudget.report.gpu_use import gpu_use_section
from trainbudget.report.jobs import JobList, jobs_table
from trainbudget.report.model import Chart, Report, Table, Verdict
from trainbudget.report.prelaunch import sensitivity_terms
from trainbudget.report.tables import (
    GATE_COLUMNS,
    data_docs_links,
    gate_rows,
    quality_table,
    table_row_count,
)
from trainbudget.report.units import billing_section, burn_down_section
from trainbudget.report.verdicts import verdict_of

if TYPE_CHECKING:
    from trainbudget.estimate.mfu_rule import MfuChoice
    from trainbudget.plan import Plan
    from trainbudget.quality.checkpoint import QualityReport
    from trainbudget.reconcile.review import Review

VARIANCE_COLUMNS = [
    Column("work_class", "Work class"),
    Column("planned_gpu_hours", "Planned GPU-hours", fmt.gpu_hours),
    Column("actual_gpu_hours", "Actual GPU-hours", fmt.gpu_hours),
    Column("variance_gpu_hours", "Actual − planned (GPU-hours)", fmt.gpu_hours),
    Column("variance_usd", "Actual − planned (USD)", fmt.usd),
    Column("remaining_gpu_hours", "Plan remaining (GPU-hours)", fmt.gpu_hours),
    Column("status", "Against plan"),
]
SENSITIVITY_COLUMNS = [
    Column("attempts", "Attempts n", fmt.number),
    Column("failure_fraction", "Measured f", fmt.percent),
    Column("gpu_hours", "Campaign GPU-hours", fmt.gpu_hours),
    Column("within_ceiling", "Within the ceiling", fmt.yes_no),
]
WEEK_COLUMNS = [
    Column("week", "Week"),
    Column("allocated_gpu_hours", "Allocated GPU-hours", fmt.gpu_hours),
    Column("useful_gpu_hours", "Useful", fmt.gpu_hours),
    Column("recovery_gpu_hours", "Recovery", fmt.gpu_hours),
    Column("lost_gpu_hours", "Lost", fmt.gpu_hours),
    Column("unverified_gpu_hours", "Unverified", fmt.gpu_hours),
]
DIAGNOSIS_COLUMNS = [Column("step", "Check"), Column("finding", "Finding")]


def variance_rows(
    by_work_class: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], tuple[int, ...]]:
    """Actual versus plan per work class with a status in words; the rows over their plan."""
    rows, over = [], []
    for index, row in enumerate(by_work_class):
        planned, actual = row["planned_gpu_hours"] or 0, row["actual_gpu_hours"] or 0
        if actual > planned and planned:
            status = (
                f"OVER PLAN by {fmt.gpu_hours(actual - planned)} GPU-hours "
                f"({fmt.percent((actual - planned) / planned, 0)})"
            )
        elif actual > planned:
            status = "OVER PLAN: nothing was planned"
        else:
            status = "within plan"
        if actual > planned:
            over.append(index)
        rows.append(row | {"status": status})
    return rows, tuple(over)


def _job_list(review: Review) -> JobList:
    """The review's own largest jobs (GPU-seconds) when the procedure gave no JobList."""

    largest = [
        j | {f"{k}_gpu_hours": gpu_hours(j[k] or 0) for k in _CLASSES} for j in review.top_jobs
    ]
    return JobList(largest, int(review.totals.get("jobs") or len(largest)), None)


_CLASSES = ("allocated", "useful", "recovery", "lost", "unverified")


def _sacct_note(review: Review, quality: QualityReport, week: str) -> str:
    """Why the sacct checks count other lines than the diagnosis does (job lines, all weeks)."""
    checked = table_row_count(quality, "sacct")
    lines = next((f.get("sacct_lines") for f in review.diagnosis if "sacct_lines" in f), None)
    if checked is None:
        return ""
    note = (
        f"The sacct checks read the {fmt.plural(checked, 'job line')} landed (one per job, "
        "step lines excluded, every week landed)"
    )
    if lines:
        note += (
            f"; the diagnosis's {fmt.plural(lines, 'sacct line')} are the "
            f"{fmt.plural(int(review.totals.get('jobs') or 0), 'job')} of {week} with their "
            "step lines (batch, extern and job steps repeat the job's allocation)"
        )
    return note + "."


def failure_fraction_line(review: Review, week: str) -> str:
    """Seed 000's measured f of the main run, with the three figures it is computed from (the
    total row of the goodput table, reconcile/goodput.py's one main-run scope)."""
    to_date = total(review.goodput, None).by_class()
    lost, recovery, useful = (fmt.gpu_hours(gpu_hours(to_date[k])) for k in
                              ("lost", "recovery", "useful"))  # fmt: skip
    return (
        f"Measured failure and recovery fraction of the main run ({MAIN_RUN}, to the end of "
        f"{week}) f = (lost + recovery) / useful = ({lost} + {recovery}) / {useful} = "
        f'{fmt.percent(review.failure_fraction)}: the total row of "{GOODPUT_TITLE}" '
        "(lost = lost progress + invalid result, recovery = restart + recomputation)."
    )


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
    jobs: JobList | None = None,
) -> Report:
    """The weekly review's report for `week` (ISO `YYYY-Www`), from the review's typed result
    and the gate outcomes; `mfu` priced the plan's main run; `jobs` the largest jobs and the
    whole list's CSV (default: the review's own largest jobs, no CSV)."""
    totals = review.totals
    by_week = list(review.accounting_by_week)
    hours = {k: fmt.gpu_hours(totals[f"{k}_gpu_hours"]) for k in _CLASSES}
    summary = [
        f"{fmt.plural(totals['jobs'], 'allocation')} in {week}: {hours['allocated']} GPU-hours "
        f"allocated = useful {hours['useful']} + recovery {hours['recovery']} + lost "
        f"{hours['lost']} + unverified {hours['unverified']}.",
    ]
    if review.failure_fraction is not None:
        summary.append(failure_fraction_line(review, week))
    summary.append(f"Main-run MFU: {mfu.describe()}.")
    summary += [f"Note: {w}." for w in review.warnings]  # e.g. no registry: what to pass
    tables: list[Table] = []
    charts: list[Chart] = []
    variance = review.variance
    if variance is not None:
        summary.append(
            f"Campaign to date: {fmt.gpu_hours(variance['actual_gpu_hours'])} of "
            f"{fmt.gpu_hours(variance['planned_gpu_hours'])} planned GPU-hours; projected "
            f"{fmt.gpu_hours(variance['projected_gpu_hours'])} against the ceiling of "
            f"{fmt.gpu_hours(variance['ceiling_gpu_hours'])}."
        )
        rows, over = variance_rows(variance["by_work_class"])
        if over:
            names = ", ".join(str(rows[i]["work_class"]) for i in over)
            summary.append(f"Over plan: {names} (flagged in the table below).")
        tables.append(
            Table.of("Actual versus plan by work class", rows, VARIANCE_COLUMNS, flagged=over)
        )
        charts.append(
            Chart(
                "Plan versus actual",
                plan_vs_actual_chart(variance["by_work_class"]),
                "Planned and allocated GPU-hours per work class, campaign to date; a red bar is "
                "over its plan, by the amount in brackets.",
            )
        )
        grid = variance.get("sensitivity_at_measured_f") or []
        if grid:
            planned = {r["work_class"]: r["planned_gpu_hours"] for r in variance["by_work_class"]}
            base, main_hours = sensitivity_terms(planned)
            measured = float(grid[0]["failure_fraction"])
            tables.append(
                Table.of(
                    "Sensitivity at the measured f", grid, SENSITIVITY_COLUMNS,
                    "Campaign GPU-hours P + n·T·(1+f) + E + D at the main run's measured "
                    "failure and recovery fraction f (above), for each planned number of "
                    "attempts n; P, T, E and D are the Planned GPU-hours of pilot, main, "
                    "evaluation and diagnostic in \"Actual versus plan by work class\".",
                )
            )  # fmt: skip
            charts.append(
                Chart(
                    "Sensitivity",
                    sensitivity_chart(
                        grid, variance["ceiling_gpu_hours"], base, main_hours, measured
                    ),
                    "P + n·T·(1+f) + E for every f, one line per number of attempts n; the dots "
                    "are the measured f (dotted line), the dashed line the ceiling.",
                )
            )
    goodput_lines, goodput_tables = goodput_section(review, plan.campaign)
    summary += goodput_lines
    tables += goodput_tables
    unit_lines, unit_tables = billing_section(review)  # the cluster's own units
    summary += unit_lines
    tables += unit_tables
    burn_lines, burn_charts = burn_down_section(review)
    summary += burn_lines
    charts += burn_charts
    gpu_lines, gpu_tables = gpu_use_section(review)  # GPUs reserved and not used
    summary += gpu_lines
    tables += gpu_tables
    tables.append(Table.of("Gate decisions", gate_rows(gates), GATE_COLUMNS))
    tables.append(
        Table.of(
            "Diagnosis, step by step",
            [
                {"step": str(f["step"]).replace("-", " ").capitalize(), "finding": f["summary"]}
                for f in review.diagnosis
            ],
            DIAGNOSIS_COLUMNS,
        )
    )
    tables.append(jobs_table(week, jobs if jobs is not None else _job_list(review)))
    if by_week:
        to_date = {"week": "campaign to date"} | {
            f"{k}_gpu_hours": _column_sum(by_week, k) for k in _CLASSES
        }
        tables.append(
            Table.of(
                "Allocated GPU-hours by week", [*by_week, to_date], WEEK_COLUMNS,
                f"Every job of the campaign to the end of {week}, tracked or untracked (an "
                "earlier untracked job has no progress: it is unverified); each week's "
                "Allocated = Useful + Recovery + Lost + Unverified, and the weeks sum to the "
                "campaign to date of \"Actual versus plan by work class\".",
            )
        )  # fmt: skip
        charts.append(
            Chart(
                "Allocated GPU-hours by week",
                allocation_by_week_chart(by_week),
                "Every allocated GPU-hour is useful, recovery, lost or unverified.",
            )
        )
    tables.append(quality_table(quality, _sacct_note(review, quality, week)))
    return Report(
        title=f"Weekly review: {plan.campaign}, {week}",
        subtitle=f"generated {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by trainbudget",
        verdicts=weekly_verdicts(gates, quality),
        summary=summary,
        tables=tables,
        charts=charts,
        links=data_docs_links(quality, folder) | _csv_link(jobs),
    )


def _column_sum(rows: list[dict[str, Any]], name: str) -> Any:
    """The rows' `name` GPU-hours summed: exactly, from their GPU-seconds when they have them."""
    if all(f"{name}_gpu_seconds" in r for r in rows):
        return gpu_hours(sum(int(r[f"{name}_gpu_seconds"]) for r in rows))
    return sum(r[f"{name}_gpu_hours"] for r in rows)


def _csv_link(jobs: JobList | None) -> dict[str, str]:
    if jobs is None or jobs.csv_href is None:
        return {}
    every = fmt.plural(jobs.total, "job")
    links = {f"Every job of the week (CSV, {every})": jobs.csv_href}
    if jobs.parquet_href is not None:
        links[f"Every job of the week (Parquet, {every})"] = jobs.parquet_href
    return links

"""What each step of the two procedures says in the run's log: a sentence or two from its
typed result (the Prefect step runner logs it, so a flow run's Logs tab tells the story of the
run; the inline runner says nothing). Plain strings from figures the results already hold."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trainbudget.estimate.mfu_rule import MfuChoice
    from trainbudget.gates.outcome import GateOutcome
    from trainbudget.plan import Plan
    from trainbudget.prelaunch import Gain, Landed, PrelaunchResult, Prepared
    from trainbudget.quality.checkpoint import QualityReport
    from trainbudget.reconcile.land import Landed as LandedFile
    from trainbudget.reconcile.review import Review
    from trainbudget.report.jobs import JobList
    from trainbudget.trace.summary import RankSummary
    from trainbudget.weekly import PreparedWeek


def prelaunch_prepared(prepared: Prepared) -> str:
    inputs = prepared.inputs
    snapshot = f", data snapshot {inputs.data_snapshot}" if inputs.data_snapshot else ""
    return (
        f"Plan {prepared.plan.campaign} read: {len(inputs.pilot_logs)} pilot step log(s), "
        f"{len(prepared.trace_files)} trace rank file(s){snapshot}; the report goes to "
        f"{prepared.folder}."
    )


def prelaunch_rank(summary: RankSummary) -> str:
    return (
        f"Trace {Path(summary.path).name}: rank {summary.rank} ({summary.rank_source}), "
        f"{len(summary.steps)} step(s), {summary.gpu_event_count:,} GPU events."
    )


def prelaunch_gain(gain: Gain) -> str:
    p = gain.predicted
    return f"Predicted gain {p.value:.4g} in [{p.low:.4g}, {p.high:.4g}] ({p.source})."


def prelaunch_landed(landed: Landed) -> str:
    pilot = landed.pilot
    ranks = "" if landed.trace_payload is None else "; trace summaries landed"
    return (
        f"Landed the plan and {pilot.summary.steps:,} pilot steps from "
        f"{len(pilot.logs)} file(s) ({pilot.summary.runs} run(s)){ranks}; "
        f"{landed.quality.summary()}."
    )


def prelaunch_decided(result: PrelaunchResult) -> str:
    verdicts = "; ".join(f"{g.gate}: {g.outcome} ({g.sentence})" for g in result.gates)
    return (
        f"Planned {result.estimate.planned_gpu_hours:,.2f} GPU-hours at main-run MFU "
        f"{result.mfu.describe()}. {verdicts}"
    )


def weekly_prepared(prepared: PreparedWeek) -> str:
    inputs = prepared.inputs
    given = [name for name in ("registry", "progress", "manifest") if getattr(inputs, name)]
    live = " and sacct run live" if inputs.live else ""
    campaign = prepared.plan.campaign if prepared.plan is not None else "all"
    return (
        f"Week {prepared.week} of {campaign}: {len(inputs.sacct)} sacct file(s){live}, "
        f"{', '.join(given) or 'no joins'}; cluster {inputs.cluster} ({inputs.cluster_tz})."
    )


def weekly_landed(landed: list[LandedFile]) -> str:
    parts = [
        f"{Path(item.path).name} ({item.kind}): "
        + ("already landed" if item.already_landed else f"{item.rows_landed:,} rows")
        + (f", {item.rows_quarantined:,} quarantined" if item.rows_quarantined else "")
        for item in landed
    ]
    return "Landed " + "; ".join(parts) + "." if parts else "Nothing new to land."


def weekly_reviewed(reviewed: tuple[Plan | None, MfuChoice | None, Review]) -> str:
    plan, _, review = reviewed
    t = review.totals
    against = f" against plan {plan.campaign}" if plan is not None else " (no plan)"
    return (
        f"Reconciled {t['jobs']:,} jobs{against}: allocated {t['allocated_gpu_hours']:,.2f} "
        f"GPU-hours, useful {t['useful_gpu_hours']:,.2f}, recovery "
        f"{t['recovery_gpu_hours']:,.2f}, lost {t['lost_gpu_hours']:,.2f}, unverified "
        f"{t['unverified_gpu_hours']:,.2f}."
    )


def weekly_gates(gates: list[GateOutcome]) -> str:
    return "; ".join(f"{g.gate}: {g.outcome} ({g.sentence})" for g in gates) or "No gate ran."


def weekly_quality(report: QualityReport) -> str:
    return f"{report.summary()}."


def weekly_jobs_written(review: Review) -> str:
    return f"Wrote the week's {review.totals['jobs']:,} jobs to {review.jobs_path}."


def weekly_job_files(jobs: JobList | None) -> str:
    if jobs is None:
        return "No jobs JSON: no jobs.csv or jobs.parquet written."
    return (
        f"Wrote {jobs.total:,} jobs to {jobs.csv_href} and {jobs.parquet_href} beside the "
        f"report; its table shows the {len(jobs.largest):,} largest."
    )

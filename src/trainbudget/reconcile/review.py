"""The weekly review over what is landed: accounting, totals, variance, diagnosis, audit.

Everything heavy happens in DuckDB (sql/reconcile/review/ and summarize/); Python splits only
the jobs that have application progress and assembles the findings. DuckDB writes the jobs
list as a JSON file (COPY … FORMAT json) that the command streams into its output unparsed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainbudget.reconcile import diagnosis
from trainbudget.reconcile.calibration import audit_estimates, update_calibration
from trainbudget.reconcile.timelines import TrackedJob, job_split_rows, split_tracked_jobs
from trainbudget.reconcile.variance import gpu_hours, measured_failure_fraction, plan_variance

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger
    from trainbudget.plan import Plan

FIVE = ("allocated", "useful", "recovery", "lost", "unverified")


@dataclass(frozen=True)
class Review:
    """The review's parts; `jobs_path` is a file holding the JSON array of the week's jobs
    (None until write_jobs has written it, and when the caller did not ask for it)."""

    jobs_path: Path | None
    totals: dict[str, Any]
    variance: dict[str, Any] | None
    diagnosis: list[dict[str, Any]]
    breakdown: list[dict[str, Any]]
    audit: list[dict[str, Any]]
    calibration: list[dict[str, Any]]
    failure_fraction: Decimal | None
    tracked: list[TrackedJob]
    top_jobs: list[dict[str, Any]]


def review(
    ledger: Ledger,
    plan: Plan | None,
    week: tuple[datetime, datetime] | None = None,
    clock_tolerance_s: int = 300,
) -> Review:
    """Reconcile everything landed (the week's jobs; variance to the week's end).

    The week's jobs stay in the temp table job_accounting; write_jobs writes them as JSON.
    """
    ledger.execute("reconcile/review/job_lines")
    ledger.execute("reconcile/review/allocation_records")
    ledger.execute("reconcile/review/allocations")
    ledger.execute("reconcile/review/registry_links")
    has_registry = bool(ledger.query("reconcile/review/registry_present"))
    tracked = split_tracked_jobs(
        ledger.records("reconcile/review/progress_allocations"),
        ledger.records("reconcile/review/progress_event_list"),
        clock_tolerance_s,
    )
    ledger.execute("reconcile/review/job_splits")
    ledger.insert_rows("job_splits", job_split_rows(tracked))
    week_start, week_end = week or (None, None)
    ledger.execute(
        "reconcile/review/job_accounting",
        has_registry=has_registry,
        week_start=week_start,
        week_end=week_end,
    )
    totals_row = ledger.records("reconcile/summarize/totals")[0]
    totals = {f"{k}_gpu_hours": gpu_hours(totals_row[k]) for k in FIVE} | {
        "jobs": totals_row["jobs"]
    }
    by_class = {r["work_class"]: r for r in ledger.records("reconcile/summarize/actual_by_class")}
    main = by_class.get("main", {"useful": 0, "lost": 0, "recovery": 0})
    f = measured_failure_fraction(main["useful"], main["lost"], main["recovery"])
    variance = None
    if plan is not None:
        variance = plan_variance(plan, {c: r["allocated"] for c, r in by_class.items()}, f)
        if f is not None:
            ledger.execute(
                "reconcile/calibrate/measured_failure_upsert",
                campaign=plan.campaign,
                failure_fraction=float(f),
                useful=float(gpu_hours(main["useful"])),
                lost=float(gpu_hours(main["lost"])),
                recovery=float(gpu_hours(main["recovery"])),
                now=datetime.now(UTC),
            )
    in_week = {r[0] for r in ledger.query("reconcile/summarize/week_tracked_alloc_ids")}
    retention = plan.checkpoints.retention_months if plan and plan.checkpoints else None
    findings = [
        diagnosis.allocated_finding(
            totals_row, ledger.records("reconcile/summarize/step_line_overcount")[0]
        ),
        diagnosis.failures_finding(ledger.records("reconcile/summarize/failures")),
        diagnosis.recovery_finding(tracked, in_week),
        diagnosis.evaluation_finding(
            ledger.records("reconcile/summarize/evaluation_count")[0], plan
        ),
        diagnosis.artifacts_finding(
            ledger.records(
                "reconcile/summarize/artifacts",
                retention_months=float(retention) if retention is not None else None,
                as_of=week_end or datetime.now(UTC),
            ),
            plan,
        ),
    ]
    audit = audit_estimates(ledger)
    return Review(
        jobs_path=None,
        totals=totals,
        variance=variance,
        diagnosis=findings,
        breakdown=[
            {"dimension": r["dimension"], "value": r["value"], "jobs": r["jobs"]}
            | {f"{k}_gpu_hours": gpu_hours(r[k]) for k in FIVE}
            for r in ledger.records("reconcile/summarize/breakdown")
        ],
        audit=audit,
        calibration=update_calibration(ledger, audit),
        failure_fraction=f,
        tracked=tracked,
        top_jobs=ledger.records("reconcile/summarize/top_jobs", limit=15),
    )


def write_jobs(ledger: Ledger, result: Review, path: Path) -> Review:
    """Write the week's jobs (job_accounting, left by review) to `path` as a JSON array and
    return the review with its jobs_path.

    Call it after the run's commit: it is output, not a ledger write. The checkpoint first
    writes the ledger's data file, so no later fsync of the ledger (the checkpoint at close)
    also has to flush the array's pages, 175 MB for a million lines, on the same file system
    (docs/reconcile.md, Performance).
    """
    ledger.execute("ledger/checkpoint")
    ledger.execute("reconcile/summarize/jobs_copy", path=str(path))
    return replace(result, jobs_path=path)

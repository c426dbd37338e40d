"""The weekly review over what is landed: accounting, totals, variance, diagnosis, audit.

Everything heavy happens in DuckDB (sql/reconcile/review/ and summarize/); Python splits only
the jobs that have application progress and assembles the findings. The relations the review
builds are declared in reconcile/relations.py and built through reconcile/session.py. What it
leaves for the gates and the report is the `Review`: typed values, plus the handle of the
per-job rows (`jobs`) that `write_jobs` copies to a JSON file (COPY … FORMAT json) for the
command to stream into its output.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainbudget.base.collector import collector_paused
from trainbudget.base.errors import EnvironmentFailure, InputError
from trainbudget.quality.relation import require_valid
from trainbudget.quality.rules import JOB_ACCOUNTING_RULES
from trainbudget.reconcile import closed_jobs, diagnosis
from trainbudget.reconcile.billing import BillingReview, billing_finding, review_billing
from trainbudget.reconcile.burndown import BurnDown, review_burn_down
from trainbudget.reconcile.by_week import accounting_by_week
from trainbudget.reconcile.calibration import audit_estimates, update_calibration
from trainbudget.reconcile.goodput import (
    GoodputWeek,
    campaign_goodput,
    failure_fraction,
    total,
    up_to,
)
from trainbudget.reconcile.gpu_findings import build_gpu_usage, gpu_findings
from trainbudget.reconcile.history import covers_everything, untracked_before, week_name
from trainbudget.reconcile.session import (
    RelationError,
    RelationHandle,
    Session,
    build_allocations,
)
from trainbudget.reconcile.split_cache import fill_job_splits, split_with_cache
from trainbudget.reconcile.timelines import TrackedJob
from trainbudget.reconcile.tracked_lines import catch_up
from trainbudget.reconcile.variance import gpu_hours, plan_variance

if TYPE_CHECKING:
    from trainbudget.estimate.campaign import CampaignEstimate
    from trainbudget.ledger import Ledger
    from trainbudget.plan import Plan

JOBS_FILE_FORMATS = {".parquet": "parquet", ".csv": "csv", ".jsonl": "jsonl"}
FIVE = ("allocated", "useful", "recovery", "lost", "unverified")
Week = tuple[datetime, datetime]


@dataclass(frozen=True)
class FailedJob:
    """A tracked allocation of the reviewed week that did not complete (for the retry gate);
    `retries_used` counts the retry-class jobs its experiment has had."""

    job_id: str
    state: str
    experiment_id: str
    work_class: str
    diagnosed_cause: str | None
    cause_addressed: bool
    useful_gpu_hours: Decimal
    retries_used: int


@dataclass(frozen=True)
class LandedArtifact:
    """One landed manifest row (its newest landing), for the retention gate; times in UTC."""

    artifact_id: str
    experiment_id: str
    role: str
    size_bytes: int
    created: datetime
    step: int | None
    retain_until: datetime | None


@dataclass(frozen=True)
class Review:
    """What the review leaves for the gates and the report.

    `week` is the reviewed week (None: everything landed); `failed_jobs` the week's failed
    tracked jobs (empty without a week); `artifacts` every landed artifact;
    `accounting_by_week` GPU-hours per ISO week of every job, untracked included, up to the
    end of the reviewed week (reconcile/by_week.py: they sum to the campaign to date); `jobs` the
    handle of the per-job rows (None only in a Review not made by `review`); `jobs_path` the
    JSON array of the week's jobs once `write_jobs` has written it; `warnings` the lines for
    stderr that the diagnosis raised (probable double counts); `goodput` the main run's ETTR
    and badput per week up to the end of the reviewed week (reconcile/goodput.py), the scope
    of `failure_fraction` too; `forecast_audit` the main-run forecast against
    the campaign's measured reliability, line by line (reliability/audit.py), when the plan
    has a forecast; `tracked` the tracked jobs this review split or reused, in start order:
    not the closed ones (reconcile/closed_jobs.py), whose rows it read instead.
    """

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
    week: Week | None = None
    failed_jobs: tuple[FailedJob, ...] = ()
    artifacts: tuple[LandedArtifact, ...] = ()
    accounting_by_week: tuple[dict[str, Any], ...] = ()
    jobs: RelationHandle | None = None
    warnings: tuple[str, ...] = ()
    goodput: tuple[GoodputWeek, ...] = ()
    forecast_audit: tuple[dict[str, Any], ...] = ()
    # The cluster's billing units (reconcile/billing.py): AllocTRES billing=N × elapsed.
    billing: BillingReview | None = None
    # At the measured weekly rate: the ceiling's week, the allocation's end (burndown.py).
    burn_down: BurnDown | None = None


def review(
    ledger: Ledger,
    plan: Plan | None,
    week: Week | None = None,
    clock_tolerance_s: int = 300,
    planned: CampaignEstimate | None = None,
    cluster_tz: str = "UTC",
) -> Review:
    """Reconcile the week's jobs (None: everything landed; variance to the week's end) against
    `plan`, priced as `planned` when given (the campaign's MFU). Only the week's jobs and the
    tracked ones are read; earlier untracked jobs count by week (reconcile/history.py), in the
    ISO weeks of `cluster_tz`."""
    # The campaign to date's tracked jobs are many small, acyclic objects (their splits,
    # timelines and steps) that every full collection would walk (docs/reconcile.md).
    with collector_paused():
        return _review(ledger, plan, week, clock_tolerance_s, planned, cluster_tz)


def _review(
    ledger: Ledger,
    plan: Plan | None,
    week: Week | None,
    clock_tolerance_s: int,
    planned: CampaignEstimate | None,
    cluster_tz: str,
) -> Review:
    session = Session(ledger)
    week_start, week_end = week or (None, None)
    has_registry = bool(ledger.query("reconcile/review/registry_present"))
    scope = None if week is None or covers_everything(ledger, week) else week
    if scope is None:
        closed = closed_jobs.unused(session)
    else:  # ledger writes: the tracked jobs' lines and the closed jobs brought up to date
        catch_up(ledger)
        closed = closed_jobs.prepare(session, scope[0], clock_tolerance_s, has_registry)
    build_allocations(session, scope)
    tracked = split_with_cache(session, clock_tolerance_s, closed.chains)
    session.build("job_splits")
    fill_job_splits(session, tracked)
    session.build(
        "job_accounting", has_registry=has_registry, week_start=week_start, week_end=week_end
    )
    session.build("job_accounting_all")  # the campaign to date: with the closed jobs' rows
    # The hand-off to the gates and the report holds its declared rules (schemas.JobAccounting),
    # checked in DuckDB in one scan; a broken rule is a defect, not bad input.
    require_valid(ledger.con, JOB_ACCOUNTING_RULES)
    totals_row = session.records("reconcile/summarize/totals")[0]
    totals = (
        {f"{k}_gpu_hours": gpu_hours(totals_row[k]) for k in FIVE}
        | {f"{k}_gpu_seconds": int(totals_row[k]) for k in FIVE}  # the exact figures
        | {"jobs": totals_row["jobs"]}
    )
    billed = review_billing(session, plan, week, cluster_tz)
    totals["allocated_billing_hours"] = billed.allocated_billing_hours
    totals["allocated_billing_seconds"] = billed.allocated_billing_seconds
    by_class = {r["work_class"]: r for r in session.records("reconcile/summarize/actual_by_class")}
    if week_start is not None:
        earlier = untracked_before(session, week_start, cluster_tz)
        if earlier:
            unlinked = "untracked" if has_registry else "unknown"
            row = by_class.setdefault(
                unlinked, {"allocated": 0, "useful": 0, "recovery": 0, "lost": 0, "jobs": 0}
            )
            row["allocated"] = row["allocated"] + earlier
    # The main run (reconcile/goodput.py: main-class jobs and the retry jobs of their
    # experiment) to the end of the reviewed week: f, ETTR and goodput share that one scope.
    goodput = campaign_goodput(session, plan.campaign if plan else None)
    if week_end is not None:
        goodput = up_to(goodput, week_name(week_end - timedelta(days=7), cluster_tz))
    to_date = total(goodput, None)
    main = to_date.by_class()
    f = failure_fraction(to_date)
    variance = None
    if plan is not None:
        actual = {c: r["allocated"] for c, r in by_class.items()}
        variance = plan_variance(plan, actual, f, planned)
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
    by_week = accounting_by_week(session, week, cluster_tz)
    burn_down = review_burn_down(
        plan,
        week,
        cluster_tz,
        by_week,
        billed.by_week,
        variance["actual_gpu_hours"] if variance is not None else Decimal(0),
    )
    findings = _findings(session, plan, totals_row, tracked, week_end, closed)
    if (billing_disagrees := billing_finding(billed)) is not None:
        findings.append(billing_disagrees)
    build_gpu_usage(session, plan)  # what the GPUs did (gpu_findings.py): a diagnostic
    findings += gpu_findings(session, plan)
    audit = audit_estimates(session)
    calibration = update_calibration(session, audit)
    if scope is not None:  # last: what it closes, the views above already read
        closed_jobs.extend(session, closed, tracked, scope[0], clock_tolerance_s, has_registry)
    return Review(
        jobs_path=None,
        totals=totals,
        variance=variance,
        diagnosis=findings,
        breakdown=[
            {"dimension": r["dimension"], "value": r["value"], "jobs": r["jobs"]}
            | {f"{k}_gpu_hours": gpu_hours(r[k]) for k in FIVE}
            for r in session.records("reconcile/summarize/breakdown")
        ],
        audit=audit,
        calibration=calibration,
        failure_fraction=f,
        tracked=tracked,
        top_jobs=session.records("reconcile/summarize/top_jobs", limit=15),
        week=week,
        failed_jobs=_failed_jobs(session, week) if week else (),
        artifacts=_artifacts(ledger),
        accounting_by_week=by_week,
        jobs=session.handle("job_accounting"),
        warnings=tuple(
            diagnosis.review_warnings(findings, has_registry=has_registry, jobs=totals["jobs"])
        ),
        goodput=goodput,
        billing=billed,
        burn_down=burn_down,
    )


def _findings(
    session: Session,
    plan: Plan | None,
    totals_row: dict[str, Any],
    tracked: list[TrackedJob],
    week_end: datetime | None,
    closed: closed_jobs.ClosedJobs,
) -> list[dict[str, Any]]:
    """The diagnosis in the seed's order."""
    in_week = {r[0] for r in session.query("reconcile/summarize/week_tracked_alloc_ids")}
    retention = plan.checkpoints.retention_months if plan and plan.checkpoints else None
    overcount = session.records("reconcile/summarize/step_line_overcount")[0]
    evaluation = session.records("reconcile/summarize/evaluation_count")[0]
    artifacts = session.records(
        "reconcile/summarize/artifacts",
        retention_months=float(retention) if retention is not None else None,
        as_of=week_end or datetime.now(UTC),
    )
    return [
        diagnosis.allocated_finding(totals_row, overcount),
        diagnosis.failures_finding(session.records("reconcile/summarize/failures")),
        diagnosis.recovery_finding(tracked, in_week, partial(closed.members, session.ledger)),
        diagnosis.evaluation_finding(evaluation, plan),
        diagnosis.artifacts_finding(artifacts, plan),
        diagnosis.double_count_finding(session.records("reconcile/summarize/double_counts")),
    ]


def _failed_jobs(session: Session, week: Week) -> tuple[FailedJob, ...]:
    rows = session.records("reconcile/summarize/failed_jobs", week_start=week[0], week_end=week[1])
    return tuple(
        FailedJob(
            job_id=r["job_id"],
            state=r["state"],
            experiment_id=r["experiment_id"],
            work_class=r["work_class"],
            diagnosed_cause=r["diagnosed_cause"],
            cause_addressed=bool(r["cause_addressed"]),
            useful_gpu_hours=gpu_hours(r["useful_gpu_seconds"]),
            retries_used=int(r["retries_used"]),
        )
        for r in rows
    )


def _artifacts(ledger: Ledger) -> tuple[LandedArtifact, ...]:
    return tuple(
        LandedArtifact(
            artifact_id=r["artifact_id"],
            experiment_id=r["experiment_id"],
            role=r["role"],
            size_bytes=int(r["size_bytes"]),
            created=r["created"],
            step=r["step"],
            retain_until=_as_datetime(r["retain_until"]),
        )
        for r in ledger.records("reconcile/summarize/manifest_artifacts")
    )


def _as_datetime(value: Any) -> datetime | None:
    """A manifest date or time as a datetime (a date is its midnight, UTC)."""
    if value is None or isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime.combine(value, time(0), tzinfo=UTC)
    raise TypeError(f"not a date or datetime: {value!r}")


def write_jobs(ledger: Ledger, result: Review, path: Path) -> Review:
    """Write the week's jobs (the review's `jobs` relation) to `path` as a JSON array and
    return the review with its jobs_path.

    Call it on the ledger the review ran on: it is output, not a ledger write. After the
    run's commit (the weekly flow) a checkpoint first writes the ledger's data file, so no
    later fsync of the ledger also has to flush the array's pages, 175 MB for a million lines,
    on the same file system (docs/reconcile.md, Performance). Inside a transaction (the
    reconcile command, which prints before it commits) there is nothing to checkpoint yet.
    """
    _export_jobs(ledger, result)
    ledger.execute("reconcile/summarize/jobs_copy", path=str(path))
    return replace(result, jobs_path=path)


def jobs_file_format(path: Path) -> str:
    """The format of a `--jobs` file by its suffix (`parquet`, `csv` or `jsonl`); InputError
    naming the path and the suffixes otherwise, or when its folder does not exist."""
    kind = JOBS_FILE_FORMATS.get(path.suffix.lower())
    if kind is None:
        raise InputError(
            f"--jobs {path}: the suffix names the format: .parquet, .csv or .jsonl "
            f"(found {path.suffix or 'no suffix'!r})"
        )
    if path.is_dir() or not path.parent.is_dir():
        raise InputError(f"--jobs {path}: not a file in an existing folder")
    return kind


# The COPY query of each --jobs format, named whole so every query name is findable in sql/.
_JOBS_COPY = {
    "parquet": "reconcile/summarize/jobs_copy_parquet",
    "csv": "reconcile/summarize/jobs_copy_csv",
    "jsonl": "reconcile/summarize/jobs_copy_jsonl",
}


def write_jobs_file(ledger: Ledger, result: Review, path: Path) -> int:
    """Write the week's jobs to `path` in the format its suffix names (`jobs_file_format`) and
    return how many. Atomic: DuckDB writes a temp file beside it, renamed over `path` once
    complete, so `path` is never half written. Exact as the inline array: Parquet keeps the
    *_gpu_hours as DECIMAL(38, 12), CSV as their decimal text, JSONL as the same objects.
    Call it after the commit, on the ledger the review ran on (see write_jobs).
    """
    import duckdb

    kind = jobs_file_format(path)
    _export_jobs(ledger, result)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        ((count,),) = ledger.query(_JOBS_COPY[kind], path=str(partial))
        os.replace(partial, path)
    except (OSError, duckdb.IOException) as exc:
        reason = " ".join(str(exc).split())
        raise EnvironmentFailure(f"--jobs {path}: could not write it ({reason})") from exc
    finally:
        partial.unlink(missing_ok=True)
    return int(count)


def _export_jobs(ledger: Ledger, result: Review) -> None:
    """The view jobs_export over the review's job_accounting, after a checkpoint when no
    transaction is open."""
    if result.jobs is None:
        raise RelationError("write_jobs needs the Review that review() returned (it has no jobs)")
    result.jobs.check(ledger)
    if not ledger.in_transaction:
        ledger.execute("ledger/checkpoint")
    ledger.execute("reconcile/summarize/jobs_export")

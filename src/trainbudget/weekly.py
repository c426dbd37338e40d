"""The weekly review (seed 000's control loop): land → check → reconcile → decide → report.

Plain Python from typed inputs to a typed result. `review_sequence` is the sequence, written
once: `run_weekly` runs all of it and reports (the weekly flow with Prefect's step runner, a
script or test inline; trainbudget.runner.steps), and `reconcile` (`trainbudget reconcile`) is
the same sequence without the data-quality checkpoint, stopped after the review. The landing, the
check, the review and the decisions are one ledger transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.estimate.mfu_rule import estimate_campaign, stored_choice
from trainbudget.gates.weekly import weekly_gates, with_continuation
from trainbudget.ledger.decisions import record_decision
from trainbudget.plan import land_plan, load_plan, newest_landed_plan
from trainbudget.reconcile.goodput import goodput_payload
from trainbudget.reconcile.invariants import check_review
from trainbudget.reconcile.job_files import CSV_NAME, PARQUET_NAME, write_job_files
from trainbudget.reconcile.land import (
    land_manifest,
    land_progress,
    land_registry,
    land_sacct,
    require_rows,
)
from trainbudget.reconcile.landed import landed_week, landing_warnings
from trainbudget.reconcile.live import run_sacct
from trainbudget.reconcile.report import ReconcileResult
from trainbudget.reconcile.review import review, write_jobs
from trainbudget.reconcile.week import week_bounds, zone
from trainbudget.reliability import plan_ledger_curve
from trainbudget.reliability.audit import with_forecast_audit
from trainbudget.reliability.measured import store_measured
from trainbudget.report.jobs import TOP_JOBS, JobList
from trainbudget.report.quarantine import QuarantinedFile, QuarantineSummary, with_quarantine
from trainbudget.report.runs import RunSummary, run_folder
from trainbudget.report.weekly import build_weekly_report
from trainbudget.runner import log as said
from trainbudget.runner.steps import INLINE, StepRunner

if TYPE_CHECKING:
    from trainbudget.estimate.mfu_rule import MfuChoice
    from trainbudget.gates.outcome import GateOutcome
    from trainbudget.ledger import Ledger
    from trainbudget.plan import Plan
    from trainbudget.quality.checkpoint import QualityReport
    from trainbudget.reconcile.land import Landed
    from trainbudget.reconcile.review import Review
    from trainbudget.report.model import Report

FLOW = "weekly-review"
# DuckDB's own buffers; Python adds the JSON text of the jobs on top (bench: ≤ 2 GB RSS).
DUCKDB_MEMORY_LIMIT = "1200MB"


@dataclass(frozen=True)
class WeeklyInputs:
    """Files to land and how to read and scope them (the reconcile command's options)."""

    sacct: list[Path] = field(default_factory=list)
    registry: Path | None = None
    progress: Path | None = None
    manifest: Path | None = None
    plan: Path | None = None
    week: str | None = None
    cluster_tz: str = "UTC"
    cluster: str = "default"
    sacct_delimiter: str | None = None
    sacct_fields: list[str] | None = None
    live: bool = False
    clock_tolerance_s: int = 300
    report_root: Path = Path("trainbudget-reports")


@dataclass(frozen=True)
class PreparedWeek:
    """The inputs checked, the plan parsed once (None if not given) and the week's bounds."""

    inputs: WeeklyInputs
    plan: Plan | None
    week: str | None
    bounds: tuple[datetime, datetime] | None


def previous_week(now: datetime | None = None) -> str:
    """The ISO week that ended most recently (`YYYY-Www`): what a Monday run reviews."""
    year, week, _ = ((now or datetime.now(UTC)) - timedelta(days=7)).isocalendar()
    return f"{year}-W{week:02d}"


def prepare_week(inputs: WeeklyInputs) -> PreparedWeek:
    """Check the zone and week and parse the plan, before anything is landed."""
    zone(inputs.cluster_tz)
    bounds = week_bounds(inputs.week, inputs.cluster_tz) if inputs.week else None
    plan = None if inputs.plan is None else load_plan(inputs.plan)
    return PreparedWeek(inputs, plan, inputs.week, bounds)


def land_records(ledger: Ledger, prepared: PreparedWeek) -> list[Landed]:
    """Land the plan, sacct (files, or `sacct` run here), registry, progress and manifest."""
    inputs = prepared.inputs
    ledger.execute("ledger/memory_limit", limit=DUCKDB_MEMORY_LIMIT)
    landed: list[Landed] = []
    with ledger.transaction():
        if prepared.plan is not None:
            land_plan(ledger, inputs.plan, prepared.plan)
        files = list(inputs.sacct)
        if inputs.live:
            files.append(
                run_sacct(ledger.path.parent / "sacct", prepared.bounds, inputs.cluster_tz)
            )
        for path in files:
            landed.append(
                land_sacct(
                    ledger,
                    path,
                    cluster=inputs.cluster,
                    cluster_tz=inputs.cluster_tz,
                    delimiter=inputs.sacct_delimiter,
                    fields=inputs.sacct_fields,
                )
            )
        for path, lander in (
            (inputs.registry, land_registry),
            (inputs.progress, land_progress),
            (inputs.manifest, land_manifest),
        ):
            if path is not None:
                landed.append(lander(ledger, path))
        require_rows(landed)
        if not ledger.query("reconcile/review/sacct_present"):
            raise InputError(
                "sacct: no scheduler records in the ledger: give sacct exports (or live)"
            )
    return landed


def check_quality(ledger: Ledger, prepared: PreparedWeek, docs_dir: Path) -> QualityReport:
    """The week's Great Expectations checkpoint over what landed; DataQualityError if it fails."""
    # Lazy: `trainbudget reconcile` runs no checkpoint, so polars and the suites stay out of it.
    from trainbudget.quality.landed import check_weekly_inputs, require_quality

    if prepared.bounds is None:
        raise InputError("week: the weekly review needs a week (YYYY-Www)")
    name = f"{_campaign(prepared)}-{prepared.week}"
    return require_quality(check_weekly_inputs(ledger, prepared.bounds, docs_dir, name))


def review_week(
    ledger: Ledger, prepared: PreparedWeek
) -> tuple[Plan | None, MfuChoice | None, Review]:
    """Reconcile what is landed against the plan (given, else the newest landed) and its MFU."""
    plan = prepared.plan or newest_landed_plan(ledger)
    mfu = planned = None
    if plan is not None:
        mfu = stored_choice(ledger, plan)
        curve = plan_ledger_curve(ledger, plan, prepared.inputs.cluster)
        planned = estimate_campaign(plan, mfu, curve)
    tolerance = prepared.inputs.clock_tolerance_s
    result = review(
        ledger, plan, prepared.bounds, tolerance, planned, cluster_tz=prepared.inputs.cluster_tz
    )
    if plan is not None:
        store_measured(ledger, plan.campaign, prepared.week, result)
        result = with_forecast_audit(ledger, plan.campaign, planned, result)
    return plan, mfu, result


def decide_week(
    ledger: Ledger, prepared: PreparedWeek, plan: Plan, result: Review
) -> list[GateOutcome]:
    """Continuation, retry per failed job and retention; each recorded in the ledger."""
    assert prepared.bounds is not None  # check_quality ran first
    gates = weekly_gates(plan, result, prepared.bounds)
    for outcome in gates:
        record_decision(
            ledger, outcome, campaign_id=plan.campaign, run_id=f"weekly-{prepared.week}"
        )
    return gates


@dataclass(frozen=True)
class Reviewed:
    """What the sequence produced: the scope it reviewed, what landed, the data-quality
    report and gate outcomes (None where the sequence skipped or stopped before them)."""

    prepared: PreparedWeek
    landed: list[Landed]
    quality: QualityReport | None
    plan: Plan | None
    mfu: MfuChoice | None
    review: Review
    gates: list[GateOutcome] | None


def review_sequence(
    ledger: Ledger,
    prepared: PreparedWeek,
    steps: StepRunner,
    *,
    docs: Path | None,
    jobs_path: Path | None,
    stop_after_review: bool,
) -> Reviewed:
    """The weekly procedure's steps, in order, in one transaction: land → (without a week:
    the weeks landed) → data-quality checkpoint (when `docs` is given) → review → gates
    (unless `stop_after_review`); then, after the commit, the week's jobs written as a JSON
    array to `jobs_path` (None: not written)."""
    # Steps that write inside the open transaction are not retried: a retry would land on
    # top of the failed attempt's writes.
    quality = gates = None
    tz = prepared.inputs.cluster_tz
    with ledger.transaction():
        landed = steps.run("land-records", land_records, ledger, prepared, says=said.weekly_landed)
        if prepared.bounds is None and (scope := landed_week(ledger, landed, tz)) is not None:
            prepared = replace(prepared, week=scope[0], bounds=scope[1])
        if docs is not None:
            quality = steps.run(
                "data-quality-checkpoint", check_quality, ledger, prepared, docs,
                says=said.weekly_quality,
            )  # fmt: skip
        plan, mfu, review = steps.run(
            "reconcile", review_week, ledger, prepared, says=said.weekly_reviewed
        )
        if not stop_after_review:
            assert plan is not None  # run_weekly requires one
            gates = steps.run(
                "gates", decide_week, ledger, prepared, plan, review, says=said.weekly_gates
            )
    if jobs_path is not None:
        jobs_path.parent.mkdir(parents=True, exist_ok=True)
        review = steps.run(
            "write-jobs", write_jobs, ledger, review, jobs_path,
            says=said.weekly_jobs_written,
        )  # fmt: skip
    return Reviewed(prepared, landed, quality, plan, mfu, review, gates)


def reconcile(ledger: Ledger, inputs: WeeklyInputs, jobs_path: Path | None) -> ReconcileResult:
    """`trainbudget reconcile`: the weekly sequence without the data-quality checkpoint,
    stopped after the review; a bad input changes nothing.

    The week's jobs are written as a JSON array to `jobs_path` after the commit (None: not
    written; a table for a person needs only the largest jobs).
    """
    done = review_sequence(
        ledger, prepare_week(inputs), INLINE, docs=None, jobs_path=jobs_path,
        stop_after_review=True,
    )  # fmt: skip
    plan, result = done.plan, done.review
    warnings = (
        []
        if plan is not None
        else ["no plan given or landed: variance against plan is skipped (--plan)"]
    )
    warnings += landing_warnings(done.landed) + list(result.warnings)
    if inputs.week is not None and not result.totals["jobs"]:
        warnings.append(
            f"week {inputs.week}: no allocations in it; the landed records are from other "
            "weeks (check the week)"
        )
    week = done.prepared
    return ReconcileResult(
        week.week, week.bounds, done.landed, plan, done.mfu, result, warnings,
        variance=with_continuation(result.variance, result.burn_down),
    )  # fmt: skip


@dataclass(frozen=True)
class WeeklyResult:
    """Everything the weekly report, summary and artifacts show."""

    prepared: PreparedWeek
    plan: Plan
    mfu: MfuChoice
    quality: QualityReport
    review: Review
    gates: list[GateOutcome]
    quarantine: QuarantineSummary = field(default_factory=QuarantineSummary)

    def __post_init__(self) -> None:
        check_review(self.review)  # every identity the report prints (BrokenIdentity)

    @property
    def folder(self) -> Path:
        return report_folder(self.prepared)


def landed_quarantine(landed: list[Landed]) -> QuarantineSummary:
    """What this run's landing quarantined, file by file (the result's `quarantine`)."""
    return QuarantineSummary.of(
        QuarantinedFile(item.path, item.kind, item.rows_quarantined, item.first_rejection)
        for item in landed
    )


def report_folder(prepared: PreparedWeek) -> Path:
    return run_folder(
        prepared.inputs.report_root, "weekly-review", _campaign(prepared), prepared.week or "all"
    )


def write_jobs_beside_report(result: WeeklyResult, top_jobs: int = TOP_JOBS) -> JobList | None:
    """The procedure's output step: every job of the week (the jobs JSON the review wrote) as
    jobs.csv and jobs.parquet beside the report; the report's list holds the `top_jobs`
    largest. None when no jobs JSON was written."""
    if result.review.jobs_path is None:
        return None
    result.folder.mkdir(parents=True, exist_ok=True)
    largest = write_job_files(result.review.jobs_path, result.folder, top_jobs)
    return JobList(largest, int(result.review.totals["jobs"]), CSV_NAME, PARQUET_NAME)


def build_report(result: WeeklyResult, jobs: JobList | None = None) -> Report:
    """The weekly review's report (verdicts first), with `jobs` (write_jobs_beside_report) as
    its jobs table and links; writes nothing."""
    assert result.prepared.week is not None
    report = build_weekly_report(
        result.plan, result.prepared.week, result.review, result.gates, result.quality,
        result.folder, result.mfu, jobs,
    )  # fmt: skip
    return with_quarantine(report, result.quarantine)


def summarize(result: WeeklyResult, report_html: Path) -> RunSummary:
    """The run's summary.json figures: the plan's GPU-hours priced with the campaign's MFU."""
    variance = result.review.variance or {}
    return RunSummary(
        flow=FLOW,
        campaign=result.plan.campaign,
        week=result.prepared.week,
        planned_gpu_hours=variance.get("planned_gpu_hours"),
        mfu=result.mfu,
        gates=result.gates,
        report=report_html,
        extra={
            "totals": result.review.totals,
            "goodput": _goodput(result),
            "burn_down": (
                None if result.review.burn_down is None else result.review.burn_down.as_dict()
            ),
            "quarantined": result.quarantine.payload(),
        },
    )


def _goodput(result: WeeklyResult) -> dict[str, Any]:
    return goodput_payload(result.review.goodput, result.plan.campaign)


def run_weekly(
    inputs: WeeklyInputs, ledger: Ledger, steps: StepRunner = INLINE
) -> tuple[WeeklyResult, dict[str, Any]]:
    """The weekly review: land, check, review, decide, report. What the weekly-review flow
    runs with Prefect's step runner (and a script or test inline)."""
    prepared = steps.run("prepare", prepare_week, _with_week(inputs), says=said.weekly_prepared)
    if prepared.plan is None:
        raise InputError("plan: the weekly review needs a plan")
    steps.name_run(f"{prepared.plan.campaign}-{prepared.week}")
    folder = report_folder(prepared)
    key = f"{prepared.plan.campaign}-weekly"
    with steps.refused(f"Weekly review {folder.name}", f"{key}-verdict", folder / "data-docs"):
        done = review_sequence(
            ledger, prepared, steps, docs=folder / "data-docs", jobs_path=folder / "jobs.json",
            stop_after_review=False,
        )  # fmt: skip
    assert done.plan is not None and done.mfu is not None and done.quality is not None
    assert done.gates is not None
    result = WeeklyResult(
        prepared, done.plan, done.mfu, done.quality, done.review, done.gates,
        landed_quarantine(done.landed),
    )  # fmt: skip
    jobs = steps.run(
        "write-job-files", write_jobs_beside_report, result, says=said.weekly_job_files
    )
    summary = summarize(result, (folder / "report.html").resolve())
    return result, steps.publish(build_report(result, jobs), summary, key)


def _with_week(inputs: WeeklyInputs) -> WeeklyInputs:
    return inputs if inputs.week else replace(inputs, week=previous_week())


def _campaign(prepared: PreparedWeek) -> str:
    return prepared.plan.campaign if prepared.plan is not None else "all"

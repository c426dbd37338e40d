"""Weekly review (scheduled, Monday 06:00): land the week's records, check their quality,
reconcile against the plan, decide, and publish the report.

Seed 000's control loop, one task per step. The landing, the quality check, the review and
the gate decisions share one ledger transaction: a failed data-quality check fails the run
and rolls back everything it landed, so nothing is ever reported from bad data.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.runtime import flow_run

from flow_support import (
    artifact_key,
    emit_gate_event,
    prefetch_modules,
    publish_report,
    retry_on_io_error,
)
from trainbudget.gates.audit import record_decision
from trainbudget.gates.weekly import weekly_gates
from trainbudget.ledger import Ledger
from trainbudget.plan import land_plan, load_plan
from trainbudget.quality.landed import DataQualityError, check_weekly_inputs, require_quality
from trainbudget.reconcile.land import land_manifest, land_progress, land_registry, land_sacct
from trainbudget.reconcile.live import run_sacct
from trainbudget.reconcile.review import review, write_jobs
from trainbudget.reconcile.week import week_bounds
from trainbudget.report.weekly import build_weekly_report

# The data-quality step imports Great Expectations (seconds): start it now.
prefetch_modules("trainbudget.quality.gx", "matplotlib.figure")

# Landing reads files (retry on I/O errors only); every task takes the open ledger, which is
# not hashable, so none of them caches its inputs.
_IO = {"retries": 2, "retry_delay_seconds": 2, "retry_condition_fn": retry_on_io_error}
land_plan_task = task(land_plan, name="land-plan", cache_policy=NO_CACHE, **_IO)
land_sacct_task = task(land_sacct, name="land-sacct", cache_policy=NO_CACHE, **_IO)
run_sacct_task = task(run_sacct, name="run-sacct-live", cache_policy=NO_CACHE, **_IO)
land_registry_task = task(land_registry, name="land-registry", cache_policy=NO_CACHE, **_IO)
land_progress_task = task(land_progress, name="land-progress", cache_policy=NO_CACHE, **_IO)
land_manifest_task = task(land_manifest, name="land-manifest", cache_policy=NO_CACHE, **_IO)
check_quality = task(check_weekly_inputs, name="data-quality-checkpoint", cache_policy=NO_CACHE)
reconcile = task(review, name="reconcile", cache_policy=NO_CACHE)
write_jobs_task = task(write_jobs, name="write-jobs", cache_policy=NO_CACHE)
decide = task(weekly_gates, name="gates", cache_policy=NO_CACHE)


def previous_week(now: datetime | None = None) -> str:
    """The ISO week that ended most recently (`YYYY-Www`): what a Monday run reviews."""
    year, week, _ = ((now or datetime.now(UTC)) - timedelta(days=7)).isocalendar()
    return f"{year}-W{week:02d}"


def _run_name() -> str:
    parameters = flow_run.parameters
    campaign = load_plan(parameters["plan"]).campaign
    return f"{campaign}-{parameters.get('week') or previous_week()}"


@flow(name="weekly-review", flow_run_name=_run_name)
def weekly_review(
    plan: Path,
    sacct: list[Path] | None = None,
    registry: Path | None = None,
    progress: Path | None = None,
    manifest: Path | None = None,
    week: str | None = None,
    cluster: str = "default",
    cluster_tz: str = "UTC",
    live_sacct: bool = False,
    ledger: Path | None = None,
    report_root: Path = Path("trainbudget-reports"),
) -> dict:
    """Review one ISO week (default: the week that just ended) and publish its report."""
    logger = get_run_logger()
    week = week or previous_week()
    bounds = week_bounds(week, cluster_tz)
    campaign = load_plan(plan).campaign
    folder = Path(report_root) / f"weekly-review-{campaign}-{week}"
    book = Ledger.open(ledger)
    try:
        with book.transaction():
            the_plan = land_plan_task(book, plan)
            files = list(sacct or [])
            if live_sacct:
                files.append(run_sacct_task(book.path.parent / "sacct", bounds, cluster_tz))
            for path in files:
                land_sacct_task(book, path, cluster=cluster, cluster_tz=cluster_tz)
            for path, lander in (
                (registry, land_registry_task),
                (progress, land_progress_task),
                (manifest, land_manifest_task),
            ):
                if path is not None:
                    lander(book, path)
            quality = check_quality(book, bounds, folder / "data-docs", f"{campaign}-{week}")
            require_quality(quality)
            folder.mkdir(parents=True, exist_ok=True)
            result = reconcile(book, the_plan, bounds)
            gates = decide(the_plan, result, bounds)
            for outcome in gates:
                record_decision(book, outcome, campaign_id=campaign, run_id=f"weekly-{week}")
        # The week's jobs as JSON for the report: output, written once the ledger has committed.
        result = write_jobs_task(book, result, folder / "jobs.json")
    except DataQualityError as exc:
        # The transaction is rolled back; say so where the team looks, then fail the run.
        create_markdown_artifact(
            markdown=f"# Weekly review {campaign} {week}: not reported\n\n{exc}\n\n"
            f"Nothing from this run was kept in the ledger. Data Docs: "
            f"{(folder / 'data-docs' / 'index.html').resolve()}\n",
            key=artifact_key(campaign, "weekly", "verdict"),
            description="The data-quality checkpoint failed",
        )
        raise
    finally:
        book.close()
    for outcome in gates:
        emit_gate_event(outcome, campaign)
        logger.info("%s: %s — %s", outcome.gate, outcome.outcome, outcome.sentence)
    report = build_weekly_report(the_plan, week, result, gates, quality, folder)
    files_written = publish_report(report, folder, f"{campaign}-weekly")
    logger.info("weekly review %s %s: report at %s", campaign, week, files_written.html.resolve())
    return {
        "campaign": campaign,
        "week": week,
        "report": str(files_written.html.resolve()),
        "gates": {g.gate: g.outcome for g in gates},
    }

"""Weekly review (scheduled, Monday 06:00): land the week's records, check their quality,
reconcile against the plan, decide, and publish the report.

Seed 000's control loop. Each task is a step of `trainbudget.weekly` (`trainbudget reconcile`
lands and reviews with the same steps). The landing, the quality check, the review and the
gate decisions share one ledger transaction: a failed data-quality check fails the run and
rolls back everything it landed, so nothing is ever reported from bad data.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.runtime import flow_run

from flow_support import finished, publish, say_when_refused
from ledger_slot import ledger_slot
from trainbudget import weekly
from trainbudget.ledger import Ledger
from trainbudget.ledger.retry import retrying
from trainbudget.plan import load_plan
from trainbudget.reconcile.review import write_jobs

prepare = task(weekly.prepare_week, name="prepare", cache_policy=NO_CACHE)
# Not retried: it writes inside the run's open transaction (a retry would land on top of
# the failed attempt's writes).
land = task(weekly.land_records, name="land-records", cache_policy=NO_CACHE)
check = task(weekly.check_quality, name="data-quality-checkpoint", cache_policy=NO_CACHE)
review = task(weekly.review_week, name="reconcile", cache_policy=NO_CACHE)
decide = task(weekly.decide_week, name="gates", cache_policy=NO_CACHE)
write_jobs_task = task(write_jobs, name="write-jobs", cache_policy=NO_CACHE)
publish_run = task(publish, name="publish-report", cache_policy=NO_CACHE)


def _run_name() -> str:
    parameters = flow_run.parameters
    campaign = load_plan(parameters["plan"]).campaign
    return f"{campaign}-{parameters.get('week') or weekly.previous_week()}"


@flow(name=weekly.FLOW, flow_run_name=_run_name)
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
    """Review one ISO week (default: the week that just ended); returns summary.json's object.

    The run ends in a state named for the continuation verdict (Continue, Over ceiling, ...).
    """
    inputs = weekly.WeeklyInputs(
        list(sacct or []), registry, progress, manifest, plan, week or weekly.previous_week(),
        cluster_tz, cluster, live=live_sacct, report_root=report_root,
    )  # fmt: skip
    prepared = prepare(inputs)
    folder = weekly.report_folder(prepared)
    key = f"{prepared.plan.campaign}-weekly"
    refused = say_when_refused(
        f"Weekly review {folder.name}", f"{key}-verdict", folder / "data-docs"
    )

    def write() -> tuple:
        # One transaction; on the team ledger a conflicting commit runs it again whole.
        with Ledger.open(ledger) as book:
            with book.transaction():
                landed = land(book, prepared)
                quality = check(book, prepared, folder / "data-docs")
                the_plan, mfu, result = review(book, prepared)
                gates = decide(book, prepared, the_plan, result)
            folder.mkdir(parents=True, exist_ok=True)
            jobs = write_jobs_task(book, result, folder / "jobs.json")
            return landed, quality, the_plan, mfu, jobs, gates

    with refused, ledger_slot(ledger):
        written = retrying(write, what="the weekly review's ledger writes")
    landed, quality, the_plan, mfu, result, gates = written
    quarantine = weekly.landed_quarantine(landed)
    done = weekly.WeeklyResult(prepared, the_plan, mfu, quality, result, gates, quarantine)
    summary = weekly.summarize(done, (folder / "report.html").resolve())
    return finished(publish_run(weekly.build_report(done), summary, key))

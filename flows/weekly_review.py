"""Weekly review (scheduled, Monday 06:00): land the week's records, check their quality,
reconcile against the plan, decide, and publish the report.

Seed 000's control loop, written once in `trainbudget.weekly` (`trainbudget reconcile` runs
the same sequence stopped after the review): this flow hands it the Prefect step runner, so
each step is a task. The landing, the quality check, the review and the gate decisions share
one ledger transaction: a failed data-quality check fails the run and rolls back everything it
landed, so nothing is ever reported from bad data.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow

from prefect_steps import run_procedure
from trainbudget import weekly


@flow(name=weekly.FLOW)
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

    The run is named `<campaign>-<week>` and ends in a state named for the continuation
    verdict (Continue, Over ceiling, ...).
    """
    inputs = weekly.WeeklyInputs(
        sacct=list(sacct or []),
        registry=registry,
        progress=progress,
        manifest=manifest,
        plan=plan,
        week=week,
        cluster_tz=cluster_tz,
        cluster=cluster,
        live=live_sacct,
        report_root=report_root,
    )
    return run_procedure(weekly.run_weekly, inputs, ledger, "the weekly review's ledger writes")

"""One `trainbudget reconcile` run: land every input, then review, all in one transaction."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from trainbudget.errors import InputError
from trainbudget.ledger import Ledger
from trainbudget.reconcile.land import (
    Landed,
    land_manifest,
    land_progress,
    land_registry,
    land_sacct,
)
from trainbudget.reconcile.review import Review, review, write_jobs
from trainbudget.reconcile.week import week_bounds, zone

if TYPE_CHECKING:
    from trainbudget.plan import Plan

# DuckDB's own buffers; Python adds the JSON text of the jobs on top (bench: ≤ 2 GB RSS).
DUCKDB_MEMORY_LIMIT = "1200MB"


@dataclass(frozen=True)
class ReconcileInputs:
    """The command's options: files to land and how to read and scope them."""

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


@dataclass(frozen=True)
class ReconcileResult:
    """What was landed, the review, and warnings for stderr."""

    week: str | None
    week_bounds: tuple[datetime, datetime] | None
    landed: list[Landed]
    plan: Plan | None
    review: Review
    warnings: list[str]


def run_reconcile(
    ledger: Ledger, inputs: ReconcileInputs, jobs_path: Path | None
) -> ReconcileResult:
    """Land the inputs and reconcile; a bad input leaves the ledger as it was.

    The week's jobs are written as a JSON array to `jobs_path` (after the commit) unless it
    is None: a table for a person needs only the largest jobs.
    """
    zone(inputs.cluster_tz)
    ledger.execute("ledger/memory_limit", limit=DUCKDB_MEMORY_LIMIT)
    bounds = week_bounds(inputs.week, inputs.cluster_tz) if inputs.week else None
    warnings: list[str] = []
    landed: list[Landed] = []
    with ledger.transaction():
        files = list(inputs.sacct)
        if inputs.live:
            from trainbudget.reconcile.live import run_sacct

            files.append(run_sacct(ledger.path.parent / "sacct", bounds, inputs.cluster_tz))
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
        if not ledger.query("reconcile/review/sacct_present"):
            raise InputError("no scheduler records in the ledger: give --sacct FILE (or --live)")
        plan = _plan(ledger, inputs.plan)
        if plan is None:
            warnings.append("no plan given or landed: variance against plan is skipped (--plan)")
        result = review(ledger, plan, bounds, inputs.clock_tolerance_s)
    if jobs_path is not None:
        result = write_jobs(ledger, result, jobs_path)
    for item in landed:
        if item.rows_quarantined:
            warnings.append(
                f"{item.path}: {item.rows_quarantined} rows quarantined "
                "(see `trainbudget ledger info`; table quarantine)"
            )
        if item.already_landed:
            warnings.append(f"{item.path}: already landed (same content); nothing new")
    return ReconcileResult(inputs.week, bounds, landed, plan, result, warnings)


def _plan(ledger: Ledger, path: Path | None) -> Plan | None:
    """The plan given (landed now), else the newest landed one; pydantic loads only if used."""
    if path:
        from trainbudget.plan import land_plan

        return land_plan(ledger, path)
    rows = ledger.query("reconcile/review/newest_plan")
    if not rows:
        return None
    from trainbudget.plan import Plan

    return Plan.model_validate_json(rows[0][0])

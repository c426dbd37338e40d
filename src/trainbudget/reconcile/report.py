"""The reconcile command's output: the JSON payload (public contract) and the rich render."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from trainbudget.gates.weekly import with_continuation
from trainbudget.output import dumps
from trainbudget.reconcile.variance import gpu_hours

if TYPE_CHECKING:
    from rich.console import Console

    from trainbudget.weekly import ReconcileResult


def reconcile_payload(result: ReconcileResult) -> dict[str, Any]:
    """Contract keys: jobs, totals, variance, diagnosis (DESIGN.md); the rest is detail."""
    rv = result.review
    start, end = result.week_bounds or (None, None)
    return {
        "week": result.week,
        "week_start": start,
        "week_end": end,
        "landed": [vars(item) for item in result.landed],
        "totals": rv.totals,
        "variance": with_continuation(rv.variance),
        "diagnosis": rv.diagnosis,
        "breakdown": rv.breakdown,
        "failure_fraction": rv.failure_fraction,
        "estimate_audit": rv.audit,
        "calibration": rv.calibration,
    }


def write_json(payload: dict[str, Any], jobs_path: Path, out: BinaryIO) -> None:
    """Write `payload` plus `"jobs": <the array in jobs_path>` as one JSON object.

    The jobs array (hundreds of MB for a million-line week) is copied from the file DuckDB
    wrote instead of being parsed and re-serialised.
    """
    body = dumps({**payload, "jobs": None})
    marker = b'"jobs":null}'
    if not body.endswith(marker):
        raise AssertionError("jobs must be the last key of the reconcile payload")
    out.write(body[: -len(b"null}")])
    with jobs_path.open("rb") as jobs:
        shutil.copyfileobj(jobs, out, 1 << 20)
    out.write(b"}\n")
    out.flush()


def _n(value: Any, places: int = 2) -> str:
    return "-" if value is None else f"{float(value):,.{places}f}"


def render_reconcile(console: Console, payload: dict[str, Any], result: ReconcileResult) -> None:
    """Totals, the largest jobs, actual versus plan, and the diagnosis in the seed's order."""
    from rich.table import Table

    t = payload["totals"]
    scope = f"week {payload['week']}" if payload["week"] else "everything landed"
    console.print(
        f"[bold]Reconciliation, {scope}[/bold]: {t['jobs']:,} allocations, "
        f"{_n(t['allocated_gpu_hours'])} GPU-hours allocated"
    )
    totals = Table(title="GPU-hours by class")
    for column in ("allocated", "useful", "recovery", "lost", "unverified"):
        totals.add_column(column, justify="right")
    totals.add_row(
        *(
            _n(t[f"{c}_gpu_hours"])
            for c in ("allocated", "useful", "recovery", "lost", "unverified")
        )
    )
    console.print(totals)
    jobs = Table(title="Largest allocations")
    for column in (
        "job",
        "state",
        "class",
        "GPUs",
        "allocated",
        "useful",
        "recovery",
        "lost",
        "unverified",
        "flags",
    ):
        jobs.add_column(
            column, justify="left" if column in {"job", "state", "class", "flags"} else "right"
        )
    for j in result.review.top_jobs:
        hours = (
            _n(gpu_hours(j[c])) for c in ("allocated", "useful", "recovery", "lost", "unverified")
        )
        jobs.add_row(
            j["job_id"], j["state"], j["work_class"], str(j["gpus"]), *hours,
            ", ".join(j["flags"] or []),
        )  # fmt: skip
    console.print(jobs)
    variance = payload["variance"]
    if variance:
        table = Table(title=f"Actual versus plan ({variance['campaign']}), campaign to date")
        for column in ("work class", "planned", "actual", "variance", "variance $", "remaining"):
            table.add_column(column, justify="left" if column == "work class" else "right")
        for row in variance["by_work_class"]:
            table.add_row(
                row["work_class"], _n(row["planned_gpu_hours"]), _n(row["actual_gpu_hours"]),
                _n(row["variance_gpu_hours"]), _n(row["variance_usd"]),
                _n(row["remaining_gpu_hours"]),
            )  # fmt: skip
        console.print(table)
        console.print(variance["continuation"]["sentence"])
    if payload["failure_fraction"] is not None:
        console.print(f"measured failure fraction f (main) = {_n(payload['failure_fraction'], 3)}")
    console.print("[bold]Diagnosis[/bold]")
    for number, finding in enumerate(payload["diagnosis"], start=1):
        console.print(f"{number}. {finding['step']}: {finding['summary']}")

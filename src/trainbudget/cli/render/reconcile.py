"""The reconcile stage on the terminal: GPU-hours by class, largest jobs, plan, diagnosis."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from trainbudget.cli.render.goodput import render_goodput
from trainbudget.cli.render.text import number_column, print_table
from trainbudget.reconcile.variance import gpu_hours

_CLASSES = ("allocated", "useful", "recovery", "lost", "unverified")


def _n(value: Any, places: int = 2) -> str:
    return "-" if value is None else f"{float(value):,.{places}f}"


def render_reconcile(
    console: Console, payload: dict[str, Any], top_jobs: list[dict[str, Any]]
) -> None:
    """Totals, the largest jobs (the review's `top_jobs`, GPU-seconds), actual versus plan,
    and the diagnosis in the seed's order."""
    t = payload["totals"]
    scope = f"week {payload['week']}" if payload["week"] else "everything landed"
    console.print(
        f"[bold]Reconciliation, {scope}[/bold]: {t['jobs']:,} allocations, "
        f"{_n(t['allocated_gpu_hours'])} GPU-hours allocated"
    )
    totals = Table(title="GPU-hours by class")
    for column in _CLASSES:
        number_column(totals, column)
    totals.add_row(*(_n(t[f"{c}_gpu_hours"]) for c in _CLASSES))
    console.print(totals)
    jobs = Table(title="Largest allocations, GPU-hours")
    jobs.add_column("job", no_wrap=True)
    jobs.add_column("state", no_wrap=True)
    jobs.add_column("class")
    number_column(jobs, "GPUs")
    for column in _CLASSES:
        number_column(jobs, column)
    jobs.add_column("flags")
    for j in top_jobs:
        hours = (_n(gpu_hours(j[c])) for c in _CLASSES)
        jobs.add_row(
            j["job_id"], j["state"], j["work_class"], str(j["gpus"]), *hours,
            ", ".join(j["flags"] or []),
        )  # fmt: skip
    # Narrow terminals lose the GPU count first, then the work class, then the finer split.
    print_table(console, jobs, ("GPUs", "class", "unverified", "recovery"))
    variance = payload["variance"]
    if variance:
        table = Table(title=f"Actual versus plan ({variance['campaign']}), campaign to date")
        table.add_column("work class")
        for column in ("planned", "actual", "variance", "variance $", "remaining"):
            number_column(table, column)
        for row in variance["by_work_class"]:
            table.add_row(
                row["work_class"], _n(row["planned_gpu_hours"]), _n(row["actual_gpu_hours"]),
                _n(row["variance_gpu_hours"]), _n(row["variance_usd"]),
                _n(row["remaining_gpu_hours"]),
            )  # fmt: skip
        print_table(console, table, ("variance $", "remaining"))
        console.print(variance["continuation"]["sentence"])
    render_goodput(console, payload["goodput"])
    if payload.get("billing"):
        render_billing(console, payload["billing"])
    if payload["failure_fraction"] is not None:
        console.print(
            f"measured failure fraction f (main run) = {_n(payload['failure_fraction'], 3)}"
        )
    console.print("[bold]Diagnosis[/bold]")
    for number, finding in enumerate(payload["diagnosis"], start=1):
        console.print(f"{number}. {finding['step']}: {finding['summary']}")


def render_billing(console: Console, billing: dict[str, Any]) -> None:
    """The week's billing-hours (AllocTRES billing=N × elapsed), to date by class."""
    if not billing["billed_jobs"] and not billing["by_class"]:
        return
    classes = ", ".join(
        f"{row['work_class']} {_n(row['billing_hours'], 1)}" for row in billing["by_class"]
    )
    unbilled = billing["unbilled_jobs"]
    console.print(
        f"Billing units: {_n(billing['allocated_billing_hours'], 1)} billing-hours this scope "
        f"({billing['billed_jobs']:,} jobs with billing=N"
        + (f", {unbilled:,} without" if unbilled else "")
        + f"); to date {_n(billing['to_date_billing_hours'], 1)} ({classes or 'none'})"
    )

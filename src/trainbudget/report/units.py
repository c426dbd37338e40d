"""The weekly report's "cluster's own units" section: billing-hours by class and by week
(reconcile/billing.py), and what disagrees with the plan's billing weights."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trainbudget.report import format as fmt
from trainbudget.report.format import Column
from trainbudget.report.model import Table

if TYPE_CHECKING:
    from trainbudget.reconcile.review import Review

BILLING_COLUMNS = [
    Column("label", "Work class or week"),
    Column("billing_hours", "Billing-hours", fmt.gpu_hours),
]
DISAGREE_COLUMNS = [
    Column("partition", "Partition"),
    Column("cpus", "CPUs", fmt.number),
    Column("mem_gib", "Memory (GiB)", fmt.number),
    Column("gpus", "GPUs", fmt.number),
    Column("recorded_billing", "Recorded billing", fmt.number),
    Column("plan_billing", "Plan's billing", fmt.number),
    Column("jobs", "Jobs", fmt.number),
]
BILLING_NOTE = (
    "Billing-hours = the billing TRES each allocation's AllocTRES recorded (billing=N, an "
    "integer: Slurm truncates) × its elapsed time, for the jobs the review read (the week's "
    "and the tracked ones); the classes and the weeks each sum to the campaign to date."
)


def billing_section(review: Review) -> tuple[list[str], list[Table]]:
    """Summary lines and tables of the review's billing; nothing when no job was billed."""
    billing = review.billing
    if billing is None or not (billing.billed_jobs or billing.by_class):
        return [], []
    to_date = billing.to_date_seconds()
    from trainbudget.reconcile.billing import billing_hours

    lines = [
        f"Billing units: {fmt.gpu_hours(billing.allocated_billing_hours)} billing-hours this "
        f"week ({fmt.plural(billing.billed_jobs, 'job')} with billing=N"
        + (f", {billing.unbilled_jobs} without" if billing.unbilled_jobs else "")
        + f"); {fmt.gpu_hours(billing_hours(to_date))} to date."
    ]
    rows = [
        {"label": r.get("work_class") or r.get("week"), "billing_hours": r["billing_hours"]}
        for r in (*billing.by_class, *billing.by_week)
    ]
    rows.append({"label": "campaign to date", "billing_hours": billing_hours(to_date)})
    tables = [Table.of("Billing-hours by class and by week", rows, BILLING_COLUMNS, BILLING_NOTE)]
    if billing.disagreements or billing.unknown_partitions:
        lines.append('Billing disagrees with the plan\'s weights: see "Billing against the plan".')
        tables.append(
            Table.of(
                "Billing against the plan",
                [*billing.disagreements, *billing.unknown_partitions],
                DISAGREE_COLUMNS,
                "Each distinct allocation shape whose recorded billing the plan's "
                "cluster.billing (rule "
                f"{billing.rule}) does not give; an empty plan's billing is a partition the "
                "plan does not name.",
            )
        )
    return lines, tables

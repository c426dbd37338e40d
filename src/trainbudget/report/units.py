"""The weekly report's "cluster's own units" section: billing-hours by class and by week
(reconcile/billing.py), and what disagrees with the plan's billing weights."""

from __future__ import annotations

from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from trainbudget.report import format as fmt
from trainbudget.report.format import Column
from trainbudget.report.model import Chart, Table

if TYPE_CHECKING:
    from trainbudget.reconcile.burndown import BurnDown
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


def burn_down_figure(weeks: list[tuple[date, float]], burn: BurnDown) -> Any:
    """Cumulative GPU-hours by week to date (solid), the projection at the measured rate
    (dashed) with the band of the window's slowest and fastest week, the ceiling, and the day
    the allocation runs out at its own measured rate (a vertical line: it is in its own unit).

    weeks: (Monday, allocated GPU-hours of that week), in order.
    """
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter

    from trainbudget.report.charts import _figure, _legend_outside

    figure, axes = _figure(width=9.0)
    days, total = [], 0.0
    for monday, hours in weeks:
        total += hours
        days.append((monday + timedelta(days=7), total))
    if days:
        axes.plot([d for d, _ in days], [t for _, t in days], marker="o", label="actual to date")
    start = days[-1] if days else None
    rate = float(burn.weekly_rate_gpu_hours)
    ceiling = float(burn.ceiling_gpu_hours)
    if start is not None and rate > 0:
        reach = max(ceiling - start[1], 0.0) / rate * 7 + 14
        horizon = start[0] + timedelta(days=min(reach, 7 * 104))
        if burn.allocation_runs_out is not None:  # show the day it runs out, up to two years
            latest = start[0] + timedelta(days=7 * 104)
            horizon = max(horizon, min(burn.allocation_runs_out + timedelta(days=7), latest))
        span = (horizon - start[0]).days
        axes.plot(
            [start[0], horizon],
            [start[1], start[1] + rate * span / 7],
            "--",
            label="projection at the measured rate",
        )
        axes.fill_between(
            [start[0], horizon],
            [start[1], start[1] + _band_rate(burn, weeks, "slow") * span / 7],
            [start[1], start[1] + _band_rate(burn, weeks, "fast") * span / 7],
            alpha=0.15,
            label="band: slowest to fastest week of the window",
        )
    axes.axhline(ceiling, color="#cf222e", linestyle=":", label="ceiling")
    if burn.allocation_runs_out is not None:
        axes.axvline(
            burn.allocation_runs_out,
            color="#8250df",
            linestyle="-.",
            label=f"allocation runs out ({burn.allocation_runs_out.isoformat()})",
        )
    axes.set_ylabel("GPU-hours, campaign to date")
    axes.set_title("Burn-down at the measured weekly rate")
    locator = AutoDateLocator(maxticks=8)
    axes.xaxis.set_major_locator(locator)
    axes.xaxis.set_major_formatter(ConciseDateFormatter(locator))
    _legend_outside(figure, axes)
    return figure


def _band_rate(burn: BurnDown, weeks: list[tuple[date, float]], which: str) -> float:
    """The slowest or fastest week of the measured window, GPU-hours."""
    window = [hours for _, hours in weeks[-burn.weeks_measured :]] if weeks else [0.0]
    missing = burn.weeks_measured - len(window)
    values = window + [0.0] * max(missing, 0)
    return min(values) if which == "slow" else max(values)


def burn_down_section(review: Review) -> tuple[list[str], list[Chart]]:
    """The burn-down's sentence and chart (reconcile/burndown.py); nothing without one."""
    burn = review.burn_down
    if burn is None:
        return [], []
    from trainbudget.report.charts import _png

    line = f"Burn-down: {burn.sentence()}"
    if burn.allocation_unit is not None and burn.weekly_rate_allocation is not None:
        unit = "billing-hours" if burn.allocation_unit == "billing_hours" else "GPU-hours"
        line += (
            f" The allocation has {fmt.gpu_hours(burn.allocation_remaining)} {unit} left, "
            f"burned at {fmt.gpu_hours(burn.weekly_rate_allocation)} a week."
        )
    weeks = [
        (r["week_start"].date(), float(r["allocated_gpu_hours"]))
        for r in review.accounting_by_week
        if r.get("week_start") is not None
    ]
    caption = (
        f"GPU-hours to date by week, and at the measured rate (the mean of the last "
        f"{burn.weeks_measured} week(s)) to the ceiling; the band runs from the window's "
        "slowest to its fastest week."
    )
    if burn.allocation_runs_out is not None:
        caption += " The vertical line is the day the allocation runs out at its own rate."
    chart = Chart("Burn-down", _png(burn_down_figure(weeks, burn)), caption)
    return [line], [chart]

"""The cluster's own units in the weekly review: each allocation's recorded `billing` TRES
(sacct AllocTRES `billing=N`), billing-hours = N × elapsed, by class and by week, and the
shapes whose recorded billing disagrees with the plan's weights (estimate/billing.py computes
what the plan says Slurm would bill).

sacct(1) prints AllocTRES as `billing=24,cpu=1,mem=199G,node=1`; Slurm stores the billing as
an integer (doc/html/tres.shtml), so N × seconds is exact in integers. The jobs the review reads
are those of the reviewed week and the tracked ones (reconcile/review.py); billing by week
counts those, and says how many GPU-seconds of earlier untracked jobs it did not read.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.reconcile.history import records_by_week, review_weeks
from trainbudget.reconcile.variance import gpu_hours

if TYPE_CHECKING:
    from trainbudget.plan import Plan
    from trainbudget.reconcile.session import Session

GIB = 1024**3


def billing_hours(seconds: int) -> Decimal:
    """Billing-seconds as billing-hours (seconds ÷ 3600), as the review's GPU-hours are
    (reconcile/variance.py: Decimal, 28 significant digits); the seconds are the exact figure."""
    return gpu_hours(seconds)


@dataclass(frozen=True)
class BillingReview:
    """The review's billing: the week's total, campaign to date by class, per week, and the
    shapes whose recorded billing the plan's weights do not give."""

    allocated_billing_seconds: int
    billed_jobs: int
    unbilled_jobs: int
    by_class: tuple[dict[str, Any], ...]
    by_week: tuple[dict[str, Any], ...]
    disagreements: tuple[dict[str, Any], ...] = ()
    unknown_partitions: tuple[dict[str, Any], ...] = ()
    checked: bool = False  # the plan has cluster.billing, so shapes were checked against it
    rule: str | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def allocated_billing_hours(self) -> Decimal:
        return billing_hours(self.allocated_billing_seconds)

    def to_date_seconds(self) -> int:
        return sum(int(row["billing_seconds"]) for row in self.by_class)


def review_billing(
    session: Session,
    plan: Plan | None,
    week: tuple[datetime, datetime] | None,
    tz: str,
) -> BillingReview:
    """Build job_billing over the review's job_accounting and sum it (sql/reconcile/billing/)."""
    session.build("job_billing", week_end=week[1] if week else None)
    session.build("job_billing_all")  # with the closed tracked jobs' rows (closed_jobs.py)
    ((billed, unbilled, allocated),) = session.query("reconcile/billing/totals")
    by_class = tuple(
        {
            "work_class": r["work_class"],
            "billing_hours": billing_hours(int(r["billing_seconds"])),
            "billing_seconds": int(r["billing_seconds"]),
            "billed_jobs": int(r["billed_jobs"]),
        }
        for r in session.records("reconcile/billing/by_class")
    )
    by_week = _by_week(session, week, tz)
    result = BillingReview(
        allocated_billing_seconds=int(allocated),
        billed_jobs=int(billed),
        unbilled_jobs=int(unbilled),
        by_class=by_class,
        by_week=by_week,
    )
    if plan is None or plan.cluster is None or plan.cluster.billing is None:
        return result
    disagree, unknown = check_shapes(session.records("reconcile/billing/shapes"), plan)
    return replace(
        result,
        disagreements=disagree,
        unknown_partitions=unknown,
        checked=True,
        rule=plan.cluster.billing.rule,
    )


def _by_week(
    session: Session, week: tuple[datetime, datetime] | None, tz: str
) -> tuple[dict[str, Any], ...]:
    """Billing-seconds per ISO week of `tz`, from the first read job to the reviewed week's
    end (or the last job's week), weeks without billing left out."""
    ((first, last),) = session.query("reconcile/summarize/accounting_span")
    if first is None:
        return ()
    weeks = review_weeks(first, last, week, tz)
    if not weeks:
        return ()
    rows = records_by_week(session, "reconcile/billing/by_week", weeks, tz)
    return tuple(
        {
            "week": r["week"],
            "week_start": bounds[0],
            "billing_hours": billing_hours(int(r["billing_seconds"])),
            "billing_seconds": int(r["billing_seconds"]),
        }
        for bounds, r in zip(weeks, rows, strict=True)
        if int(r["billing_seconds"])
    )


def check_shapes(
    shapes: list[dict[str, Any]], plan: Plan
) -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    """The billed shapes (partition, CPUs, memory, GPUs, nodes, recorded billing) whose
    recorded billing differs from the plan's weights under its rule, and those in a partition
    the plan's `billing.partitions` does not name (with no default weights to fall back on,
    or beside partitions it does name)."""
    from trainbudget.estimate.billing import billing

    assert plan.cluster is not None and plan.cluster.billing is not None
    section = plan.cluster.billing
    disagree, unknown = [], []
    for shape in shapes:
        partition = shape["partition"]
        listed = bool(section.partitions)
        if listed and partition not in section.partitions:
            unknown.append(_shape_row(shape, None))
            if section.weights is None:
                continue
        weights = section.weights_for(partition)
        assert weights is not None
        counts = {
            "cpu": shape["alloc_cpus"] or 0,
            "mem_gib": Decimal(shape["alloc_mem_bytes"] or 0) / GIB,
            "gpu": shape["gpus"] or 0,
            "node": shape["nnodes"] or 0,
        }
        expected = billing(counts, weights.given(), section.rule)
        if expected != shape["billing"]:
            disagree.append(_shape_row(shape, expected))
    return tuple(disagree), tuple(unknown)


def _shape_row(shape: dict[str, Any], expected: int | None) -> dict[str, Any]:
    mem = shape["alloc_mem_bytes"]
    return {
        "partition": shape["partition"],
        "cpus": shape["alloc_cpus"],
        "mem_gib": None if mem is None else Decimal(mem) / GIB,
        "gpus": shape["gpus"],
        "nodes": shape["nnodes"],
        "recorded_billing": shape["billing"],
        "plan_billing": expected,
        "jobs": int(shape["jobs"]),
        "job_ids": list(shape["job_ids"]),
    }


def billing_payload(result: BillingReview) -> dict[str, Any]:
    """`reconcile --json`'s `billing`: the week's billing-hours, to date by class, by week,
    and what disagrees with the plan."""
    return {
        "allocated_billing_hours": result.allocated_billing_hours,
        "allocated_billing_seconds": result.allocated_billing_seconds,
        "billed_jobs": result.billed_jobs,
        "unbilled_jobs": result.unbilled_jobs,
        "to_date_billing_hours": billing_hours(result.to_date_seconds()),
        "by_class": list(result.by_class),
        "by_week": list(result.by_week),
        "checked_against_plan": result.checked,
        "rule": result.rule,
        "disagreements": list(result.disagreements),
        "unknown_partitions": list(result.unknown_partitions),
    }


def billing_finding(result: BillingReview) -> dict[str, Any] | None:
    """A diagnosis entry when recorded billing disagrees with the plan (None otherwise)."""
    if not (result.disagreements or result.unknown_partitions):
        return None
    jobs = sum(r["jobs"] for r in result.disagreements)
    strays = sum(r["jobs"] for r in result.unknown_partitions)
    parts = []
    if jobs:
        first = result.disagreements[0]
        parts.append(
            f"{jobs} job(s) were billed other than the plan's weights give (e.g. partition "
            f"{first['partition']}: recorded {first['recorded_billing']}, plan "
            f"{first['plan_billing']}): a weight may be mis-declared"
        )
    if strays:
        names = sorted({str(r["partition"]) for r in result.unknown_partitions})
        known = ", ".join(names)
        parts.append(f"{strays} job(s) ran in partitions the plan does not know: {known}")
    return {
        "step": "billing-disagrees",
        "summary": "; ".join(parts) + ".",
        "jobs": jobs + strays,
        "disagreements": list(result.disagreements),
        "unknown_partitions": list(result.unknown_partitions),
    }

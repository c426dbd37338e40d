"""The identities the weekly report prints, checked on the review when its result is built.

`ReconcileResult` (reconcile/report.py) calls `check_review` from its constructor, so a
broken identity is a `BrokenIdentity` (a defect: the CLI reports it as an internal error) and
never a report. Which table each identity reads is said beside it; the comparisons and their
tolerance are estimate/invariants.py's (GPU-seconds exactly, GPU-hours to 10⁻¹⁸).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from trainbudget.estimate.invariants import (
    BrokenIdentity,
    exact,
    exact_equal,
    exact_sum,
    hours_equal,
)
from trainbudget.reconcile.goodput import failure_fraction, total

if TYPE_CHECKING:
    from trainbudget.reconcile.review import Review

__all__ = ["BrokenIdentity", "check_review"]

CLASSES = ("useful", "recovery", "lost", "unverified")


def check_review(review: Review) -> None:
    """Every identity of the weekly report (report/weekly.py, report/goodput.py) on `review`."""
    check_totals(review)
    check_by_week(review)
    check_variance(review)
    check_goodput(review)
    check_failure_fraction(review)
    check_sensitivity(review)
    check_jobs(review)
    check_billing(review)
    check_burn_down(review)


def check_totals(review: Review) -> None:
    """The summary's first line and "Diagnosis: allocated hours": the week's allocated =
    useful + recovery + lost + unverified (GPU-seconds)."""
    t = review.totals
    if "allocated_gpu_seconds" not in t:
        return
    exact_equal(
        "week's allocated = useful + recovery + lost + unverified",
        t["allocated_gpu_seconds"],
        sum(t[f"{c}_gpu_seconds"] for c in CLASSES),
    )


def check_by_week(review: Review) -> None:
    """ "Allocated GPU-hours by week": each row's classes sum to its allocation; the rows of the
    reviewed weeks sum to the week's totals, class by class; all rows sum to the campaign to
    date ("Actual versus plan by work class", the summary's "Campaign to date")."""
    rows = review.accounting_by_week
    for row in rows:
        if "allocated_gpu_seconds" not in row:
            return  # rows made by hand (a report test), not by the review
        exact_equal(
            f"{row['week']}: allocated = useful + recovery + lost + unverified",
            row["allocated_gpu_seconds"],
            sum(row[f"{c}_gpu_seconds"] for c in CLASSES),
        )
        hours_equal(
            f"{row['week']}: allocated GPU-hours",
            row["allocated_gpu_hours"],
            Fraction(row["allocated_gpu_seconds"], 3600),
        )
    t = review.totals
    if review.week is not None and "allocated_gpu_seconds" in t and rows:
        inside = [
            r
            for r in rows
            if r.get("week_start") is not None
            and review.week[0] <= r["week_start"] < review.week[1]
        ]
        for c in ("allocated", *CLASSES):
            exact_equal(
                f"the reviewed weeks' rows by week ({c}) = the week's {c}",
                sum(r[f"{c}_gpu_seconds"] for r in inside),
                t[f"{c}_gpu_seconds"],
            )
    variance = review.variance
    if variance is not None and "actual_gpu_seconds" in variance:
        exact_equal(
            "the weeks' allocated GPU-seconds = the campaign to date",
            sum(r["allocated_gpu_seconds"] for r in rows),
            variance["actual_gpu_seconds"],
        )


def check_variance(review: Review) -> None:
    """ "Actual versus plan by work class" and the summary's "Campaign to date … projected":
    the classes sum to the campaign's allocation; each variance = actual − planned; remaining
    = max(planned − actual, 0); projected = spent + remaining; within the ceiling."""
    v = review.variance
    if v is None:
        return
    rows = v["by_work_class"]
    if "actual_gpu_seconds" in v:
        exact_equal(
            "work classes' actual GPU-seconds = the campaign to date",
            sum(r["actual_gpu_seconds"] for r in rows),
            v["actual_gpu_seconds"],
        )
    hours_equal(
        "work classes' actual = campaign to date",
        exact_sum(r["actual_gpu_hours"] for r in rows),
        v["actual_gpu_hours"],
    )
    hours_equal(
        "work classes' planned = planned",
        exact_sum(r["planned_gpu_hours"] for r in rows),
        v["planned_gpu_hours"],
    )
    for r in rows:
        name = r["work_class"]
        if "actual_gpu_seconds" in r:
            hours_equal(
                f"{name}: actual", r["actual_gpu_hours"], Fraction(r["actual_gpu_seconds"], 3600)
            )
        hours_equal(
            f"{name}: actual − planned",
            r["variance_gpu_hours"],
            exact(r["actual_gpu_hours"]) - exact(r["planned_gpu_hours"]),
        )
        hours_equal(
            f"{name}: remaining",
            r["remaining_gpu_hours"],
            max(exact(r["planned_gpu_hours"]) - exact(r["actual_gpu_hours"]), Fraction(0)),
        )
    hours_equal(
        "remaining = the rows' remaining",
        v["remaining_plan_gpu_hours"],
        exact_sum(r["remaining_gpu_hours"] for r in rows),
    )
    hours_equal(
        "projected = spent + remaining",
        v["projected_gpu_hours"],
        exact(v["actual_gpu_hours"]) + exact(v["remaining_plan_gpu_hours"]),
    )
    exact_equal(
        "within the ceiling",
        v["within_ceiling"],
        exact(v["projected_gpu_hours"]) <= exact(v["ceiling_gpu_hours"]),
    )


def check_goodput(review: Review) -> None:
    """ "Goodput of the main run by week": each week's productive + badput causes = its
    allocation (useful + recovery + lost + unverified); the total row = the weeks summed."""

    for week in review.goodput:
        exact_equal(
            f"goodput {week.week}: the classes = allocated",
            sum(week.by_class().values()),
            week.allocated,
        )
        if any(v < 0 for v in week.causes.values()) or week.productive < 0:
            raise BrokenIdentity(f"goodput {week.week}: a negative part {week.causes}")
    whole = total(review.goodput, None)
    exact_equal(
        "goodput total = the weeks", whole.allocated, sum(w.allocated for w in review.goodput)
    )


def check_failure_fraction(review: Review) -> None:
    """The summary's measured f = (lost + recovery) ÷ useful of the goodput table's total row
    (one main-run scope for f, ETTR and goodput; reconcile/goodput.py)."""

    expected = failure_fraction(total(review.goodput, None)) if review.goodput else None
    if review.failure_fraction is None and expected is None:
        return
    exact_equal(
        "f = (lost + recovery) / useful of the main run's goodput total",
        review.failure_fraction,
        expected,
    )


def check_sensitivity(review: Review) -> None:
    """ "Sensitivity at the measured f": each row = P + n·T·(1+f) + E + D with P, T, E, D the
    Planned GPU-hours of pilot, main, evaluation and diagnostic in "Actual versus plan", f
    the summary's measured f; within the ceiling when it is ≤ the ceiling."""
    v = review.variance
    if v is None:
        return
    grid = v.get("sensitivity_at_measured_f") or []
    if grid and review.failure_fraction is None:
        raise BrokenIdentity("a sensitivity at the measured f without a measured f")
    planned = {r["work_class"]: exact(r["planned_gpu_hours"]) for r in v["by_work_class"]}
    p, t, e, d = (
        planned.get(c, Fraction(0)) for c in ("pilot", "main", "evaluation", "diagnostic")
    )
    for row in grid:
        f = exact(row["failure_fraction"])
        exact_equal(
            "sensitivity f = the measured f", row["failure_fraction"], review.failure_fraction
        )
        hours_equal(
            f"sensitivity n = {row['attempts']}",
            row["gpu_hours"],
            p + row["attempts"] * t * (1 + f) + e + d,
        )
        exact_equal(
            f"sensitivity n = {row['attempts']}: within the ceiling",
            row["within_ceiling"],
            exact(row["gpu_hours"]) <= exact(v["ceiling_gpu_hours"]),
        )


def check_jobs(review: Review) -> None:
    """ "Jobs of the week": each job's useful + recovery + lost + unverified = allocated."""
    for job in review.top_jobs:
        if "allocated" not in job:
            continue
        exact_equal(
            f"job {job.get('job_id')}: the classes = allocated",
            sum(int(job[c] or 0) for c in CLASSES),
            int(job["allocated"] or 0),
        )


def check_billing(review: Review) -> None:
    """ "Billing units" (reconcile/billing.py): the totals' billing-hours are the billing's;
    the classes sum to the campaign's billing to date, and so do the weeks; the reviewed
    week's row is the week's total; hours are seconds ÷ 3600."""
    billing = getattr(review, "billing", None)
    if billing is None:
        return
    t = review.totals
    if "allocated_billing_seconds" in t:
        exact_equal(
            "totals' billing-seconds = the billing's",
            t["allocated_billing_seconds"],
            billing.allocated_billing_seconds,
        )
        hours_equal(
            "totals' billing-hours = billing-seconds ÷ 3600",
            t["allocated_billing_hours"],
            Fraction(t["allocated_billing_seconds"], 3600),
        )
    to_date = sum(int(r["billing_seconds"]) for r in billing.by_class)
    exact_equal(
        "the classes' billing-seconds = the weeks' (campaign to date)",
        to_date,
        sum(int(r["billing_seconds"]) for r in billing.by_week),
    )
    for row in (*billing.by_class, *billing.by_week):
        hours_equal(
            f"billing {row.get('work_class') or row.get('week')}: hours = seconds ÷ 3600",
            row["billing_hours"],
            Fraction(int(row["billing_seconds"]), 3600),
        )
    if review.week is not None:
        inside = [r for r in billing.by_week if review.week[0] <= r["week_start"] < review.week[1]]
        exact_equal(
            "the reviewed week's billing by week = the week's billing",
            sum(int(r["billing_seconds"]) for r in inside),
            billing.allocated_billing_seconds,
        )


def check_burn_down(review: Review) -> None:
    """ "Burn-down" (reconcile/burndown.py): it projects from the campaign to date that
    actual-versus-plan prints, and its ceiling is the plan's."""
    burn = getattr(review, "burn_down", None)
    variance = review.variance
    if burn is None or variance is None or "actual_gpu_hours" not in variance:
        return
    hours_equal(
        "burn-down to date = actual to date", burn.to_date_gpu_hours, variance["actual_gpu_hours"]
    )
    hours_equal(
        "burn-down ceiling = the plan's", burn.ceiling_gpu_hours, variance["ceiling_gpu_hours"]
    )

"""The identities a report prints, checked on the typed result when it is built.

A person with a calculator must find that every figure of a report adds up with the figures
beside it. The weekly result (weekly.py: ReconcileResult, WeeklyResult) and the pre-launch
result (prelaunch.py: PrelaunchResult) call `check_review` / `check_estimate` from their
constructors, so a broken identity is a `BrokenIdentity` (a defect: the CLI reports it as an
internal error) and never a report. Which table each identity reads is said beside it.

Figures in GPU-seconds are integers and compared exactly. Figures in GPU-hours are Decimal
quotients of GPU-seconds by 3,600 (28 significant digits) or sums of them, so they are
compared as Fractions to within HOURS_TOLERANCE, 10⁻¹⁸ GPU-hours: what the division's last
digit can carry, sixteen orders of magnitude below the hundredth a report prints.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trainbudget.estimate.campaign import CampaignEstimate
    from trainbudget.reconcile.review import Review

HOURS_TOLERANCE = Fraction(1, 10**18)
CLASSES = ("useful", "recovery", "lost", "unverified")


class BrokenIdentity(AssertionError):
    """Two figures that a report prints side by side do not add up: a defect, not bad input."""


def _q(value: Any) -> Fraction:
    """A figure (int, Decimal, Fraction) as an exact Fraction."""
    return Fraction(value)


def _hours_equal(name: str, left: Any, right: Any) -> None:
    if left is None or right is None:
        if left is not right:
            raise BrokenIdentity(f"{name}: {left} against {right}")
        return
    if abs(_q(left) - _q(right)) > HOURS_TOLERANCE:
        raise BrokenIdentity(f"{name}: {left} against {right}")


def _exact_equal(name: str, left: Any, right: Any) -> None:
    if left != right:
        raise BrokenIdentity(f"{name}: {left} against {right}")


def _sum(values: Iterable[Any]) -> Fraction:
    return sum((_q(v) for v in values), Fraction(0))


# --- the weekly review ------------------------------------------------------------------------


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
    _exact_equal(
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
        _exact_equal(
            f"{row['week']}: allocated = useful + recovery + lost + unverified",
            row["allocated_gpu_seconds"],
            sum(row[f"{c}_gpu_seconds"] for c in CLASSES),
        )
        _hours_equal(
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
            _exact_equal(
                f"the reviewed weeks' rows by week ({c}) = the week's {c}",
                sum(r[f"{c}_gpu_seconds"] for r in inside),
                t[f"{c}_gpu_seconds"],
            )
    variance = review.variance
    if variance is not None and "actual_gpu_seconds" in variance:
        _exact_equal(
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
        _exact_equal(
            "work classes' actual GPU-seconds = the campaign to date",
            sum(r["actual_gpu_seconds"] for r in rows),
            v["actual_gpu_seconds"],
        )
    _hours_equal(
        "work classes' actual = campaign to date",
        _sum(r["actual_gpu_hours"] for r in rows),
        v["actual_gpu_hours"],
    )
    _hours_equal(
        "work classes' planned = planned",
        _sum(r["planned_gpu_hours"] for r in rows),
        v["planned_gpu_hours"],
    )
    for r in rows:
        name = r["work_class"]
        if "actual_gpu_seconds" in r:
            _hours_equal(
                f"{name}: actual", r["actual_gpu_hours"], Fraction(r["actual_gpu_seconds"], 3600)
            )
        _hours_equal(
            f"{name}: actual − planned",
            r["variance_gpu_hours"],
            _q(r["actual_gpu_hours"]) - _q(r["planned_gpu_hours"]),
        )
        _hours_equal(
            f"{name}: remaining",
            r["remaining_gpu_hours"],
            max(_q(r["planned_gpu_hours"]) - _q(r["actual_gpu_hours"]), Fraction(0)),
        )
    _hours_equal(
        "remaining = the rows' remaining",
        v["remaining_plan_gpu_hours"],
        _sum(r["remaining_gpu_hours"] for r in rows),
    )
    _hours_equal(
        "projected = spent + remaining",
        v["projected_gpu_hours"],
        _q(v["actual_gpu_hours"]) + _q(v["remaining_plan_gpu_hours"]),
    )
    _exact_equal(
        "within the ceiling",
        v["within_ceiling"],
        _q(v["projected_gpu_hours"]) <= _q(v["ceiling_gpu_hours"]),
    )


def check_goodput(review: Review) -> None:
    """ "Goodput of the main run by week": each week's productive + badput causes = its
    allocation (useful + recovery + lost + unverified); the total row = the weeks summed."""
    from trainbudget.reconcile.goodput import total

    for week in review.goodput:
        _exact_equal(
            f"goodput {week.week}: the classes = allocated",
            sum(week.by_class().values()),
            week.allocated,
        )
        if any(v < 0 for v in week.causes.values()) or week.productive < 0:
            raise BrokenIdentity(f"goodput {week.week}: a negative part {week.causes}")
    whole = total(review.goodput, None)
    _exact_equal(
        "goodput total = the weeks", whole.allocated, sum(w.allocated for w in review.goodput)
    )


def check_failure_fraction(review: Review) -> None:
    """The summary's measured f = (lost + recovery) ÷ useful of the goodput table's total row
    (one main-run scope for f, ETTR and goodput; reconcile/goodput.py)."""
    from trainbudget.reconcile.goodput import failure_fraction, total

    expected = failure_fraction(total(review.goodput, None)) if review.goodput else None
    if review.failure_fraction is None and expected is None:
        return
    _exact_equal(
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
    planned = {r["work_class"]: _q(r["planned_gpu_hours"]) for r in v["by_work_class"]}
    p, t, e, d = (
        planned.get(c, Fraction(0)) for c in ("pilot", "main", "evaluation", "diagnostic")
    )
    for row in grid:
        f = _q(row["failure_fraction"])
        _exact_equal(
            "sensitivity f = the measured f", row["failure_fraction"], review.failure_fraction
        )
        _hours_equal(
            f"sensitivity n = {row['attempts']}",
            row["gpu_hours"],
            p + row["attempts"] * t * (1 + f) + e + d,
        )
        _exact_equal(
            f"sensitivity n = {row['attempts']}: within the ceiling",
            row["within_ceiling"],
            _q(row["gpu_hours"]) <= _q(v["ceiling_gpu_hours"]),
        )


def check_jobs(review: Review) -> None:
    """ "Jobs of the week": each job's useful + recovery + lost + unverified = allocated."""
    for job in review.top_jobs:
        if "allocated" not in job:
            continue
        _exact_equal(
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
        _exact_equal(
            "totals' billing-seconds = the billing's",
            t["allocated_billing_seconds"],
            billing.allocated_billing_seconds,
        )
        _hours_equal(
            "totals' billing-hours = billing-seconds ÷ 3600",
            t["allocated_billing_hours"],
            Fraction(t["allocated_billing_seconds"], 3600),
        )
    to_date = sum(int(r["billing_seconds"]) for r in billing.by_class)
    _exact_equal(
        "the classes' billing-seconds = the weeks' (campaign to date)",
        to_date,
        sum(int(r["billing_seconds"]) for r in billing.by_week),
    )
    for row in (*billing.by_class, *billing.by_week):
        _hours_equal(
            f"billing {row.get('work_class') or row.get('week')}: hours = seconds ÷ 3600",
            row["billing_hours"],
            Fraction(int(row["billing_seconds"]), 3600),
        )
    if review.week is not None:
        inside = [r for r in billing.by_week if review.week[0] <= r["week_start"] < review.week[1]]
        _exact_equal(
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
    _hours_equal(
        "burn-down to date = actual to date", burn.to_date_gpu_hours, variance["actual_gpu_hours"]
    )
    _hours_equal(
        "burn-down ceiling = the plan's", burn.ceiling_gpu_hours, variance["ceiling_gpu_hours"]
    )


def check_estimate_billing(estimate: CampaignEstimate) -> None:
    """ "Billing units" of the pre-launch estimate (estimate/billing.py): each line's
    billing-hours = a job's billing × its GPU-hours ÷ a job's GPUs; the total is the lines'."""
    billing = getattr(estimate, "billing", None)
    if billing is None:
        return
    hours = {(ln.work_class, ln.name): ln.gpu_hours for ln in estimate.lines}
    for line in billing.lines:
        _hours_equal(
            f"billing {line.work_class} {line.name}: billing × GPU-hours ÷ GPUs",
            line.billing_hours,
            line.billing * _q(hours[(line.work_class, line.name)]) / line.job_gpus,
        )
    _hours_equal(
        "billing-hours = the lines' billing-hours",
        billing.billing_hours,
        _sum(line.billing_hours for line in billing.lines),
    )


# --- the pre-launch estimate --------------------------------------------------------------------


def check_estimate(estimate: CampaignEstimate) -> None:
    """Every identity of the pre-launch report (report/prelaunch.py) on `estimate`."""
    check_estimate_billing(estimate)
    price = _q(estimate.gpu_hour_usd)
    lines = [ln for ln in estimate.lines if ln.work_class != "storage"]
    # "Campaign lines" and the summary's first line.
    work = _sum(ln.gpu_hours for ln in lines if ln.kind == "planned")
    contingency = _sum(ln.gpu_hours for ln in lines if ln.kind == "contingency")
    _hours_equal("planned work = the planned lines", estimate.planned_work_gpu_hours, work)
    _hours_equal("contingency = the contingency lines", estimate.contingency_gpu_hours, contingency)
    _hours_equal("planned = work + contingency", estimate.planned_gpu_hours, work + contingency)
    for ln in lines:
        _hours_equal(
            f"line {ln.work_class} {ln.name}: USD = GPU-hours × price",
            ln.usd,
            _q(ln.gpu_hours) * price,
        )
    _hours_equal(
        "compute USD = planned × price",
        estimate.compute_usd,
        _q(estimate.planned_gpu_hours) * price,
    )
    # "Sensitivity grid": P, E, D the planned lines of pilot, evaluation, diagnostic; T the
    # main line, or with a forecast its compute line ("Main-run forecast").
    by_class: dict[str, Fraction] = {}
    for ln in lines:
        if ln.kind == "planned":
            by_class[ln.work_class] = by_class.get(ln.work_class, Fraction(0)) + _q(ln.gpu_hours)
    p, e, d = (by_class.get(c, Fraction(0)) for c in ("pilot", "evaluation", "diagnostic"))
    forecast = estimate.forecast
    t = by_class.get("main", Fraction(0)) if forecast is None else _q(forecast.compute_gpu_hours)
    ceiling = estimate.ceiling
    limit = _q(ceiling.ceiling_gpu_hours)
    for case in estimate.sensitivity:
        name = f"sensitivity n = {case.attempts}, f = {case.failure_fraction}"
        hours = p + case.attempts * t * (1 + _q(case.failure_fraction)) + e + d
        _hours_equal(name, case.gpu_hours, hours)
        _hours_equal(f"{name}: USD", case.compute_usd, _q(case.gpu_hours) * price)
        _hours_equal(f"{name}: margin", case.margin_gpu_hours, limit - _q(case.gpu_hours))
        _exact_equal(
            f"{name}: within the ceiling", case.within_ceiling, _q(case.gpu_hours) <= limit
        )
    # The summary's ceiling line.
    _hours_equal(
        "ceiling margin = ceiling − planned",
        ceiling.margin_gpu_hours,
        limit - _q(estimate.planned_gpu_hours),
    )
    if estimate.sensitivity:
        _hours_equal(
            "worst sensitivity case",
            ceiling.worst_case_gpu_hours,
            max(_q(c.gpu_hours) for c in estimate.sensitivity),
        )
        _exact_equal(
            "cases over the ceiling",
            ceiling.cases_over_ceiling,
            sum(1 for c in estimate.sensitivity if _q(c.gpu_hours) > limit),
        )
    if forecast is not None:
        # "Main-run forecast": compute + each overhead line = the main run; ETTR = compute ÷ it.
        _hours_equal(
            "forecast: compute + overheads = main run",
            forecast.main_gpu_hours,
            _q(forecast.compute_gpu_hours) + _sum(forecast.overhead_gpu_hours.values()),
        )
        main = _sum(ln.gpu_hours for ln in lines if ln.work_class == "main")
        _hours_equal("forecast main run = the main line", forecast.main_gpu_hours, main)
        if _q(forecast.main_gpu_hours):
            _hours_equal(
                "forecast ETTR = compute ÷ main run",
                forecast.ettr,
                _q(forecast.compute_gpu_hours) / _q(forecast.main_gpu_hours),
            )

"""The identities the pre-launch report prints, checked on the estimate when it is built; and
the comparisons every report's identities use (reconcile/invariants.py checks the review's).

A person with a calculator must find that every figure of a report adds up with the figures
beside it. The pre-launch result (prelaunch.py: PrelaunchResult) calls `check_estimate` and
the weekly one (reconcile/report.py: ReconcileResult) `check_review` from their constructors,
so a broken identity is a `BrokenIdentity` (a defect: the CLI reports it as an internal error)
and never a report. Which table each identity reads is said beside it.

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

HOURS_TOLERANCE = Fraction(1, 10**18)


class BrokenIdentity(AssertionError):
    """Two figures that a report prints side by side do not add up: a defect, not bad input."""


def exact(value: Any) -> Fraction:
    """A figure (int, Decimal, Fraction) as an exact Fraction."""
    return Fraction(value)


def hours_equal(name: str, left: Any, right: Any) -> None:
    """Raise BrokenIdentity unless two GPU-hour figures agree to within HOURS_TOLERANCE."""
    if left is None or right is None:
        if left is not right:
            raise BrokenIdentity(f"{name}: {left} against {right}")
        return
    if abs(exact(left) - exact(right)) > HOURS_TOLERANCE:
        raise BrokenIdentity(f"{name}: {left} against {right}")


def exact_equal(name: str, left: Any, right: Any) -> None:
    """Raise BrokenIdentity unless two exact figures (GPU-seconds, counts, flags) are equal."""
    if left != right:
        raise BrokenIdentity(f"{name}: {left} against {right}")


def exact_sum(values: Iterable[Any]) -> Fraction:
    """The exact sum of figures, as a Fraction."""
    return sum((exact(v) for v in values), Fraction(0))


def check_estimate(estimate: CampaignEstimate) -> None:
    """Every identity of the pre-launch report (report/prelaunch.py) on `estimate`."""
    check_estimate_billing(estimate)
    price = exact(estimate.gpu_hour_usd)
    lines = [ln for ln in estimate.lines if ln.work_class != "storage"]
    # "Campaign lines" and the summary's first line.
    work = exact_sum(ln.gpu_hours for ln in lines if ln.kind == "planned")
    contingency = exact_sum(ln.gpu_hours for ln in lines if ln.kind == "contingency")
    hours_equal("planned work = the planned lines", estimate.planned_work_gpu_hours, work)
    hours_equal("contingency = the contingency lines", estimate.contingency_gpu_hours, contingency)
    hours_equal("planned = work + contingency", estimate.planned_gpu_hours, work + contingency)
    for ln in lines:
        hours_equal(
            f"line {ln.work_class} {ln.name}: USD = GPU-hours × price",
            ln.usd,
            exact(ln.gpu_hours) * price,
        )
    hours_equal(
        "compute USD = planned × price",
        estimate.compute_usd,
        exact(estimate.planned_gpu_hours) * price,
    )
    # "Sensitivity grid": P, E, D the planned lines of pilot, evaluation, diagnostic; T the
    # main line, or with a forecast its compute line ("Main-run forecast").
    by_class: dict[str, Fraction] = {}
    for ln in lines:
        if ln.kind == "planned":
            by_class[ln.work_class] = by_class.get(ln.work_class, Fraction(0)) + exact(ln.gpu_hours)
    p, e, d = (by_class.get(c, Fraction(0)) for c in ("pilot", "evaluation", "diagnostic"))
    forecast = estimate.forecast
    t = by_class.get("main", Fraction(0)) if forecast is None else exact(forecast.compute_gpu_hours)
    ceiling = estimate.ceiling
    limit = exact(ceiling.ceiling_gpu_hours)
    for case in estimate.sensitivity:
        name = f"sensitivity n = {case.attempts}, f = {case.failure_fraction}"
        hours = p + case.attempts * t * (1 + exact(case.failure_fraction)) + e + d
        hours_equal(name, case.gpu_hours, hours)
        hours_equal(f"{name}: USD", case.compute_usd, exact(case.gpu_hours) * price)
        hours_equal(f"{name}: margin", case.margin_gpu_hours, limit - exact(case.gpu_hours))
        exact_equal(
            f"{name}: within the ceiling", case.within_ceiling, exact(case.gpu_hours) <= limit
        )
    # The summary's ceiling line.
    hours_equal(
        "ceiling margin = ceiling − planned",
        ceiling.margin_gpu_hours,
        limit - exact(estimate.planned_gpu_hours),
    )
    if estimate.sensitivity:
        hours_equal(
            "worst sensitivity case",
            ceiling.worst_case_gpu_hours,
            max(exact(c.gpu_hours) for c in estimate.sensitivity),
        )
        exact_equal(
            "cases over the ceiling",
            ceiling.cases_over_ceiling,
            sum(1 for c in estimate.sensitivity if exact(c.gpu_hours) > limit),
        )
    if forecast is not None:
        # "Main-run forecast": compute + each overhead line = the main run; ETTR = compute ÷ it.
        hours_equal(
            "forecast: compute + overheads = main run",
            forecast.main_gpu_hours,
            exact(forecast.compute_gpu_hours) + exact_sum(forecast.overhead_gpu_hours.values()),
        )
        main = exact_sum(ln.gpu_hours for ln in lines if ln.work_class == "main")
        hours_equal("forecast main run = the main line", forecast.main_gpu_hours, main)
        if exact(forecast.main_gpu_hours):
            hours_equal(
                "forecast ETTR = compute ÷ main run",
                forecast.ettr,
                exact(forecast.compute_gpu_hours) / exact(forecast.main_gpu_hours),
            )


def check_estimate_billing(estimate: CampaignEstimate) -> None:
    """ "Billing units" of the pre-launch estimate (estimate/billing.py): each line's
    billing-hours = a job's billing × its GPU-hours ÷ a job's GPUs; the total is the lines'."""
    billing = getattr(estimate, "billing", None)
    if billing is None:
        return
    hours = {(ln.work_class, ln.name): ln.gpu_hours for ln in estimate.lines}
    for line in billing.lines:
        hours_equal(
            f"billing {line.work_class} {line.name}: billing × GPU-hours ÷ GPUs",
            line.billing_hours,
            line.billing * exact(hours[(line.work_class, line.name)]) / line.job_gpus,
        )
    hours_equal(
        "billing-hours = the lines' billing-hours",
        billing.billing_hours,
        exact_sum(line.billing_hours for line in billing.lines),
    )

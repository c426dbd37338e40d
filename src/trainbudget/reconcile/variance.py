"""Actual versus plan per work class, the projection against the ceiling, and measured f.

Actual = allocated GPU-hours to date (every class, untracked included); variance = actual −
planned, in GPU-hours and dollars at the plan's price; projected = spent + the plan's
remaining hours (max(planned − actual, 0) per class). The continuation gate (gates/weekly)
decides from the projection; nothing here decides. The measured failure fraction of the main
run, f = (lost + recovery) ÷ useful GPU-hours (DESIGN.md worked example: 36 / 128 ≈ 0.281),
is fed to the sensitivity model P + n·T·(1 + f) + E.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.estimate.campaign import campaign_estimate
from trainbudget.estimate.sensitivity import campaign_gpu_hours

if TYPE_CHECKING:
    from trainbudget.estimate.campaign import CampaignEstimate
    from trainbudget.plan import Plan

SECONDS_PER_HOUR = Decimal(3600)


def gpu_hours(gpu_seconds: int | Decimal) -> Decimal:
    """GPU-seconds → GPU-hours (Decimal, 28 significant digits)."""
    return Decimal(gpu_seconds) / SECONDS_PER_HOUR


def measured_failure_fraction(
    useful_gpu_seconds: int, lost_gpu_seconds: int, recovery_gpu_seconds: int
) -> Decimal | None:
    """f = (lost + recovery) ÷ useful for the main work class; None when nothing was useful."""
    if useful_gpu_seconds <= 0:
        return None
    return Decimal(lost_gpu_seconds + recovery_gpu_seconds) / Decimal(useful_gpu_seconds)


def plan_variance(
    plan: Plan,
    actual_by_class: dict[str, int],
    failure_fraction: Decimal | None,
    planned: CampaignEstimate | None = None,
) -> dict[str, Any]:
    """Variance per work class and for the campaign; `actual_by_class` in GPU-seconds.

    `planned` is the plan priced with the campaign's MFU (estimate/mfu_rule.py); without it
    the plan is priced on its own.
    """
    estimate = planned or campaign_estimate(plan)
    price = plan.prices.gpu_hour_usd
    planned: dict[str, Decimal] = {}
    for line in estimate.lines:
        if line.work_class != "storage":
            planned[line.work_class] = planned.get(line.work_class, Decimal(0)) + line.gpu_hours
    classes = list(planned) + [c for c in sorted(actual_by_class) if c not in planned]
    rows = []
    spent = remaining = Decimal(0)
    spent_seconds = 0
    for work_class in classes:
        plan_hours = planned.get(work_class, Decimal(0))
        seconds = int(actual_by_class.get(work_class, 0))
        actual = gpu_hours(seconds)
        spent_seconds += seconds
        left = max(plan_hours - actual, Decimal(0))
        spent += actual
        remaining += left
        rows.append(
            {
                "work_class": work_class,
                "planned_gpu_hours": plan_hours,
                "actual_gpu_hours": actual,
                "actual_gpu_seconds": seconds,  # the exact figure
                "variance_gpu_hours": actual - plan_hours,
                "variance_usd": (actual - plan_hours) * price,
                "remaining_gpu_hours": left,
            }
        )
    planned_total = sum(planned.values(), Decimal(0))
    main = estimate.main
    return {
        "campaign": plan.campaign,
        "main_mfu": None if main is None else main.mfu,
        "main_mfu_source": None if main is None else main.mfu_source,
        "by_work_class": rows,
        "planned_gpu_hours": planned_total,
        "actual_gpu_hours": spent,
        "actual_gpu_seconds": spent_seconds,
        "variance_gpu_hours": spent - planned_total,
        "variance_usd": (spent - planned_total) * price,
        "spent_usd": spent * price,
        "remaining_plan_gpu_hours": remaining,
        "projected_gpu_hours": spent + remaining,
        "ceiling_gpu_hours": plan.ceiling.gpu_hours,
        "within_ceiling": spent + remaining <= plan.ceiling.gpu_hours,
        "sensitivity_at_measured_f": _sensitivity(plan, planned, failure_fraction),
    }


def _sensitivity(
    plan: Plan, planned: dict[str, Decimal], failure_fraction: Decimal | None
) -> list[dict[str, Any]]:
    """P + n·T·(1 + f) + E at the measured f, for each planned number of attempts n."""
    if failure_fraction is None:
        return []
    cases = []
    for attempts in plan.sensitivity.attempts:
        hours = campaign_gpu_hours(
            planned.get("pilot", 0),
            planned.get("main", 0),
            planned.get("evaluation", 0),
            attempts,
            failure_fraction,
            planned.get("diagnostic", 0),
        )
        cases.append(
            {
                "attempts": attempts,
                "failure_fraction": failure_fraction,
                "gpu_hours": hours,
                "within_ceiling": hours <= plan.ceiling.gpu_hours,
            }
        )
    return cases

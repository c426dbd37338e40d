"""The campaign's burn-down: at its measured weekly rate, the week it reaches its ceiling and
the day its allocation runs out, and whether that is before the plan's end.

The measured rate is the mean allocated GPU-hours a week over the last `WINDOW_WEEKS` weeks up
to the reviewed one (fewer while the campaign is younger; a week without jobs counts as 0).
Four weeks, because one week is noise (a restart storm, a holiday) and the whole history is
stale once the campaign has moved from pilots to the main run; a month is the span a lead
reviews a budget over. The band takes the window's slowest and fastest week.

Day by day from the Monday after the reviewed week (day 1): the projected spend at the end of
day d is to_date + rate × d / 7, so the ceiling is reached on the first day d with
to_date + rate × d / 7 ≥ ceiling, d = ⌈7 · (ceiling − to_date) / rate⌉, and likewise the
allocation with what is left of it and its own unit's rate. A lower rate never gives an
earlier day (d grows as the rate falls). Exact: Fractions; dates are calendar days.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any

WINDOW_WEEKS = 4


@dataclass(frozen=True)
class Week:
    """One ISO week of the campaign: its name, its Monday, and what it burned."""

    week: str
    monday: date
    gpu_hours: Decimal
    units: Decimal | None = None  # in the allocation's unit, when that is not GPU-hours


@dataclass(frozen=True)
class BurnDown:
    """The projection (see the module): rates per week, the ceiling's ISO week and day, the
    day the allocation runs out, each with the band of the window's slowest/fastest week."""

    window_weeks: int
    weeks_measured: int
    weekly_rate_gpu_hours: Decimal
    to_date_gpu_hours: Decimal
    ceiling_gpu_hours: Decimal
    ceiling_day: date | None
    ceiling_week: str | None
    ceiling_week_band: dict[str, str | None]
    allocation_unit: str | None
    allocation_remaining: Decimal | None
    weekly_rate_allocation: Decimal | None
    allocation_runs_out: date | None
    allocation_runs_out_band: dict[str, date | None]
    plan_end: date | None
    ceiling_before_plan_end: bool | None
    allocation_before_plan_end: bool | None
    already_over_ceiling: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def sentence(self) -> str:
        """What the projection says, in one sentence for the continuation gate and report."""
        rate = f"{float(self.weekly_rate_gpu_hours):,.1f} GPU-hours a week"
        over = f"over the last {self.weeks_measured} week{'s' if self.weeks_measured != 1 else ''}"
        if self.already_over_ceiling:
            head = f"At {rate} ({over}) the ceiling is already passed"
        elif self.ceiling_day is None:
            head = f"At {rate} ({over}) the ceiling is not reached"
            if self.plan_end is not None:
                head += f" by the plan's end ({self.plan_end})"
        else:
            head = (
                f"At {rate} ({over}) the ceiling is reached in {self.ceiling_week} "
                f"({self.ceiling_day})"
            )
            if self.ceiling_before_plan_end:
                head += f", before the plan's end ({self.plan_end})"
        if self.allocation_runs_out is not None:
            head += f"; the allocation runs out on {self.allocation_runs_out}"
            if self.allocation_before_plan_end:
                head += f", before the plan's end ({self.plan_end})"
        return head + "."


def measured_rate(weeks: Sequence[Week], reviewed: date, window: int, attr: str) -> Fraction:
    """Mean of `attr` a week over the `window` weeks ending with the one starting `reviewed`
    (only weeks on or after the campaign's first; a missing week counts as 0)."""
    if not weeks:
        return Fraction(0)
    first = min(w.monday for w in weeks)
    start = max(first, reviewed - timedelta(days=7 * (window - 1)))
    count = (reviewed - start).days // 7 + 1
    total = sum(
        (Fraction(getattr(w, attr) or 0) for w in weeks if start <= w.monday <= reviewed),
        Fraction(0),
    )
    return total / count


def _window_extremes(
    weeks: Sequence[Week], reviewed: date, window: int, attr: str
) -> tuple[Fraction, Fraction]:
    """The slowest and fastest week of the window (missing weeks count as 0)."""
    first = min(w.monday for w in weeks)
    start = max(first, reviewed - timedelta(days=7 * (window - 1)))
    by_monday = {w.monday: Fraction(getattr(w, attr) or 0) for w in weeks}
    values = [
        by_monday.get(start + timedelta(days=7 * i), Fraction(0))
        for i in range((reviewed - start).days // 7 + 1)
    ]
    return min(values), max(values)


HORIZON_DAYS = 36525  # a century: a day further out is "not reached", not a date


def day_reached(left: Fraction, rate: Fraction, day_one: date) -> date | None:
    """The first day d (day 1 = `day_one`) on which rate × d / 7 ≥ left; None at no rate, or
    beyond HORIZON_DAYS."""
    if left <= 0:
        return day_one - timedelta(days=1)  # already reached by the end of the reviewed week
    if rate <= 0:
        return None
    days = math.ceil(7 * Fraction(left) / Fraction(rate))
    if days > HORIZON_DAYS:
        return None
    return day_one + timedelta(days=days - 1)


def iso_week(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def project_burn_down(
    weeks: Sequence[Week],
    reviewed_monday: date,
    to_date_gpu_hours: Decimal,
    ceiling_gpu_hours: Decimal,
    *,
    allocation_unit: str | None = None,
    allocation_remaining: Decimal | None = None,
    plan_end: date | None = None,
    window: int = WINDOW_WEEKS,
) -> BurnDown:
    """The burn-down after the week starting `reviewed_monday` (see the module)."""
    day_one = reviewed_monday + timedelta(days=7)
    rate = measured_rate(weeks, reviewed_monday, window, "gpu_hours")
    left = Fraction(ceiling_gpu_hours) - Fraction(to_date_gpu_hours)
    ceiling_day = day_reached(left, rate, day_one)
    in_span = ceiling_day is not None and (plan_end is None or ceiling_day <= plan_end)
    band: dict[str, str | None] = {"earliest": None, "latest": None}
    runs_band: dict[str, date | None] = {"earliest": None, "latest": None}
    if weeks:
        slow, fast = _window_extremes(weeks, reviewed_monday, window, "gpu_hours")
        for key, pace in (("earliest", fast), ("latest", slow)):
            day = day_reached(left, pace, day_one)
            band[key] = iso_week(day) if day is not None else None
    runs_out = unit_rate = None
    if allocation_unit is not None and allocation_remaining is not None:
        attr = "gpu_hours" if allocation_unit == "gpu_hours" else "units"
        unit_rate_f = measured_rate(weeks, reviewed_monday, window, attr)
        unit_rate = Decimal(unit_rate_f.numerator) / Decimal(unit_rate_f.denominator)
        runs_out = day_reached(Fraction(allocation_remaining), unit_rate_f, day_one)
        if weeks:
            slow, fast = _window_extremes(weeks, reviewed_monday, window, attr)
            runs_band = {
                "earliest": day_reached(Fraction(allocation_remaining), fast, day_one),
                "latest": day_reached(Fraction(allocation_remaining), slow, day_one),
            }
    return BurnDown(
        window_weeks=window,
        weeks_measured=_weeks_measured(weeks, reviewed_monday, window),
        weekly_rate_gpu_hours=Decimal(rate.numerator) / Decimal(rate.denominator),
        to_date_gpu_hours=to_date_gpu_hours,
        ceiling_gpu_hours=ceiling_gpu_hours,
        ceiling_day=ceiling_day if in_span else None,
        ceiling_week=iso_week(ceiling_day) if in_span and ceiling_day is not None else None,
        ceiling_week_band=band,
        allocation_unit=allocation_unit,
        allocation_remaining=allocation_remaining,
        weekly_rate_allocation=unit_rate,
        allocation_runs_out=runs_out,
        allocation_runs_out_band=runs_band,
        plan_end=plan_end,
        ceiling_before_plan_end=(
            None if plan_end is None else (in_span and ceiling_day is not None)
        ),
        allocation_before_plan_end=(
            None if plan_end is None or runs_out is None else runs_out < plan_end
        ),
        already_over_ceiling=left <= 0,
    )


def _weeks_measured(weeks: Sequence[Week], reviewed: date, window: int) -> int:
    if not weeks:
        return 0
    first = min(w.monday for w in weeks)
    start = max(first, reviewed - timedelta(days=7 * (window - 1)))
    return (reviewed - start).days // 7 + 1


def review_burn_down(
    plan: Any,
    week: tuple[Any, Any] | None,
    tz: str,
    accounting_by_week: Sequence[dict[str, Any]],
    billing_by_week: Sequence[dict[str, Any]],
    to_date_gpu_hours: Decimal,
) -> BurnDown | None:
    """The burn-down of a weekly review (reconcile/review.py): the campaign's weeks (every
    job, reconcile/by_week.py), the billing by week when the allocation is in billing-hours,
    the plan's ceiling and cluster.allocation; None without a plan or a reviewed week."""
    if plan is None or week is None:
        return None
    from trainbudget.reconcile.week import zone

    def monday(start: Any) -> date:
        return start.astimezone(zone(tz)).date()

    units = {monday(r["week_start"]): r["billing_hours"] for r in billing_by_week}
    weeks = [
        Week(
            r["week"],
            monday(r["week_start"]),
            r["allocated_gpu_hours"],
            units.get(monday(r["week_start"]), Decimal(0)),
        )
        for r in accounting_by_week
        if r.get("week_start") is not None
    ]
    allocation = plan.cluster.allocation if plan.cluster is not None else None
    return project_burn_down(
        weeks,
        monday(week[0]),
        to_date_gpu_hours,
        plan.ceiling.gpu_hours,
        allocation_unit=None if allocation is None else allocation.unit,
        allocation_remaining=None if allocation is None else allocation.size - allocation.used,
        plan_end=(
            None
            if allocation is None or allocation.ends is None
            else date.fromisoformat(allocation.ends)
        ),
    )

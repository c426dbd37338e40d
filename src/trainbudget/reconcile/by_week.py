"""Allocated GPU-hours by ISO week, campaign to date: every job, tracked or not.

The review reads its weeks' jobs and the tracked ones (review_rows.sql); an earlier job that
nothing names is not read, and all it adds is its allocation, which `week_allocations` keeps
per week (reconcile/history.py). Such a job has no progress events (they would name it), so
every second of it is unverified. Each week's row is therefore

  allocated = useful + recovery + lost + unverified
            = (the read jobs' parts in the week) + (the unread jobs' allocation in the week),

and the rows, up to the end of the reviewed week, sum to the campaign to date that
actual-versus-plan reports (reconcile/variance.py). Weeks are the cluster zone's ISO weeks
(`--cluster-tz`), the weeks the review and week_allocations use. Exact: integer GPU-seconds.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from trainbudget.reconcile.history import allocated_by_week, records_by_week, review_weeks
from trainbudget.reconcile.variance import gpu_hours

if TYPE_CHECKING:
    from trainbudget.reconcile.session import Session

CLASSES = ("allocated", "useful", "recovery", "lost", "unverified")


def accounting_by_week(
    session: Session, week: tuple[datetime, datetime] | None, tz: str
) -> tuple[dict[str, Any], ...]:
    """One row per week with an allocation, up to the end of `week` (None: every week):
    `week`, `{class}_gpu_seconds` (exact) and `{class}_gpu_hours` (Decimal) for the five
    classes, and `untracked_unread_gpu_seconds` (the earlier jobs the review did not read)."""
    ((first, last),) = session.query("reconcile/summarize/accounting_span")
    unread_by_week: dict[tuple[datetime, datetime], int] = {}
    if week is not None:
        earlier = allocated_by_week(session.ledger, week[0], tz)
        if earlier:
            first = min(first, min(earlier)[0]) if first is not None else min(earlier)[0]
        unread_by_week = earlier
    if first is None:
        return ()
    weeks = review_weeks(first, last, week, tz)
    if not weeks:
        return ()
    rows = records_by_week(session, "reconcile/summarize/accounting_by_week", weeks, tz)
    result = []
    for bounds, row in zip(weeks, rows, strict=True):
        seconds = {k: int(row[k]) for k in CLASSES}
        # week_allocations counts every allocation's part in the week, the read jobs' too.
        unread = unread_by_week[bounds] - seconds["allocated"] if bounds in unread_by_week else 0
        seconds["allocated"] += unread
        seconds["unverified"] += unread
        if not seconds["allocated"]:
            continue
        result.append(
            {"week": row["week"], "week_start": bounds[0]}
            | {f"{k}_gpu_hours": gpu_hours(v) for k, v in seconds.items()}
            | {f"{k}_gpu_seconds": v for k, v in seconds.items()}
            | {"untracked_unread_gpu_seconds": unread}
        )
    return tuple(result)

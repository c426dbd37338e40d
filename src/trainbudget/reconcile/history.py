"""The campaign to date without re-reading earlier weeks, and the weeks a landing covers.

A review reads only its weeks' jobs and the tracked ones (review_rows.sql); the other jobs
before its weeks are untracked, and all they add to the campaign to date is their allocated
GPU-seconds, which `week_allocations` (migration 015) keeps per week. A week's row is computed
once, by the first review after it, and deleted when a landing touches the week.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from trainbudget.reconcile.week import zone

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger
    from trainbudget.reconcile.session import Session

Bounds = tuple[datetime, datetime]


def week_of(moment: datetime, tz: str) -> Bounds:
    """[Monday 00:00, next Monday 00:00) in zone `tz` of the ISO week holding `moment`, in UTC."""
    local = moment.astimezone(zone(tz))
    monday = (local - timedelta(days=local.weekday())).date()
    start = datetime(monday.year, monday.month, monday.day, tzinfo=zone(tz))
    return start.astimezone(UTC), (start + timedelta(days=7)).astimezone(UTC)


def week_name(start: datetime, tz: str) -> str:
    """`YYYY-Www` of the week starting at `start` (UTC) in zone `tz`."""
    year, week, _ = start.astimezone(zone(tz)).isocalendar()
    return f"{year}-W{week:02d}"


def weeks_between(first: datetime, before: datetime, tz: str) -> list[Bounds]:
    """The ISO weeks in zone `tz` from the one holding `first` up to `before` (a week start)."""
    weeks = []
    start, end = week_of(first, tz)
    while start < before:
        weeks.append((start, end))
        start, end = week_of(end, tz)
    return weeks


def review_weeks(first: datetime, last: datetime, week: Bounds | None, tz: str) -> list[Bounds]:
    """The ISO weeks of `tz` a by-week table covers: from the one holding `first` to the end of
    the reviewed `week` (None: to the week of `last`, the last job's end, exclusive)."""
    end = week[1] if week is not None else week_of(last - timedelta(microseconds=1), tz)[1]
    return weeks_between(first, end, tz) if first < end else []


def records_by_week(session: Session, query: str, weeks: list[Bounds], tz: str) -> list[dict]:
    """Rows of a by-week query (sql/…, parameters starts, ends, names), one per week."""
    return session.records(
        query,
        starts=[s for s, _ in weeks],
        ends=[e for _, e in weeks],
        names=[week_name(s, tz) for s, _ in weeks],
    )


def claim_weeks(ledger: Ledger, first: datetime | None, last: datetime | None) -> None:
    """On the team ledger, claim every UTC week from the one holding `first` to the one holding
    `last` (a no-op on the file). A landing claims the weeks it makes stale and a review the
    weeks it caches, so the two cannot commit at once: a week cached from a snapshot without a
    concurrent landing's lines would otherwise outlive that landing (snapshot isolation lets
    both commit), and two reviews would each cache the same week."""
    if not ledger.is_team or first is None or last is None:
        return
    start, _ = week_of(first, "UTC")
    while start <= last:
        ledger.claim("week", start.date().isoformat())
        start += timedelta(days=7)


def claim_source_weeks(ledger: Ledger, source_id: int) -> None:
    """Claim (team ledger) the weeks a landing's lines and the rows they replace waited or ran
    in: those sacct_stale_weeks.sql removes from week_allocations, and each line's submit
    week, which a concurrent landing of the same job claims too (sacct_replaced built)."""
    if ledger.is_team:
        ((first, last),) = ledger.query("reconcile/history/source_reach", source_id=source_id)
        claim_weeks(ledger, first, last)


def landed_weeks(ledger: Ledger, source_ids: list[int], tz: str) -> tuple[str, Bounds] | None:
    """The weeks the lines of `source_ids` started in, as a name (`2026-W47`, or
    `2026-W45..2026-W47`) and [first Monday, the Monday after the last); None when they hold
    no line with a time."""
    ((first, last),) = ledger.query("reconcile/history/source_span", source_ids=source_ids)
    if first is None:
        return None
    start, _ = week_of(first, tz)
    last_start, end = week_of(last, tz)
    name = week_name(start, tz)
    if last_start != start:
        name += f"..{week_name(last_start, tz)}"
    return name, (start, end)


def newest_sacct_source(ledger: Ledger) -> list[int]:
    """The newest landing that still has lines, as a list of its id (empty when none)."""
    ((newest,),) = ledger.query("reconcile/history/newest_sacct_source")
    return [] if newest is None else [newest]


def covers_everything(ledger: Ledger, weeks: Bounds) -> bool:
    """Whether every landed line started (else was submitted) inside `weeks`."""
    ((outside,),) = ledger.query(
        "reconcile/history/outside_weeks", week_start=weeks[0], week_end=weeks[1]
    )
    return not outside


def untracked_before(session: Session, week_start: datetime, tz: str) -> int:
    """GPU-seconds allocated before `week_start` by the jobs the review did not read (all of
    them untracked): every allocation's part before it (week_allocations, filled where
    missing) less the part of the jobs the review read (job_accounting)."""
    everything = sum(allocated_by_week(session.ledger, week_start, tz).values())
    if not everything:
        return 0
    ((read,),) = session.query("reconcile/summarize/before_week_in_scope")
    return everything - int(read)


def first_start(ledger: Ledger) -> datetime | None:
    """The earliest start, else submit, of any landed line (None: no line). The earliest start
    is sought before the end of the first cached week first (a bound the zone maps prune
    with), and among every line only when none started before it."""
    ((bound,),) = ledger.query("reconcile/history/first_cached_week_end")
    ((started,),) = ledger.query("reconcile/history/first_started", bound=bound)
    if started is None and bound is not None:
        ((started,),) = ledger.query("reconcile/history/first_started", bound=None)
    ((first,),) = ledger.query("reconcile/history/first_start", started=started)
    return first


def allocated_by_week(ledger: Ledger, week_start: datetime, tz: str) -> dict[Bounds, int]:
    """GPU-seconds every landed allocation ran in each ISO week (zone `tz`) before
    `week_start`, tracked or not (week_allocations, its missing weeks filled first)."""
    first = first_start(ledger)
    if first is None or first >= week_start:
        return {}
    weeks = weeks_between(first, week_start, tz)
    cached = {
        (s, e): seconds
        for s, e, seconds in ledger.query(
            "reconcile/history/cached_weeks", first=weeks[0][0], before=week_start
        )
    }
    missing = [w for w in weeks if w not in cached]
    if missing:
        claim_weeks(ledger, missing[0][0], missing[-1][1] - timedelta(microseconds=1))
        ledger.execute(
            "reconcile/history/fill_weeks",
            starts=[s for s, _ in missing],
            ends=[e for _, e in missing],
            ran_after=missing[0][0],
            now=datetime.now(UTC),
        )
        cached.update(
            ((s, e), seconds)
            for s, e, seconds in ledger.query(
                "reconcile/history/cached_weeks", first=weeks[0][0], before=week_start
            )
        )
    return {w: int(cached[w]) for w in weeks}

"""ISO weeks (`2026-W48`) as [Monday 00:00, next Monday 00:00) in the cluster's time zone."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from trainbudget.base.errors import InputError

_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")


def zone(name: str) -> ZoneInfo:
    """A time zone by IANA name; InputError naming cluster_tz when unknown."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InputError(
            f"cluster_tz: unknown time zone {name!r} (e.g. UTC, Europe/Amsterdam)"
        ) from None


def week_bounds(week: str, tz: str = "UTC") -> tuple[datetime, datetime]:
    """(start, end) of ISO week `YYYY-Www` in zone `tz`, as UTC datetimes."""
    match = _WEEK.match(week.strip())
    if not match:
        raise InputError(f"week: expected YYYY-Www (e.g. 2026-W48), got {week!r}")
    year, number = int(match.group(1)), int(match.group(2))
    try:
        monday = date.fromisocalendar(year, number, 1)
    except ValueError:
        raise InputError(f"week: {year} has no week {number}") from None
    start = datetime.combine(monday, time(0), tzinfo=zone(tz))
    return start.astimezone(UTC), (start + timedelta(days=7)).astimezone(UTC)

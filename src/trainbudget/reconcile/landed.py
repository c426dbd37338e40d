"""What a landing tells the review: a warning line per landed file, and (without --week) the
week the run's sacct files cover."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trainbudget.reconcile.history import landed_weeks, newest_sacct_source

if TYPE_CHECKING:
    from datetime import datetime

    from trainbudget.ledger import Ledger
    from trainbudget.reconcile.land import Landed


def landed_week(
    ledger: Ledger, landed: list[Landed], tz: str
) -> tuple[str, tuple[datetime, datetime]] | None:
    """The weeks the sacct files of this run cover (landed now or before), else those of the
    newest landing: their name and bounds; None (everything) only when no line has a time."""
    ids = [item.source_id for item in landed if item.kind == "sacct" and item.source_id]
    # Files whose every line a later export replaced cover no week of their own.
    return (ids and landed_weeks(ledger, ids, tz)) or landed_weeks(
        ledger, newest_sacct_source(ledger), tz
    )


def landing_warnings(landed: list[Landed]) -> list[str]:
    """One line per file with quarantined rows, nothing landed, or landed before."""
    warnings = []
    for item in landed:
        if item.rejected:
            warnings.append(
                f"{item.path}: nothing landed: {item.rows_quarantined} rows quarantined, "
                "so it is not marked landed (landing it again retries it)"
            )
        elif item.rows_quarantined:
            first = f"; first: {item.first_rejection}" if item.first_rejection else ""
            warnings.append(
                f"{item.path}: {item.rows_quarantined} rows quarantined (table quarantine{first})"
            )
        if item.already_landed:
            warnings.append(f"{item.path}: already landed (same content); nothing new")
        warnings += [f"{item.path}: {note}" for note in item.notes]
    return warnings

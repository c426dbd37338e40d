"""The quarantine verdict: a report (and so its Prefect verdict artifact) says what its run
quarantined, right beside the gate verdicts, in the words of the command's stderr."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from trainbudget.report.model import Report, Verdict

if TYPE_CHECKING:
    from trainbudget.quarantine import QuarantineSummary

# Files named in the verdict's sentence; the rest are counted ("and 2 more files").
SHOWN_FILES = 3


def quarantine_verdict(quarantine: QuarantineSummary) -> Verdict | None:
    """A `warn` verdict naming each file, its rows and the first reason; None when clean."""
    if not quarantine.files:
        return None
    said = [
        f"{f.path}: {f.rows} row(s)" + (f" (first: {f.first})" if f.first else "")
        for f in quarantine.files[:SHOWN_FILES]
    ]
    more = len(quarantine.files) - SHOWN_FILES
    if more > 0:
        said.append(f"and {more} more file(s)")
    reason = "; ".join(said) + "; kept in the ledger's quarantine table, in no figure here"
    rows = quarantine.rows
    return Verdict(
        "quarantine", f"{rows} row{'s' if rows != 1 else ''} quarantined", reason, "warn"
    )


def with_quarantine(report: Report, quarantine: QuarantineSummary) -> Report:
    """`report` with the quarantine verdict after the gate verdicts (unchanged when clean)."""
    verdict = quarantine_verdict(quarantine)
    return report if verdict is None else replace(report, verdicts=[*report.verdicts, verdict])

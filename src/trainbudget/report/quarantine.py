"""What a run quarantined, file by file, and the verdict that says so.

One typed summary the procedures' results carry (`PrelaunchResult.quarantine`,
`WeeklyResult.quarantine`) and every door shows the same way: a stderr line per file,
`quarantined` in `--json` and summary.json, and a verdict in the report (and so its Prefect
verdict artifact) right beside the gate verdicts, in the words of the command's stderr.
Plain data: no stage imports it back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from trainbudget.report.model import Report, Verdict


@dataclass(frozen=True)
class QuarantinedFile:
    """One input file's rejected rows: how many, and the first one's "line N: reason"."""

    path: str
    kind: str  # pilot, sacct, registry, progress, manifest
    rows: int
    first: str | None


@dataclass(frozen=True)
class QuarantineSummary:
    """The rows a run put in the ledger's quarantine table (or, without a ledger, rejected)."""

    files: tuple[QuarantinedFile, ...] = ()

    @classmethod
    def of(cls, files: Iterable[QuarantinedFile]) -> QuarantineSummary:
        """The summary of the files that quarantined at least one row, in the order given."""
        return cls(tuple(f for f in files if f.rows))

    @property
    def rows(self) -> int:
        return sum(f.rows for f in self.files)

    def lines(self) -> list[str]:
        """One warning line per file, for stderr (as `trainbudget pilot` words it)."""
        return [
            f"{f.path}: {f.rows} row(s) rejected and quarantined"
            + (f"; first: {f.first}" if f.first else "")
            for f in self.files
        ]

    def payload(self) -> dict[str, Any]:
        """`quarantined` in --json and summary.json: the row count and each file."""
        return {
            "rows": self.rows,
            "files": [
                {"path": f.path, "kind": f.kind, "rows": f.rows, "first": f.first}
                for f in self.files
            ],
        }


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

"""What a run quarantined, file by file: one typed summary the procedures' results carry
(`PrelaunchResult.quarantine`, `WeeklyResult.quarantine`) and every door shows the same way:
a stderr line per file, `quarantined` in `--json` and summary.json, a verdict in the report
and the Prefect verdict artifact (report/quarantine.py). Plain data: no stage imports it back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


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

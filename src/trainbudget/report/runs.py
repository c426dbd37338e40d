"""What every flow run leaves: its report folder, `summary.json` (DESIGN.md, Run summaries) and
the report root's refreshed index.html.

The summary is the object the flow returns and what a script reads instead of the HTML:
`flow`, `campaign`, `week` (weekly only), `planned_gpu_hours`, `mfu`, `mfu_source` and `gates`
(each `gate`, `outcome`, `reason`). Numbers stay exact (Decimal) until they are written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.base.exact_json import dumps
from trainbudget.report.index import write_index

if TYPE_CHECKING:
    from trainbudget.estimate.mfu_rule import MfuChoice
    from trainbudget.gates.outcome import GateOutcome

SUMMARY_FILE = "summary.json"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def run_folder(report_root: Path, *parts: str) -> Path:
    """`report_root/<parts joined by ->`, each part reduced to a safe file name.

    A campaign name comes from a plan someone edited: `x/../../escaped` must not write outside
    the report root, so separators and dots-only names are replaced, never followed.
    """
    name = "-".join(_UNSAFE.sub("_", part).strip("._") or "_" for part in parts)
    folder = Path(report_root) / name
    if folder.resolve().parent != Path(report_root).resolve():
        raise InputError(f"campaign: {name!r} does not make a folder name under {report_root}")
    return folder


@dataclass(frozen=True)
class RunSummary:
    """One flow run's figures: planned GPU-hours, the MFU it used and the gate outcomes."""

    flow: str
    campaign: str
    planned_gpu_hours: Decimal
    mfu: MfuChoice
    gates: list[GateOutcome]
    report: Path
    week: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The summary.json object (exact numbers; `output.dumps` writes Decimals as numbers)."""
        body: dict[str, Any] = {"flow": self.flow, "campaign": self.campaign}
        if self.week is not None:
            body["week"] = self.week
        return body | {
            "planned_gpu_hours": self.planned_gpu_hours,
            **self.mfu.as_dict(),
            "gates": [
                {"gate": g.gate, "outcome": g.outcome, "reason": g.reason} for g in self.gates
            ],
            "report": str(self.report),
            **self.extra,
        }


def write_summary(summary: RunSummary) -> dict[str, Any]:
    """Write summary.json beside the run's report.html and refresh the report root's
    index.html (the reports' "All runs" link); return the object written."""
    body = summary.as_dict()
    folder = summary.report.parent
    (folder / SUMMARY_FILE).write_bytes(dumps(body) + b"\n")
    write_index(folder.parent)
    return body

"""The `reconcile --json` payload of a ReconcileResult (public contract), without its jobs.

The jobs array is written by DuckDB to a file; the command line streams it in as the last key
(cli/output.py: emit_with_array) instead of parsing and re-serialising it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from trainbudget.reconcile.billing import billing_payload
from trainbudget.reconcile.goodput import goodput_payload
from trainbudget.reconcile.invariants import check_review

if TYPE_CHECKING:
    from trainbudget.estimate.mfu_rule import MfuChoice
    from trainbudget.plan import Plan
    from trainbudget.reconcile.land import Landed
    from trainbudget.reconcile.review import Review


@dataclass(frozen=True)
class ReconcileResult:
    """What was landed, the review, the plan it was read against, warnings for stderr, and
    the variance as printed (the weekly procedure adds the continuation gate's verdict)."""

    week: str | None
    week_bounds: tuple[datetime, datetime] | None
    landed: list[Landed]
    plan: Plan | None
    mfu: MfuChoice | None
    review: Review
    warnings: list[str]
    variance: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        check_review(self.review)  # every identity the review's figures print (BrokenIdentity)


def reconcile_payload(result: ReconcileResult) -> dict[str, Any]:
    """Contract keys: jobs, totals, variance, diagnosis (DESIGN.md); the rest is detail."""
    rv = result.review
    start, end = result.week_bounds or (None, None)
    return {
        "week": result.week,
        "week_start": start,
        "week_end": end,
        "landed": [
            {k: v for k, v in vars(item).items() if k != "source_id"} for item in result.landed
        ],
        "totals": rv.totals,
        "variance": result.variance,
        "diagnosis": rv.diagnosis,
        "breakdown": rv.breakdown,
        "failure_fraction": rv.failure_fraction,
        "estimate_audit": rv.audit,
        "calibration": rv.calibration,
        "goodput": goodput_payload(rv.goodput, result.plan.campaign if result.plan else None),
        "forecast_audit": list(rv.forecast_audit),
        "billing": None if rv.billing is None else billing_payload(rv.billing),
        "burn_down": None if rv.burn_down is None else rv.burn_down.as_dict(),
        "warnings": list(result.warnings),  # each also a line on stderr
    }

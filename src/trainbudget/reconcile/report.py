"""The `reconcile --json` payload of a ReconcileResult (public contract), without its jobs.

The jobs array is written by DuckDB to a file; the command line streams it in as the last key
(cli/output.py: emit_with_array) instead of parsing and re-serialising it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trainbudget.gates.weekly import with_continuation
from trainbudget.reconcile.goodput import goodput_payload

if TYPE_CHECKING:
    from trainbudget.weekly import ReconcileResult


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
        "variance": with_continuation(rv.variance),
        "diagnosis": rv.diagnosis,
        "breakdown": rv.breakdown,
        "failure_fraction": rv.failure_fraction,
        "estimate_audit": rv.audit,
        "calibration": rv.calibration,
        "goodput": goodput_payload(rv.goodput, result.plan.campaign if result.plan else None),
        "forecast_audit": list(rv.forecast_audit),
        "warnings": list(result.warnings),  # each also a line on stderr
    }

"""The audit of the main-run forecast (seed 001): forecast against measured, line by line.

A campaign in progress has spent part of its allocation, so each overhead line is compared
as a share of the main run's GPU-hours: forecast line ÷ `main_gpu_hours` against measured
cause ÷ allocated to date. ETTR and MTBF compare directly. A line not measured (no
`write_seconds` on checkpoint events, no interruption yet) has actual None.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.reliability.measured import Measured

if TYPE_CHECKING:
    from trainbudget.estimate.campaign import CampaignEstimate
    from trainbudget.ledger import Ledger
    from trainbudget.reconcile.review import Review

HOUR = Decimal(3600)
# forecast overhead line → the measured badput cause it is compared with (reconcile/goodput.py)
LINES = {
    "checkpoint_writes": "checkpoint_write_gpu_seconds",
    "lost_progress": "lost_progress_gpu_seconds",
    "restarts": "restart_gpu_seconds",
}


def _ratio(actual: Decimal | None, forecast: Decimal | None) -> Decimal | None:
    if actual is None or not forecast:
        return None
    return actual / forecast


def forecast_audit(forecast: Mapping[str, Any], measured: Measured) -> list[dict[str, Any]]:
    """Rows of `line`, `forecast`, `actual`, `actual_over_forecast` and `basis` for ETTR,
    MTBF, each overhead line (as a share of the main run) and the recomputation."""
    main = Decimal(str(forecast["main_gpu_hours"]))
    allocated = Decimal(measured.allocated_gpu_seconds) / HOUR
    rows = []
    ettr = Decimal(str(forecast["ettr"])) if forecast.get("ettr") is not None else None
    rows.append(
        {"line": "ettr", "forecast": ettr, "actual": measured.ettr, "basis": "ratio",
         "actual_over_forecast": _ratio(measured.ettr, ettr)}
    )  # fmt: skip
    mtbf = forecast.get("mtbf_hours")
    mtbf = Decimal(str(mtbf)) if mtbf is not None else None
    rows.append(
        {"line": "mtbf_hours", "forecast": mtbf, "actual": measured.observed_mtbf_hours,
         "basis": "hours", "actual_over_forecast": _ratio(measured.observed_mtbf_hours, mtbf)}
    )  # fmt: skip
    overhead = forecast.get("overhead_gpu_hours") or {}
    for line, field in LINES.items():
        seconds = getattr(measured, field)
        # Zero writes may be "not measured"; zero restarts after an interruption is a zero.
        known = seconds > 0 or (line != "checkpoint_writes" and measured.interruptions > 0)
        share = Decimal(seconds) / HOUR / allocated if known and allocated else None
        planned = overhead.get(line)
        planned_share = Decimal(str(planned)) / main if planned is not None and main else None
        rows.append(
            {"line": line, "forecast": planned_share, "actual": share,
             "basis": "share of the main run's GPU-hours",
             "actual_over_forecast": _ratio(share, planned_share)}
        )  # fmt: skip
    rows.append(
        {"line": "recomputation", "forecast": None,
         "actual": Decimal(measured.recomputation_gpu_seconds) / HOUR / allocated
         if allocated else None,
         "basis": "share of the main run's GPU-hours (the forecast prices it in lost_progress)",
         "actual_over_forecast": None}
    )  # fmt: skip
    return rows


def with_forecast_audit(
    ledger: Ledger, campaign: str, planned: CampaignEstimate | None, result: Review
) -> Review:
    """The review with the forecast audited against what this campaign measured (seed 001)."""
    if planned is None or planned.forecast is None:
        return result
    from dataclasses import replace

    from trainbudget.estimate.forecast_lines import forecast_payload
    from trainbudget.reliability.measured import latest

    measured = latest(ledger, campaign)
    if measured is None:
        return result
    rows = forecast_audit(forecast_payload(planned.forecast), measured)
    return replace(result, forecast_audit=tuple(rows))

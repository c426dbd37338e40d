"""The `campaign --json` payload of a CampaignEstimate: contract keys (DESIGN.md) first."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trainbudget.estimate.campaign import CampaignEstimate


def campaign_payload(result: CampaignEstimate) -> dict[str, Any]:
    """The JSON object of `campaign --json`; numbers stay exact until serialised."""
    forecast = result.main_band  # no reliability section: the main line's source and band
    if result.forecast is not None:  # the forecast's modules load only for a plan that has one
        from trainbudget.estimate.forecast_lines import forecast_payload

        forecast = forecast_payload(result.forecast)
    payload = {
        "campaign": result.campaign,
        "unit_of_progress": result.unit_of_progress,
        "lines": [asdict(line) for line in result.lines],
        "planned_work_gpu_hours": result.planned_work_gpu_hours,
        "contingency_gpu_hours": result.contingency_gpu_hours,
        "planned_gpu_hours": result.planned_gpu_hours,
        "gpu_hour_usd": result.gpu_hour_usd,
        "compute_usd": result.compute_usd,
        "storage_gb_months": result.storage_gb_months,
        "storage_gb_month_usd": result.storage_gb_month_usd,
        "storage_usd": result.storage_usd,
        "total_usd": result.total_usd,
        "sensitivity_model": "P + n·T·(1 + f) + E (+ D); replaces the retry line",
        "sensitivity": [asdict(case) for case in result.sensitivity],
        "ceiling": asdict(result.ceiling),
        "main": None if result.main is None else result.main.to_dict(),
        "cadence": None if result.cadence is None else asdict(result.cadence),
        "capacity": [asdict(cost) for cost in result.capacity],
        "forecast": forecast,
        "warnings": list(result.warnings),
    }
    if result.billing is not None:  # cluster.billing: each line and the total in its units
        from trainbudget.estimate.billing import billing_payload

        payload = billing_payload(payload, result.billing)
    return payload

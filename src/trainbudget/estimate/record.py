"""Landing estimates in the ledger so later weeks can audit estimate against actual.

`estimate --run-id` lands one `run_estimates` row; `campaign --record` lands the plan (as
plan.land_plan does) and its priced lines, all in one transaction. Re-landing the same plan
file is a no-op, as for every input.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger

_OUTPUT_KEYS = ("flops", "wall_seconds", "wall_hours", "wall_days", "gpu_hours", "dollar_cost")


def _text(payload: dict[str, Any], keys: tuple[str, ...] | None = None) -> str:
    """JSON with exact numbers kept as their decimal text (the ledger's audit copy)."""
    import orjson

    def exact(value: Any) -> Any:
        if isinstance(value, Decimal):
            return f"{value:f}"
        raise TypeError(type(value).__name__)

    chosen = payload if keys is None else {k: payload[k] for k in keys}
    return orjson.dumps(chosen, default=exact).decode()


def land_run_estimate(
    ledger: Ledger, run_id: str, payload: dict[str, Any], campaign: str | None = None
) -> int:
    """Insert one estimate (a payload with the `estimate` JSON keys); return its estimate_id."""
    if not run_id.strip():
        raise InputError("run_id: must not be empty")
    inputs = {k: v for k, v in payload.items() if k not in _OUTPUT_KEYS and k != "memory"}
    with ledger.transaction():
        estimate_id = ledger.next_id("estimate_id_seq")
        ledger.insert_rows(
            "run_estimates",
            [{"estimate_id": estimate_id, **_row(run_id, campaign, payload, inputs)}],
        )
    return estimate_id


def _row(
    run_id: str, campaign: str | None, payload: dict[str, Any], inputs: dict[str, Any]
) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "campaign": campaign,
        "method": payload["method"],
        "gpu": payload.get("gpu"),
        "gpus": payload["gpus"],
        "peak_flops_per_second": float(payload["peak_flops_per_second"]),
        "mfu": float(payload["mfu"]),
        "mfu_source": payload["mfu_source"],
        "price_usd_per_gpu_hour": float(payload["price_usd_per_gpu_hour"]),
        "flops": float(payload["flops"]),
        "wall_seconds": float(payload["wall_seconds"]),
        "gpu_hours": float(payload["gpu_hours"]),
        "dollar_cost": float(payload["dollar_cost"]),
        "inputs_json": _text(inputs),
        "outputs_json": _text(payload, _OUTPUT_KEYS),
        "estimated_at": datetime.now(UTC),
    }


def record_estimate(ledger_file: Path | None, run_id: str, payload: dict[str, Any]) -> Path:
    """Open the ledger, land the estimate, return the ledger's path."""
    from trainbudget.ledger import Ledger

    with Ledger.open(ledger_file) as book:
        payload["estimate_id"] = land_run_estimate(book, run_id, payload)
        return book.path


def land_campaign(ledger: Ledger, plan_file: Path, payload: dict[str, Any]) -> int:
    """Land the plan and its campaign lines in one transaction; 0 if this plan was landed."""
    from trainbudget.plan import land_plan

    main = payload.get("main") or {}
    with ledger.transaction():
        land_plan(ledger, plan_file)
        source = ledger.begin_source(plan_file, "campaign_estimate")
        if source is None:
            return 0
        now = datetime.now(UTC)
        rows = [
            {
                "campaign": payload["campaign"],
                "work_class": line["work_class"],
                "name": line["name"],
                "kind": line["kind"],
                "gpu_hours": line["gpu_hours"],
                "usd": line["usd"],
                "gb_months": line["gb_months"],
                "detail": line["detail"],
                "mfu_source": main.get("mfu_source") if line["work_class"] == "main" else None,
                "estimated_at": now,
                **source.provenance(None),
            }
            for line in payload["lines"]
        ]
        ledger.insert_rows("campaign_lines", rows)
        ledger.finish_source(source, len(rows))
    return len(rows)

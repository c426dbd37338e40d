"""The audit trail: every gate outcome written to the ledger's `decisions` table, and read back.

`record_decision` joins the caller's transaction when there is one (`ledger.transaction()`
nests), so a flow's landing and the decisions it caused commit or roll back together.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson

from trainbudget.gates.outcome import GateOutcome
from trainbudget.output import dumps

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger


def record_decision(
    ledger: Ledger,
    outcome: GateOutcome,
    *,
    campaign_id: str | None = None,
    run_id: str | None = None,
    decided_at: datetime | None = None,
) -> int:
    """Write one gate outcome with its inputs; return its decision_id."""
    with ledger.transaction():
        ((decision_id,),) = ledger.query(
            "gates/insert_decision",
            decided_at=decided_at or datetime.now(UTC),
            gate=outcome.gate,
            campaign_id=campaign_id,
            run_id=run_id,
            outcome=outcome.outcome,
            reason=outcome.reason,
            sentence=outcome.sentence,
            inputs=dumps(dict(outcome.inputs)).decode(),
            details=dumps(dict(outcome.details)).decode(),
        )
    return decision_id


def list_decisions(
    ledger: Ledger,
    campaign_id: str | None = None,
    gate: str | None = None,
    limit: int = 1000,
) -> list[dict[str, Any]]:
    """Decisions oldest first (the newest `limit`), optionally for one campaign or gate."""
    rows = ledger.records("gates/list_decisions", campaign_id=campaign_id, gate=gate, limit=limit)
    for row in rows:
        row["inputs"] = orjson.loads(row["inputs"])
        row["details"] = orjson.loads(row["details"])
    return rows

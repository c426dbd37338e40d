"""The audit trail: every gate outcome written to the ledger's `decisions` table, and read back.

The gates decide from plain values and return a `GateOutcome`; recording it is the ledger's
(the procedures call `record_decision` inside their run's transaction). An outcome is read
by its fields only, so nothing here imports the gates.

A decision is recorded once: its key is the sha256 of the canonical JSON of the gate, campaign,
run, outcome, reason, inputs and details, so running a flow again on the same inputs adds no
row, and a changed input (another figure in `inputs`) records a new one.

`record_decision` joins the caller's transaction when there is one (`ledger.transaction()`
nests), so a flow's landing and the decisions it caused commit or roll back together.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson

from trainbudget.base.errors import InputError
from trainbudget.base.exact_json import dumps
from trainbudget.base.vocabulary import GATES

if TYPE_CHECKING:
    from trainbudget.gates.outcome import GateOutcome
    from trainbudget.ledger.store import Ledger


def record_decision(
    ledger: Ledger,
    outcome: GateOutcome,
    *,
    campaign_id: str | None = None,
    run_id: str | None = None,
    decided_at: datetime | None = None,
) -> int:
    """Write one gate outcome with its inputs; return its decision_id (the earlier one when
    this gate already decided the same for the same campaign, run and inputs)."""
    inputs = dumps(dict(outcome.inputs)).decode()
    details = dumps(dict(outcome.details)).decode()
    key = decision_key(outcome, campaign_id, run_id)
    with ledger.transaction():
        earlier = ledger.query("gates/find_decision", decision_key=key)
        if earlier:
            return int(earlier[0][0])
        ledger.claim("decision", key)  # two runs deciding the same at once: one is retried
        decision_id = ledger.next_id("decision_id_seq")
        ledger.execute(
            "gates/insert_decision",
            decision_id=decision_id,
            decided_at=decided_at or datetime.now(UTC),
            gate=outcome.gate,
            campaign_id=campaign_id,
            run_id=run_id,
            outcome=outcome.outcome,
            reason=outcome.reason,
            sentence=outcome.sentence,
            inputs=inputs,
            details=details,
            decision_key=key,
        )
    return decision_id


def decision_key(outcome: GateOutcome, campaign_id: str | None, run_id: str | None) -> str:
    """The content key of a decision: sha256 hex of its canonical JSON (sorted keys)."""
    basis = {
        "gate": outcome.gate,
        "campaign_id": campaign_id,
        "run_id": run_id,
        "outcome": outcome.outcome,
        "reason": outcome.reason,
        "inputs": dict(outcome.inputs),
        "details": dict(outcome.details),
    }
    return hashlib.sha256(dumps(_sorted(basis))).hexdigest()


def _sorted(value: Any) -> Any:
    """`value` with every mapping's keys in sorted order (orjson keeps insertion order)."""
    if isinstance(value, Mapping):
        return {k: _sorted(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list | tuple):
        return [_sorted(v) for v in value]
    return value


def list_decisions(
    ledger: Ledger,
    campaign_id: str | None = None,
    gate: str | None = None,
    limit: int = 1000,
) -> list[dict[str, Any]]:
    """Decisions oldest first (the newest `limit`), optionally for one campaign or gate;
    InputError for a gate that is none of GATES (an unknown name matches nothing)."""
    if gate is not None and gate not in GATES:
        raise InputError(f"--gate: unknown gate {gate!r}; the gates are {', '.join(GATES)}")
    rows = ledger.records("gates/list_decisions", campaign_id=campaign_id, gate=gate, limit=limit)
    for row in rows:
        row["inputs"] = orjson.loads(row["inputs"])
        row["details"] = orjson.loads(row["details"])
    return rows

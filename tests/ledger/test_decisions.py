"""The audit trail: decisions land with their inputs, join the caller's transaction (and roll
back with it), and list by campaign."""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path

import pytest

from trainbudget.gates.admission import AdmissionRequest, admit_run
from trainbudget.gates.campaign import continue_main_run
from trainbudget.ledger.decisions import list_decisions, record_decision
from trainbudget.plan import land_plan

REPO_ROOT = Path(__file__).resolve().parents[2]
PLAN = REPO_ROOT / "examples" / "demo-7b.plan.yaml"


def test_a_decision_keeps_gate_inputs_outcome_reason_and_ids(ledger) -> None:
    outcome = admit_run(AdmissionRequest(D(28), D(23), D(2)))
    decision_id = record_decision(ledger, outcome, campaign_id="demo-7b", run_id="main-1")
    (row,) = list_decisions(ledger, campaign_id="demo-7b")
    assert row["decision_id"] == decision_id
    assert (row["gate"], row["outcome"], row["reason"]) == ("admission", "defer", "budget")
    assert row["run_id"] == "main-1"
    assert row["inputs"]["estimated_gpu_hours"] == 28
    assert row["inputs"]["budget_gpu_hours"] == 23
    assert row["details"]["reserved_gpu_hours"] == 0
    assert row["decided_at"].tzinfo is not None


def test_decisions_commit_with_the_landing_that_caused_them(ledger) -> None:
    with ledger.transaction():
        land_plan(ledger, PLAN)
        record_decision(ledger, continue_main_run(D(600), D(652), D(2000)), campaign_id="demo-7b")
    counts = dict(ledger.table_counts())
    assert counts["plans"] == 1 and counts["decisions"] == 1


def test_a_failure_after_the_decision_rolls_both_back(ledger) -> None:
    with pytest.raises(RuntimeError, match="crash"), ledger.transaction():
        land_plan(ledger, PLAN)
        record_decision(ledger, continue_main_run(D(600), D(652), D(2000)), campaign_id="demo-7b")
        raise RuntimeError("crash")
    counts = dict(ledger.table_counts())
    assert counts["plans"] == 0 and counts["decisions"] == 0


def test_listing_filters_by_campaign_and_gate_oldest_first(ledger) -> None:
    for campaign, spent in (("a", 1), ("b", 2), ("a", 3)):
        record_decision(ledger, continue_main_run(D(spent), D(0), D(10)), campaign_id=campaign)
    record_decision(ledger, admit_run(AdmissionRequest(D(1), D(2), D(0))), campaign_id="a")
    rows = list_decisions(ledger, campaign_id="a")
    assert [r["inputs"].get("spent_gpu_hours") for r in rows] == [1, 3, None]
    assert [r["gate"] for r in list_decisions(ledger, gate="admission")] == ["admission"]
    newest = list_decisions(ledger, limit=2)
    assert [r["decision_id"] for r in newest] == [3, 4]

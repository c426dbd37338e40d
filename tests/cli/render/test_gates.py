"""The gate verdicts on the terminal, rendered from their JSON payloads."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from rich.console import Console

from trainbudget.cli.render.gates import (
    render_admission,
    render_decision,
    render_decisions,
    render_stop_rules,
)


def _text(render, payload) -> str:
    console = Console(record=True, width=200, highlight=False)
    render(console, payload)
    return console.export_text()


def test_a_defer_lists_every_reason_and_the_recorded_decision() -> None:
    payload = {
        "state": "defer",
        "sentence": "Defer: 28 GPU-hours exceed the 23 budget [sic].",
        "reasons": [
            {"reason": "budget", "sentence": "first"},
            {"reason": "runtime", "sentence": "3 h is over the 2 h queue limit"},
        ],
        "decision_id": 7,
    }
    text = _text(render_admission, payload)
    assert text.startswith("DEFER Defer: 28 GPU-hours exceed the 23 budget [sic].")
    assert "also runtime: 3 h is over the 2 h queue limit" in text
    assert "first" not in text  # the first reason is the sentence itself
    assert "recorded as decision 7 in the ledger" in text


def test_stop_and_continue_verdicts() -> None:
    stop = {"outcome": "stop", "sentence": "Stop: 10 h reach the 8-hour maximum.", "decision_id": 2}
    assert _text(render_stop_rules, stop).startswith("STOP Stop: 10 h reach the 8-hour maximum.")
    going = {**stop, "outcome": "continue", "sentence": "Continue."}
    assert _text(render_stop_rules, going).startswith("CONTINUE Continue.")


def test_decisions_are_listed_in_utc_with_campaign_and_run() -> None:
    amsterdam = timezone(timedelta(hours=1))
    row = {
        "decision_id": 3,
        "decided_at": datetime(2026, 11, 30, 9, 30, tzinfo=amsterdam),
        "gate": "admission",
        "campaign_id": "demo-7b",
        "run_id": "main-1",
        "outcome": "defer",
        "reason": "budget",
        "sentence": "Defer: over budget.",
    }
    text = _text(render_decisions, {"decisions": [row], "campaign": "demo-7b"})
    assert "1 decision(s) for campaign demo-7b" in text
    assert "#3 2026-11-30 08:30:00 UTC admission [demo-7b/main-1] defer (budget)" in text


def test_unpriced_alternatives_show_a_dash() -> None:
    alternative = {
        "name": "distillation",
        "gpu_hours": None,
        "cost_usd": None,
        "predicted_gain": None,
        "gain_per_1000_usd": None,
        "description": "distil a larger model",
        "note": "give the teacher's size",
    }
    priced = {
        **alternative,
        "name": "shorter-run",
        "gpu_hours": 2804.49,
        "cost_usd": 4206.73,
        "predicted_gain": 0.012345,
        "gain_per_1000_usd": 0.0029346,
    }
    payload = {
        "verdict": "run",
        "sentence": "Run.",
        "cost_basis_sentence": "priced the clean run only (no --plan)",
        "alternatives": [priced, alternative],
        "decision_id": 4,
    }
    lines = _text(render_decision, payload).splitlines()
    (shorter,) = [line for line in lines if "shorter-run" in line and "│" in line]
    for shown in ("2,804", "$4,206.73", "0.01235", "0.00293"):
        assert shown in shorter
    (distil,) = [line for line in lines if "distillation" in line and "│" in line]
    assert distil.count("-") >= 4

"""Gate outcomes become verdict lines with the right tone."""

from __future__ import annotations

import pytest

from trainbudget.gates.outcome import GateOutcome
from trainbudget.report.verdicts import tone_of, verdict_of


@pytest.mark.parametrize(
    ("outcome", "tone"),
    [
        ("admit", "good"),
        ("run", "good"),
        ("continue", "good"),
        ("authorize", "good"),
        ("defer", "bad"),
        ("stop", "bad"),
        ("deny", "bad"),
        ("not-worth-it", "bad"),
        ("collect-more-data", "warn"),
        ("expire", "warn"),
    ],
)
def test_tone_of_outcome(outcome: str, tone: str) -> None:
    assert tone_of(outcome) == tone


def test_verdict_carries_the_sentence_and_reason_code() -> None:
    outcome = GateOutcome("admission", "defer", "budget", "Defer: 28 > 23 GPU-hours.")
    verdict = verdict_of(outcome)
    assert (verdict.subject, verdict.outcome, verdict.tone) == ("admission", "defer", "bad")
    assert verdict.reason == "Defer: 28 > 23 GPU-hours. (budget)"

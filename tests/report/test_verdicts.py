"""Gate outcomes become verdict lines with the right tone; the retry cost is the plan's line."""

from __future__ import annotations

from decimal import Decimal

import pytest

from trainbudget.gates.outcome import GateOutcome
from trainbudget.plan import parse_plan
from trainbudget.report.decisions import retry_cost_usd
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


PLAN = """\
campaign: c
unit_of_progress: tokens
prices: {gpu_hour_usd: 2.40}
ceiling: {gpu_hours: 100}
main: {gpus: 8, hours: 10}
"""


def test_retry_cost_is_one_attempt_of_the_first_retry_line() -> None:
    with_retries = parse_plan(PLAN + "retries: [{attempts: 2, gpus: 8, hours: 10}]\n")
    # One attempt: 8 GPUs × 10 h × $2.40 = $192.
    assert retry_cost_usd(with_retries) == Decimal("192.00")
    assert retry_cost_usd(parse_plan(PLAN)) == 0

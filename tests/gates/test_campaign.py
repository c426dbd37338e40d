"""Seed 000's control loop: each gate on both sides of its boundary, with the seed's numbers,
and the property that a budget-stopped run is never promoted whatever else holds."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.gates.campaign import (
    Candidate,
    ReleaseEvidence,
    RetryRequest,
    authorize_retry,
    continue_main_run,
    promote_pilot,
    promote_release,
    promote_to_expensive_evaluation,
)
from trainbudget.gates.stop_rules import (
    EarlyStop,
    RunProgress,
    declare_stop_rules,
    evaluate_stop_rules,
)


@pytest.mark.parametrize(
    ("score", "outcome", "reason"),
    [
        ("0.62", "promote", None),
        ("0.6199", "reject", "below-correctness-floor"),
        ("0.9", "promote", None),
    ],
)
def test_pilot_promotion_at_the_correctness_floor(score, outcome, reason) -> None:
    result = promote_pilot(Candidate("lr-3e-4", D(score)), D("0.62"))
    assert (result.outcome, result.reason) == (outcome, reason)


@pytest.mark.parametrize("state", ["incomplete", "failed", "in-progress"])
def test_pilot_with_an_unfinished_artifact_is_not_promoted(state) -> None:
    result = promote_pilot(Candidate("lr-3e-4", D("0.99"), state), D("0.5"))
    assert (result.outcome, result.reason) == ("reject", f"artifact-{state}")


def test_continuation_with_the_seed_numbers() -> None:
    # Seed 000: 1,252 planned GPU-hours against a 2,000 ceiling (examples/demo-7b.plan.yaml).
    # 600 spent + 652 remaining = 1,252, 748 to spare.
    ok = continue_main_run(D(600), D(652), D(2000))
    assert ok.outcome == "continue"
    assert ok.details["projected_gpu_hours"] == 1252
    assert ok.details["headroom_gpu_hours"] == 748


@pytest.mark.parametrize(
    ("spent", "remaining", "outcome"),
    [("1400", "600", "continue"), ("1400", "600.01", "stop"), ("2000.5", "0", "stop")],
)
def test_continuation_stops_only_when_the_projection_exceeds_the_ceiling(
    spent, remaining, outcome
) -> None:
    result = continue_main_run(D(spent), D(remaining), D(2000))
    assert result.outcome == outcome
    if outcome == "stop":
        assert result.reason == "over-ceiling"
        over = D(spent) + D(remaining) - 2000
        assert result.details["headroom_gpu_hours"] == -over


def test_continuation_rejects_negative_hours() -> None:
    with pytest.raises(InputError, match="remaining_gpu_hours"):
        continue_main_run(D(1), D(-1), D(2000))


@pytest.mark.parametrize(
    ("cause", "addressed", "value", "cost", "outcome", "reason"),
    [
        ("NODE_FAIL", True, "0", "192", "authorize", "cause-addressed"),
        ("NODE_FAIL", False, "192.01", "192", "authorize", "value-exceeds-cost"),
        ("NODE_FAIL", False, "192", "192", "deny", "cause-unaddressed"),
        (None, True, "10", "192", "deny", "cause-unaddressed"),
    ],
)
def test_retry_authorization(cause, addressed, value, cost, outcome, reason) -> None:
    result = authorize_retry(RetryRequest(cause, addressed, D(value), D(cost)))
    assert (result.outcome, result.reason) == (outcome, reason)


def test_retry_limit_is_checked_before_anything_else() -> None:
    addressed = RetryRequest("OOM", True, D(1000), D(10), attempts_used=2)
    assert authorize_retry(addressed, max_attempts=2).reason == "retry-limit"
    assert authorize_retry(addressed, max_attempts=3).outcome == "authorize"


@pytest.mark.parametrize(("score", "outcome"), [("0.40", "run"), ("0.39", "skip")])
def test_expensive_evaluation_only_after_the_cheap_suite(score, outcome) -> None:
    result = promote_to_expensive_evaluation(Candidate("step-8000", D(score)), D("0.40"))
    assert result.outcome == outcome


@pytest.mark.parametrize(
    ("state", "passed", "score", "reason"),
    [
        ("complete", True, "0.7", None),
        ("early-stopped", True, "0.7", None),
        ("complete", None, "0.7", "missing-release-evidence"),
        ("complete", False, "0.7", "full-evaluation-failed"),
        ("complete", True, "0.69", "below-correctness-floor"),
        ("incomplete", True, "0.99", "artifact-incomplete"),
    ],
)
def test_release_promotion_needs_complete_evidence(state, passed, score, reason) -> None:
    result = promote_release(ReleaseEvidence("run-7", state, passed, D(score)), D("0.7"))
    assert result.reason == reason
    assert result.outcome == ("promote" if reason is None else "reject")


@given(
    spent=st.decimals(min_value=0, max_value=10_000, places=2),
    limit=st.decimals(min_value=0, max_value=10_000, places=2),
    wall=st.decimals(min_value=0, max_value=500, places=2),
    failed=st.integers(0, 100),
    finished=st.booleans(),
    history=st.lists(st.floats(0, 5), max_size=6),
    correctness=st.decimals(min_value=-1, max_value=2, places=3),
    floor=st.decimals(min_value=-1, max_value=2, places=3),
    full_evaluation=st.sampled_from([True, False, None]),
)
def test_a_budget_stopped_run_is_never_promoted(
    spent, limit, wall, failed, finished, history, correctness, floor, full_evaluation
) -> None:
    rules = declare_stop_rules(
        development_metrics=["val_loss"],
        spend_limit_usd=limit,
        max_wall_hours=D(1000),
        max_failed_steps=50,
        early_stop=EarlyStop("val_loss", patience=2),
    )
    stop = evaluate_stop_rules(
        rules, RunProgress(wall, spent, failed, {"val_loss": history}, finished)
    )
    state = stop.details["artifact_state"]
    release = promote_release(ReleaseEvidence("r", state, full_evaluation, correctness), floor)
    pilot = promote_pilot(Candidate("r", correctness, state), floor)
    if spent >= limit:
        assert stop.reason == "spend-limit"
        assert release.outcome == "reject" and pilot.outcome == "reject"

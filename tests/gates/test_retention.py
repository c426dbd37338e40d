"""Retention: each role kept for its period (boundary on both sides), recent recovery points
only, explicit holds, and the GB-months and dollars freed, checked by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal as D

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.gates.retention import (
    Artifact,
    RetentionPolicy,
    retain_artifacts,
    retention_outcome,
)

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
GB = 10**9
POLICY = RetentionPolicy(
    recovery_days=14, recovery_keep_last=2, promoted_days=180, final_days=730, evaluation_days=0
)


def art(aid, role, days_old, size_gb=180, experiment="exp-1", step=None, hold=None) -> Artifact:
    return Artifact(aid, experiment, role, size_gb * GB, NOW - timedelta(days=days_old), step, hold)


@pytest.mark.parametrize(("role", "period"), [("recovery", 14), ("promoted", 180), ("final", 730)])
def test_each_role_is_kept_for_its_period_and_no_longer(role, period) -> None:
    inside = art("a", role, period - 0.001, step=1)
    at_end = art("b", role, period, step=2)
    verdicts = {v.artifact_id: v for v in retain_artifacts([inside, at_end], POLICY, NOW)}
    assert verdicts["a"].keep and verdicts["a"].reason == f"{role}-period"
    assert not verdicts["b"].keep and verdicts["b"].reason == f"{role}-period-over"


def test_only_the_newest_recovery_points_of_each_experiment_are_kept() -> None:
    points = [art(f"r{step}", "recovery", 1, step=step) for step in (100, 300, 200)]
    other = art("x1", "recovery", 1, step=50, experiment="exp-2")
    verdicts = {v.artifact_id: v for v in retain_artifacts([*points, other], POLICY, NOW)}
    assert {aid for aid, v in verdicts.items() if v.keep} == {"r300", "r200", "x1"}
    assert verdicts["r100"].reason == "superseded-recovery-point"


def test_evaluation_outputs_expire_at_once_unless_held() -> None:
    held = art("e1", "evaluation", 3, hold=NOW + timedelta(days=1))
    lapsed = art("e2", "evaluation", 3, hold=NOW)
    verdicts = {v.artifact_id: v for v in retain_artifacts([held, lapsed], POLICY, NOW)}
    assert verdicts["e1"].keep and verdicts["e1"].reason == "held"
    assert not verdicts["e2"].keep


def test_freed_storage_matches_a_hand_calculation() -> None:
    # Seed 000's checkpoints are 180 GB each. Expire 3 of them (one superseded recovery point,
    # one evaluation output, one final artifact past 730 days): 540 GB. At $0.023 per
    # GB-month over 2 months that frees 540 × 2 = 1,080 GB-months, 1,080 × 0.023 = $24.84.
    artifacts = [
        art("r1", "recovery", 1, step=1),
        art("r2", "recovery", 1, step=2),
        art("r3", "recovery", 1, step=3),
        art("e1", "evaluation", 1),
        art("f1", "final", 731),
        art("p1", "promoted", 10),
    ]
    outcome = retention_outcome(retain_artifacts(artifacts, POLICY, NOW), D("0.023"), D(2))
    assert outcome.outcome == "expire"
    assert sorted(outcome.details["expired"]) == ["e1", "f1", "r1"]
    assert outcome.details["expired_gb"] == 540
    assert outcome.details["kept_gb"] == 540
    assert outcome.details["freed_gb_months"] == 1080
    assert outcome.details["freed_usd"] == D("24.84")
    assert "$24.84" in outcome.sentence


def test_nothing_expired_frees_nothing() -> None:
    outcome = retention_outcome(retain_artifacts([art("p", "promoted", 1)], POLICY, NOW), D(1))
    assert outcome.outcome == "keep"
    assert outcome.details["freed_usd"] == 0


@pytest.mark.parametrize(
    ("policy", "field"),
    [
        (RetentionPolicy(recovery_days=-1), "retention.recovery_days"),
        (RetentionPolicy(final_days=-30), "retention.final_days"),
        (RetentionPolicy(recovery_keep_last=-1), "retention.recovery_keep_last"),
    ],
)
def test_a_negative_period_is_an_error_naming_the_field(policy, field) -> None:
    with pytest.raises(InputError, match=field.replace(".", r"\.")):
        retain_artifacts([], policy, NOW)


def test_an_unknown_role_is_an_error_not_a_deletion() -> None:
    with pytest.raises(InputError, match="role: must be one of"):
        retain_artifacts([art("z", "scratch", 1)], POLICY, NOW)


@given(
    ages=st.lists(st.integers(0, 1000), min_size=1, max_size=12),
    roles=st.lists(st.sampled_from(["recovery", "promoted", "final", "evaluation"]), min_size=12),
    sizes=st.lists(st.integers(0, 10**12), min_size=12),
)
def test_kept_plus_expired_is_everything(ages, roles, sizes) -> None:
    artifacts = [
        Artifact(f"a{i}", "e", roles[i], sizes[i], NOW - timedelta(days=age), step=i)
        for i, age in enumerate(ages)
    ]
    outcome = retention_outcome(retain_artifacts(artifacts, POLICY, NOW), D("0.023"))
    total_gb = D(sum(a.size_bytes for a in artifacts)) / GB
    assert outcome.details["kept_gb"] + outcome.details["expired_gb"] == total_gb

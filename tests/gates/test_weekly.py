"""The weekly gates from typed results: continuation, retry per failed job, retention."""

from __future__ import annotations

import ast
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from trainbudget.gates.retention import RetentionPolicy, retention_policy
from trainbudget.gates.weekly import (
    continuation,
    retention,
    retry_cost_usd,
    retry_outcomes,
    weekly_gates,
    with_continuation,
)
from trainbudget.plan import parse_plan
from trainbudget.reconcile.review import FailedJob, LandedArtifact, Review

SRC = Path(__file__).resolve().parents[2] / "src" / "trainbudget"
PLAN = """\
campaign: c
unit_of_progress: tokens
prices: {gpu_hour_usd: 2.40, storage_gb_month_usd: 0.023}
ceiling: {gpu_hours: 2000}
main: {gpus: 8, hours: 10}
retries: [{attempts: 2, gpus: 8, hours: 10}]
"""
WEEK = (datetime(2026, 11, 23, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC))


def variance(actual: str, remaining: str, ceiling: str = "2000") -> dict:
    return {
        "campaign": "c",
        "actual_gpu_hours": Decimal(actual),
        "remaining_plan_gpu_hours": Decimal(remaining),
        "ceiling_gpu_hours": Decimal(ceiling),
        "within_ceiling": True,
        "sensitivity_at_measured_f": [],
    }


def failed(job_id: str, useful: str, *, cause_addressed: bool = False, retries: int = 0):
    return FailedJob(
        job_id=job_id,
        state="NODE_FAIL",
        experiment_id="exp-main",
        work_class="main",
        diagnosed_cause="node failure",
        cause_addressed=cause_addressed,
        useful_gpu_hours=Decimal(useful),
        retries_used=retries,
    )


def artifact(artifact_id: str, role: str, created: datetime) -> LandedArtifact:
    return LandedArtifact(artifact_id, "exp-main", role, 180 * 10**9, created, None, None)


def a_review(**parts) -> Review:
    base = dict(
        jobs_path=None, totals={}, variance=None, diagnosis=[], breakdown=[], audit=[],
        calibration=[], failure_fraction=None, tracked=[], top_jobs=[], week=WEEK,
    )  # fmt: skip
    return Review(**(base | parts))


def test_continuation_continues_while_the_projection_is_within_the_ceiling() -> None:
    gate = continuation(variance("182", "1071"))
    # 182 + 1,071 = 1,253 projected; 2,000 − 1,253 = 747 to spare.
    assert (gate.gate, gate.outcome, gate.reason) == ("continuation", "continue", None)
    assert gate.sentence == (
        "Continue: projected 1,253 GPU-hours (182 spent + 1,071 remaining) are within the "
        "2,000 ceiling, 747 to spare."
    )


def test_continuation_stops_once_the_projection_exceeds_the_ceiling() -> None:
    gate = continuation(variance("1500", "600.5"))
    assert (gate.outcome, gate.reason) == ("stop", "over-ceiling")
    assert gate.details["projected_gpu_hours"] == Decimal("2100.5")
    assert "exceed the approved ceiling of 2,000 by 100.5" in gate.sentence


def test_the_json_variance_shows_continuation_before_the_sensitivity() -> None:
    shown = with_continuation(variance("182", "1071"))
    keys = list(shown)
    assert keys[-2:] == ["continuation", "sensitivity_at_measured_f"]
    assert keys.index("within_ceiling") < keys.index("continuation")
    assert shown["continuation"]["outcome"] == "continue"
    assert with_continuation(None) is None


def test_retry_cost_is_one_attempt_of_the_first_retry_line() -> None:
    # One attempt: 8 GPUs × 10 h × $2.40 = $192.
    assert retry_cost_usd(parse_plan(PLAN)) == Decimal("192.00")
    assert retry_cost_usd(parse_plan(PLAN.replace("retries:", "# retries:"))) == 0


@pytest.mark.parametrize(
    ("job", "outcome", "reason", "value"),
    [
        # 64 useful GPU-hours × $2.40 = $153.60, not above the $192 a retry costs.
        (failed("101", "64"), "deny", "cause-unaddressed", Decimal("153.60")),
        # 100 × $2.40 = $240 > $192.
        (failed("102", "100"), "authorize", "value-exceeds-cost", Decimal("240.00")),
        (failed("103", "0", cause_addressed=True), "authorize", "cause-addressed", Decimal(0)),
        # The plan allows 2 attempts in all (its retry lines); both are used.
        (failed("104", "100", retries=2), "deny", "retry-limit", Decimal("240.00")),
    ],
)
def test_each_failed_job_goes_to_the_retry_gate(job, outcome, reason, value) -> None:
    (gate,) = retry_outcomes(parse_plan(PLAN), [job])
    assert (gate.gate, gate.outcome, gate.reason) == ("retry", outcome, reason)
    assert list(gate.inputs)[:2] == ["job_id", "state"]
    assert gate.inputs["job_id"] == job.job_id
    assert gate.inputs["expected_recovered_value_usd"] == value
    assert gate.inputs["retry_cost_usd"] == Decimal("192.00")
    assert gate.inputs["max_attempts"] == 2


def test_the_plans_retry_limit_overrides_the_retry_lines() -> None:
    plan = parse_plan(PLAN + "gates: {retry: {max_attempts: 5}}\n")
    (gate,) = retry_outcomes(plan, [failed("104", "100", retries=2)])
    assert (gate.outcome, gate.inputs["max_attempts"]) == ("authorize", 5)


def test_retention_expires_a_recovery_point_past_its_period() -> None:
    old = datetime(2026, 11, 1, tzinfo=UTC)  # 29 days before the week's end: over 14 days
    gate = retention(
        parse_plan(PLAN), [artifact("ckpt", "recovery", old), artifact("fin", "final", old)],
        WEEK[1],
    )  # fmt: skip
    assert (gate.outcome, gate.reason) == ("expire", "period-over")
    assert gate.details["expired"] == ["ckpt"]
    # 180 GB expired for one month at $0.023 per GB-month = $4.14.
    assert gate.details["freed_usd"] == Decimal("4.14")
    assert gate.sentence == (
        "Expire 1 of 2 artifacts: 180 GB, freeing 180 GB-months ($4.14) over 1 month(s)."
    )
    assert retention(parse_plan(PLAN), [], WEEK[1]) is None


def test_a_plan_without_gates_keeps_the_default_retention_periods() -> None:
    with_section = retention_policy(parse_plan(PLAN + "gates: {}\n").gates.retention)
    assert with_section == RetentionPolicy() == retention_policy(None)
    assert (with_section.recovery_days, with_section.final_days) == (14, 730)


def test_weekly_gates_are_continuation_then_each_retry_then_retention() -> None:
    old = datetime(2026, 11, 1, tzinfo=UTC)
    review = a_review(
        variance=variance("182", "1071"),
        failed_jobs=(failed("101", "64"), failed("102", "100")),
        artifacts=(artifact("ckpt", "recovery", old),),
    )
    gates = weekly_gates(parse_plan(PLAN), review, WEEK)
    assert [(g.gate, g.outcome, g.inputs.get("job_id")) for g in gates] == [
        ("continuation", "continue", None),
        ("retry", "deny", "101"),
        ("retry", "authorize", "102"),
        ("retention", "expire", None),
    ]


def test_without_a_variance_failures_or_artifacts_there_is_nothing_to_decide() -> None:
    assert weekly_gates(parse_plan(PLAN), a_review(), WEEK) == []


def test_the_week_decided_on_must_be_the_week_reviewed() -> None:
    other = (WEEK[1], datetime(2026, 12, 7, tzinfo=UTC))
    with pytest.raises(ValueError, match="the review covers"):
        weekly_gates(parse_plan(PLAN), a_review(), other)


@pytest.mark.parametrize("module", ["gates/weekly.py", "gates/campaign.py", "gates/retention.py"])
def test_the_weekly_gates_never_import_a_ledger(module: str) -> None:
    tree = ast.parse((SRC / module).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)} | {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert not {m for m in imported if m and ("ledger" in m or "duckdb" in m)}

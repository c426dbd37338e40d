"""Admission: seed 001's three cases and its error, each shared limit on both sides of its
boundary, and properties (monotone in budget; extra limits can only add reasons to defer)."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.gates.admission import REASONS, AdmissionRequest, QueueLimits, admit_run


def request(estimate, budget, interruptions=0, checkpoint=True, **kw) -> AdmissionRequest:
    return AdmissionRequest(
        D(str(estimate)), D(str(budget)), D(str(interruptions)), checkpoint, **kw
    )


# --- seed 001, exactly ----------------------------------------------------------------------


def test_seed_case_admit_reserves_the_estimate() -> None:
    outcome = admit_run(request("18.5", 23, 2, True))
    assert outcome.outcome == "admit"
    assert outcome.reason is None
    assert outcome.details["reserved_gpu_hours"] == D("18.5")


def test_seed_case_over_budget_defers_for_budget() -> None:
    outcome = admit_run(request(28, 23, 2, True))
    assert (outcome.outcome, outcome.reason) == ("defer", "budget")
    assert outcome.details["reserved_gpu_hours"] == 0


def test_seed_case_no_checkpoint_defers_for_no_recovery() -> None:
    outcome = admit_run(request("18.5", 23, 2, False))
    assert (outcome.outcome, outcome.reason) == ("defer", "no-recovery")


@pytest.mark.parametrize(
    ("field", "values"),
    [
        ("estimated_gpu_hours", (-1, 23, 2)),
        ("budget_gpu_hours", (1, "-0.01", 2)),
        ("expected_interruptions", (1, 23, -1)),
        ("estimated_gpu_hours", ("NaN", 23, 2)),
        ("budget_gpu_hours", (1, "Infinity", 2)),
    ],
)
def test_negative_or_non_finite_inputs_are_errors_naming_the_field(field, values) -> None:
    estimate, budget, interruptions = values
    with pytest.raises(InputError, match=field):
        admit_run(request(estimate, budget, interruptions))


def test_float_nan_is_an_error() -> None:
    with pytest.raises(InputError, match="estimated_gpu_hours"):
        admit_run(AdmissionRequest(float("nan"), D(23), D(0)))


# --- boundaries -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("estimate", "state"), [("23", "admit"), ("23.000001", "defer"), ("22.99", "admit")]
)
def test_estimate_equal_to_budget_is_admitted(estimate, state) -> None:
    assert admit_run(request(estimate, 23)).outcome == state


@pytest.mark.parametrize(("interruptions", "state"), [("0", "admit"), ("0.1", "defer")])
def test_no_checkpoint_is_fine_when_no_interruption_is_expected(interruptions, state) -> None:
    assert admit_run(request(10, 23, interruptions, checkpoint=False)).outcome == state


def test_budget_is_reported_first_and_every_failing_check_is_listed() -> None:
    outcome = admit_run(request(30, 23, 2, False))
    assert outcome.reason == "budget"
    assert [r["reason"] for r in outcome.details["reasons"]] == ["budget", "no-recovery"]


@pytest.mark.parametrize(
    ("kw", "limits", "reason"),
    [
        ({"gpus": 8}, QueueLimits(max_gpus=8), None),
        ({"gpus": 9}, QueueLimits(max_gpus=8), "accelerator-limit"),
        ({"memory_per_gpu_gb": D(80)}, QueueLimits(max_memory_per_gpu_gb=D(80)), None),
        (
            {"memory_per_gpu_gb": D("80.5")},
            QueueLimits(max_memory_per_gpu_gb=D(80)),
            "memory-limit",
        ),
        ({"runtime_hours": D(48)}, QueueLimits(max_runtime_hours=D(48)), None),
        ({"runtime_hours": D("48.01")}, QueueLimits(max_runtime_hours=D(48)), "runtime-limit"),
        ({}, QueueLimits(require_data_snapshot=True), "no-data-snapshot"),
        ({"data_snapshot": "  "}, QueueLimits(require_data_snapshot=True), "no-data-snapshot"),
        ({"data_snapshot": "snap-11"}, QueueLimits(require_data_snapshot=True), None),
        (
            {"data_snapshot": "snap-12"},
            QueueLimits(known_data_snapshots=frozenset({"snap-11"})),
            "no-data-snapshot",
        ),
        (
            {"data_snapshot": "snap-11"},
            QueueLimits(known_data_snapshots=frozenset({"snap-11"})),
            None,
        ),
        (
            {"candidate": "production", "full_evaluation": False},
            None,
            "production-needs-full-evaluation",
        ),
        ({"candidate": "exploratory", "full_evaluation": False}, None, None),
    ],
)
def test_each_shared_limit_on_both_sides(kw, limits, reason) -> None:
    outcome = admit_run(request(10, 23, **kw), limits)
    assert outcome.reason == reason
    assert outcome.outcome == ("admit" if reason is None else "defer")


def test_runtime_is_derived_from_gpu_hours_when_not_given() -> None:
    # 384 GPU-hours on 8 GPUs is 48 wall hours: exactly the limit, admitted; 384.08 is not.
    limits = QueueLimits(max_runtime_hours=D(48))
    assert admit_run(request(384, 400, gpus=8), limits).outcome == "admit"
    over = admit_run(request("384.08", 400, gpus=8), limits)
    assert over.reason == "runtime-limit"
    assert "48.01 wall-clock hours" in over.sentence


def test_experiments_cannot_take_the_retraining_reserve_whatever_their_priority() -> None:
    # capacity 1000, 300 committed, 200 reserved: 500 free to experiments, 700 to retraining.
    limits = QueueLimits(
        capacity_gpu_hours=D(1000),
        committed_gpu_hours=D(300),
        retraining_reserve_gpu_hours=D(200),
    )
    assert admit_run(request(500, 900), limits).outcome == "admit"
    for priority in ("normal", "high"):
        blocked = admit_run(request(501, 900, priority=priority), limits)
        assert blocked.reason == "retraining-reserve"
    assert admit_run(request(700, 900, workload="retraining"), limits).outcome == "admit"
    assert admit_run(request(701, 900, workload="retraining"), limits).reason == "queue-capacity"
    assert admit_run(request(701, 900), limits).reason == "queue-capacity"


def test_skipping_full_evaluation_makes_the_run_unpromotable() -> None:
    skipped = admit_run(request(10, 23, full_evaluation=False))
    assert skipped.outcome == "admit"
    assert skipped.details["promotable_on_completion"] is False
    assert "cannot be promoted" in skipped.sentence
    assert admit_run(request(10, 23)).details["promotable_on_completion"] is True


def test_every_reason_code_is_documented() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "gates.md").read_text()
    assert all(f"`{code}`" in doc for code in REASONS)


# --- properties -----------------------------------------------------------------------------

hours = st.decimals(min_value=0, max_value=10**6, places=2, allow_nan=False, allow_infinity=False)


@given(estimate=hours, low=hours, high=hours, interruptions=hours, checkpoint=st.booleans())
def test_admission_is_monotone_in_budget(estimate, low, high, interruptions, checkpoint) -> None:
    low, high = min(low, high), max(low, high)
    at_low = admit_run(AdmissionRequest(estimate, low, interruptions, checkpoint))
    at_high = admit_run(AdmissionRequest(estimate, high, interruptions, checkpoint))
    if at_low.outcome == "admit":
        assert at_high.outcome == "admit"
        assert at_high.details["reserved_gpu_hours"] == estimate


@given(
    estimate=hours,
    budget=hours,
    interruptions=hours,
    checkpoint=st.booleans(),
    max_gpus=st.one_of(st.none(), st.integers(1, 64)),
    gpus=st.one_of(st.none(), st.integers(1, 64)),
    capacity=st.one_of(st.none(), hours),
    reserve=hours,
)
def test_shared_limits_only_add_reasons_to_the_seed_rule(
    estimate, budget, interruptions, checkpoint, max_gpus, gpus, capacity, reserve
) -> None:
    base = admit_run(AdmissionRequest(estimate, budget, interruptions, checkpoint, gpus=gpus))
    limited = admit_run(
        AdmissionRequest(estimate, budget, interruptions, checkpoint, gpus=gpus),
        QueueLimits(
            max_gpus=max_gpus, capacity_gpu_hours=capacity, retraining_reserve_gpu_hours=reserve
        ),
    )
    if base.outcome == "defer":
        assert limited.outcome == "defer" and limited.reason == base.reason
    if limited.outcome == "admit":
        assert limited.details["reserved_gpu_hours"] == estimate


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"workload": "batch"}, "workload"),
        ({"priority": "urgent"}, "priority"),
        ({"gpus": 0}, "gpus"),
    ],
)
def test_unknown_categories_are_errors_not_silent_defaults(kw, field) -> None:
    with pytest.raises(InputError, match=f"^{field}:"):
        admit_run(request(1, 2, **kw))

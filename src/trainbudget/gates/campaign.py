"""Seed 000's budget control loop: pilot promotion, main-run continuation, retry
authorization, evaluation promotion, and release promotion (seed 001's evidence rule).

Each gate is a pure function of numbers and small dataclasses; thresholds are arguments.
Boundaries: meeting a floor passes it; a projection equal to the ceiling continues; a retry
paid for by value needs the value to exceed its cost strictly.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from trainbudget.base.errors import InputError
from trainbudget.estimate.exact import finite, non_negative
from trainbudget.gates.outcome import GateOutcome, hours, plain, usd
from trainbudget.gates.stop_rules import PROMOTABLE_STATES, ArtifactState


@dataclass(frozen=True)
class Candidate:
    """A pilot (or checkpoint) with its correctness score and the state of its artifact."""

    name: str
    correctness: Decimal
    artifact_state: ArtifactState = "complete"


def promote_pilot(candidate: Candidate, correctness_floor: Decimal) -> GateOutcome:
    """Promote a pilot configuration to the main run only if it meets the correctness floor.

    An artifact that is incomplete (budget-stopped) or failed is never promoted.
    """
    score = finite("correctness", candidate.correctness)
    floor = finite("correctness_floor", correctness_floor)
    inputs = {
        "candidate": candidate.name,
        "correctness": score,
        "correctness_floor": floor,
        "artifact_state": candidate.artifact_state,
    }
    if candidate.artifact_state not in PROMOTABLE_STATES:
        return _unpromotable("pilot-promotion", candidate.name, candidate.artifact_state, inputs)
    if score < floor:
        return GateOutcome(
            "pilot-promotion",
            "reject",
            "below-correctness-floor",
            f"Reject {candidate.name}: correctness {plain(score)} is below the floor "
            f"{plain(floor)}.",
            inputs,
        )
    return GateOutcome(
        "pilot-promotion",
        "promote",
        None,
        f"Promote {candidate.name}: correctness {plain(score)} meets the floor {plain(floor)}.",
        inputs,
    )


def continue_main_run(
    spent_gpu_hours: Decimal, remaining_gpu_hours: Decimal, ceiling_gpu_hours: Decimal
) -> GateOutcome:
    """Continue while projected campaign GPU-hours (spent + remaining estimate) stay within
    the approved ceiling; stop once the projection exceeds it."""
    spent = non_negative("spent_gpu_hours", spent_gpu_hours)
    remaining = non_negative("remaining_gpu_hours", remaining_gpu_hours)
    ceiling = non_negative("ceiling_gpu_hours", ceiling_gpu_hours)
    projected = spent + remaining
    inputs = {
        "spent_gpu_hours": spent,
        "remaining_gpu_hours": remaining,
        "ceiling_gpu_hours": ceiling,
    }
    details = {"projected_gpu_hours": projected, "headroom_gpu_hours": ceiling - projected}
    if projected > ceiling:
        return GateOutcome(
            "continuation",
            "stop",
            "over-ceiling",
            f"Stop: projected {hours(projected)} GPU-hours ({hours(spent)} spent + "
            f"{hours(remaining)} remaining) exceed the approved ceiling of {hours(ceiling)} by "
            f"{hours(projected - ceiling)}; ask for a new approval before spending more.",
            inputs,
            details,
        )
    return GateOutcome(
        "continuation",
        "continue",
        None,
        f"Continue: projected {hours(projected)} GPU-hours ({hours(spent)} spent + "
        f"{hours(remaining)} remaining) are within the {hours(ceiling)} ceiling, "
        f"{hours(ceiling - projected)} to spare.",
        inputs,
        details,
    )


@dataclass(frozen=True)
class RetryRequest:
    """A failed job that might be retried: its diagnosis and the money on each side.

    `expected_recovered_value_usd` is what a successful retry is worth (e.g. the useful
    GPU-hours it saves re-running, priced); `retry_cost_usd` what the retry will cost.
    """

    diagnosed_cause: str | None
    cause_addressed: bool
    expected_recovered_value_usd: Decimal
    retry_cost_usd: Decimal
    attempts_used: int = 0


def authorize_retry(request: RetryRequest, max_attempts: int | None = None) -> GateOutcome:
    """Authorize a retry only if the diagnosed cause is addressed, or if the expected
    recovered value exceeds the retry's cost; never beyond `max_attempts`."""
    value = non_negative("expected_recovered_value_usd", request.expected_recovered_value_usd)
    cost = non_negative("retry_cost_usd", request.retry_cost_usd)
    if request.attempts_used < 0:
        raise InputError(f"attempts_used: must be zero or more, got {request.attempts_used}")
    if max_attempts is not None and max_attempts < 0:
        raise InputError(f"retry.max_attempts: must be zero or more, got {max_attempts}")
    cause = request.diagnosed_cause or "undiagnosed"
    inputs = {
        "diagnosed_cause": request.diagnosed_cause,
        "cause_addressed": request.cause_addressed,
        "expected_recovered_value_usd": value,
        "retry_cost_usd": cost,
        "attempts_used": request.attempts_used,
        "max_attempts": max_attempts,
    }
    if max_attempts is not None and request.attempts_used >= max_attempts:
        return GateOutcome(
            "retry",
            "deny",
            "retry-limit",
            f"Deny: {request.attempts_used} of {max_attempts} allowed retries are used.",
            inputs,
        )
    if request.cause_addressed and request.diagnosed_cause:
        return GateOutcome(
            "retry",
            "authorize",
            "cause-addressed",
            f"Authorize: the diagnosed cause ({cause}) is marked addressed.",
            inputs,
        )
    if value > cost:
        return GateOutcome(
            "retry",
            "authorize",
            "value-exceeds-cost",
            f"Authorize: the expected recovered value {usd(value)} exceeds the retry's "
            f"cost {usd(cost)}, though the cause ({cause}) is not addressed.",
            inputs,
        )
    return GateOutcome(
        "retry",
        "deny",
        "cause-unaddressed",
        f"Deny: the cause ({cause}) is not addressed and the expected recovered value "
        f"{usd(value)} does not exceed the retry's cost {usd(cost)}.",
        inputs,
    )


def promote_to_expensive_evaluation(
    checkpoint: Candidate, cheap_suite_floor: Decimal
) -> GateOutcome:
    """Run the expensive suite only on a checkpoint whose cheap-suite score meets its floor."""
    score = finite("cheap_suite_score", checkpoint.correctness)
    floor = finite("cheap_suite_floor", cheap_suite_floor)
    inputs = {"checkpoint": checkpoint.name, "cheap_suite_score": score, "cheap_suite_floor": floor}
    if score < floor:
        return GateOutcome(
            "evaluation-promotion",
            "skip",
            "cheap-suite-failed",
            f"Skip the expensive suite for {checkpoint.name}: cheap-suite score {plain(score)} "
            f"is below {plain(floor)}.",
            inputs,
        )
    return GateOutcome(
        "evaluation-promotion",
        "run",
        None,
        f"Run the expensive suite on {checkpoint.name}: cheap-suite score {plain(score)} "
        f"meets {plain(floor)}.",
        inputs,
    )


@dataclass(frozen=True)
class ReleaseEvidence:
    """What a release decision needs: the artifact's state and its full-evaluation result."""

    name: str
    artifact_state: ArtifactState
    full_evaluation_passed: bool | None
    correctness: Decimal


def promote_release(evidence: ReleaseEvidence, correctness_floor: Decimal) -> GateOutcome:
    """A release candidate needs a complete artifact, a passed full evaluation and the floor.

    Seed 001: an exploratory run may have skipped full evaluation, but then it cannot be
    promoted; a budget-stopped (incomplete) artifact is never a release candidate.
    """
    score = finite("correctness", evidence.correctness)
    floor = finite("correctness_floor", correctness_floor)
    inputs = {
        "candidate": evidence.name,
        "artifact_state": evidence.artifact_state,
        "full_evaluation_passed": evidence.full_evaluation_passed,
        "correctness": score,
        "correctness_floor": floor,
    }
    if evidence.artifact_state not in PROMOTABLE_STATES:
        return _unpromotable("release-promotion", evidence.name, evidence.artifact_state, inputs)
    if evidence.full_evaluation_passed is None:
        return GateOutcome(
            "release-promotion",
            "reject",
            "missing-release-evidence",
            f"Reject {evidence.name}: it has no full evaluation, which release requires.",
            inputs,
        )
    if not evidence.full_evaluation_passed:
        return GateOutcome(
            "release-promotion",
            "reject",
            "full-evaluation-failed",
            f"Reject {evidence.name}: it failed the full evaluation.",
            inputs,
        )
    if score < floor:
        return GateOutcome(
            "release-promotion",
            "reject",
            "below-correctness-floor",
            f"Reject {evidence.name}: correctness {plain(score)} is below the floor "
            f"{plain(floor)}.",
            inputs,
        )
    return GateOutcome(
        "release-promotion",
        "promote",
        None,
        f"Promote {evidence.name} to release candidate: complete, full evaluation passed, "
        f"correctness {plain(score)} meets {plain(floor)}.",
        inputs,
    )


def _unpromotable(gate: str, name: str, state: str, inputs: dict) -> GateOutcome:
    why = {
        "incomplete": "it stopped for budget, so its artifact is incomplete",
        "failed": "its run failed",
        "in-progress": "its run has not finished",
    }.get(state, f"its artifact is {state}")
    return GateOutcome(gate, "reject", f"artifact-{state}", f"Reject {name}: {why}.", inputs)

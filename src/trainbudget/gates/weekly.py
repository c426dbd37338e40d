"""The weekly review's gate decisions (seed 000's control loop), from typed results only.

Continuation decides from the review's projection against the ceiling; each tracked job that
failed in the reviewed week goes to the retry gate; the landed artifacts go to the retention
gate. Nothing here reads a ledger: the review has already put every figure in the `Review`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.gates.campaign import RetryRequest, authorize_retry, continue_main_run
from trainbudget.gates.outcome import GateOutcome
from trainbudget.gates.retention import (
    Artifact,
    retain_artifacts,
    retention_outcome,
    retention_policy,
)

if TYPE_CHECKING:
    from trainbudget.plan import Plan
    from trainbudget.reconcile.burndown import BurnDown
    from trainbudget.reconcile.review import FailedJob, LandedArtifact, Review


def continuation(variance: dict[str, Any], burn_down: BurnDown | None = None) -> GateOutcome:
    """The continuation gate on a plan variance: spent (actual GPU-hours to date) plus the
    plan's remaining GPU-hours against the ceiling. With the review's burn-down (at the
    measured weekly rate, reconcile/burndown.py) the gate also says when the ceiling and the
    allocation are reached, and whether before the plan's end; the verdict stays the seed's."""
    outcome = continue_main_run(
        variance["actual_gpu_hours"],
        variance["remaining_plan_gpu_hours"],
        variance["ceiling_gpu_hours"],
    )
    if burn_down is None:
        return outcome
    early = burn_down.ceiling_before_plan_end or burn_down.allocation_before_plan_end
    return dataclasses.replace(
        outcome,
        sentence=f"{outcome.sentence} {burn_down.sentence()}",
        details={
            **outcome.details,
            "burn_down": burn_down.as_dict(),
            "reached_before_plan_end": bool(early),
        },
    )


def with_continuation(
    variance: dict[str, Any] | None, burn_down: BurnDown | None = None
) -> dict[str, Any] | None:
    """The variance as `reconcile --json` prints it: the continuation outcome (as a dict)
    after `within_ceiling`, before the sensitivity at the measured f."""
    if variance is None:
        return None
    shown = {k: v for k, v in variance.items() if k != "sensitivity_at_measured_f"}
    shown["continuation"] = continuation(variance, burn_down).as_dict()
    shown["sensitivity_at_measured_f"] = variance["sensitivity_at_measured_f"]
    return shown


def retry_cost_usd(plan: Plan) -> Decimal:
    """What one retry attempt costs in USD: the plan's first retry line (GPUs × hours ×
    price); 0 when the plan has no retry line."""
    if not plan.retries:
        return Decimal(0)
    line = plan.retries[0]
    return line.gpus * line.hours * plan.prices.gpu_hour_usd


def retry_outcomes(plan: Plan, failed_jobs: Sequence[FailedJob]) -> list[GateOutcome]:
    """One retry-gate outcome per failed tracked job, in the given order (job id and state
    added to its inputs).

    The expected recovered value of a retry is the useful GPU-hours the failed job banked
    (a retry resumes from them instead of redoing them), priced at the plan's GPU-hour price.
    """
    max_attempts = plan.gates.retry.max_attempts if plan.gates else None
    if max_attempts is None and plan.retries:
        max_attempts = sum(r.attempts for r in plan.retries)
    cost = retry_cost_usd(plan)
    outcomes = []
    for job in failed_jobs:
        outcome = authorize_retry(
            RetryRequest(
                diagnosed_cause=job.diagnosed_cause,
                cause_addressed=job.cause_addressed,
                expected_recovered_value_usd=job.useful_gpu_hours * plan.prices.gpu_hour_usd,
                retry_cost_usd=cost,
                attempts_used=job.retries_used,
            ),
            max_attempts,
        )
        inputs = {"job_id": job.job_id, "state": job.state, **outcome.inputs}
        outcomes.append(dataclasses.replace(outcome, inputs=inputs))
    return outcomes


def retention(
    plan: Plan, artifacts: Sequence[LandedArtifact], as_of: datetime
) -> GateOutcome | None:
    """The retention gate over the landed artifacts as of `as_of`; None when there are none."""
    if not artifacts:
        return None
    verdicts = retain_artifacts(
        [
            Artifact(
                artifact_id=a.artifact_id,
                experiment_id=a.experiment_id,
                role=a.role,
                size_bytes=a.size_bytes,
                created=a.created,
                step=a.step,
                retain_until=a.retain_until,
            )
            for a in artifacts
        ],
        retention_policy(plan.gates.retention if plan.gates else None),
        as_of,
    )
    return retention_outcome(verdicts, plan.prices.storage_gb_month_usd)


def weekly_gates(plan: Plan, review: Review, week: tuple[datetime, datetime]) -> list[GateOutcome]:
    """Continuation, then retry per failed job, then retention: the order the report shows.

    `week` is the reviewed week (start, end); retention is judged as of its end.
    """
    if review.week != week:
        raise ValueError(f"the review covers {review.week}, not the week {week} to decide on")
    outcomes: list[GateOutcome] = []
    if review.variance is not None:
        outcomes.append(continuation(review.variance, review.burn_down))
    outcomes += retry_outcomes(plan, review.failed_jobs)
    kept = retention(plan, review.artifacts, week[1])
    if kept is not None:
        outcomes.append(kept)
    return outcomes

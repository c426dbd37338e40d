"""The weekly review's gate decisions from a finished reconciliation (seed 000's control loop).

Continuation comes from the reconciliation's variance; each tracked job that failed in the
review week goes to the retry gate; the landed manifest goes to the retention gate. Reads the
`job_accounting` table that `reconcile.review.review` leaves in the session.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.gates.campaign import RetryRequest, authorize_retry
from trainbudget.gates.outcome import GateOutcome
from trainbudget.gates.retention import (
    Artifact,
    retain_artifacts,
    retention_outcome,
    retention_policy,
)

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger
    from trainbudget.plan import Plan
    from trainbudget.reconcile.review import Review


def retry_cost_usd(plan: Plan) -> Decimal:
    """What one retry attempt costs in USD: the plan's first retry line (GPUs × hours ×
    price); 0 when the plan has no retry line."""
    if not plan.retries:
        return Decimal(0)
    line = plan.retries[0]
    return line.gpus * line.hours * plan.prices.gpu_hour_usd


def _as_datetime(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime.combine(value, time(0), tzinfo=UTC)
    raise TypeError(f"not a date or datetime: {value!r}")


def retry_decisions(
    ledger: Ledger, plan: Plan, week: tuple[datetime, datetime]
) -> list[GateOutcome]:
    """One retry-gate outcome per tracked job that failed in the week (job id in the inputs).

    The expected recovered value of a retry is the useful GPU-hours the failed job banked
    (a retry resumes from them instead of redoing them), priced at the plan's GPU-hour price.
    """
    max_attempts = plan.gates.retry.max_attempts if plan.gates else None
    if max_attempts is None and plan.retries:
        max_attempts = sum(r.attempts for r in plan.retries)
    cost = retry_cost_usd(plan)
    outcomes = []
    for job in ledger.records("report/failed_jobs", week_start=week[0], week_end=week[1]):
        banked = Decimal(str(job["useful_gpu_hours"])) * plan.prices.gpu_hour_usd
        outcome = authorize_retry(
            RetryRequest(
                diagnosed_cause=job["diagnosed_cause"],
                cause_addressed=bool(job["cause_addressed"]),
                expected_recovered_value_usd=banked,
                retry_cost_usd=cost,
                attempts_used=int(job["retries_used"]),
            ),
            max_attempts,
        )
        inputs = {"job_id": job["job_id"], "state": job["state"], **outcome.inputs}
        outcomes.append(dataclasses.replace(outcome, inputs=inputs))
    return outcomes


def retention_decision(ledger: Ledger, plan: Plan, as_of: datetime) -> GateOutcome | None:
    """The retention gate over every landed artifact as of `as_of`; None without a manifest."""
    rows = ledger.records("report/manifest_artifacts")
    if not rows:
        return None
    artifacts = [
        Artifact(
            artifact_id=r["artifact_id"],
            experiment_id=r["experiment_id"],
            role=r["role"],
            size_bytes=int(r["size_bytes"]),
            created=_as_datetime(r["created"]),
            step=r["step"],
            retain_until=_as_datetime(r["retain_until"]),
        )
        for r in rows
    ]
    policy = retention_policy(plan.gates.retention if plan.gates else None)
    verdicts = retain_artifacts(artifacts, policy, as_of)
    return retention_outcome(verdicts, plan.prices.storage_gb_month_usd)


def weekly_gates(
    ledger: Ledger, plan: Plan, review: Review, week: tuple[datetime, datetime]
) -> list[GateOutcome]:
    """Continuation, then retry per failed job, then retention: the order the report shows."""
    outcomes: list[GateOutcome] = []
    if review.variance is not None:
        outcomes.append(GateOutcome(**review.variance["continuation"]))
    outcomes += retry_decisions(ledger, plan, week)
    retention = retention_decision(ledger, plan, week[1])
    if retention is not None:
        outcomes.append(retention)
    return outcomes

"""Retention: which artifacts to keep, which expire, and the storage that frees.

Seed 000: recent recovery points, promoted candidates and final reproducibility artifacts
are kept for their own periods; everything else expires. A manifest's `retain_until` is an
explicit hold and wins while it lasts. Storage is priced in decimal GB (10^9 bytes) per month,
the unit of the plan's `storage_gb_month_usd`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from trainbudget.base.errors import InputError
from trainbudget.base.vocabulary import ARTIFACT_ROLES as ROLES
from trainbudget.estimate.exact import non_negative
from trainbudget.gates.outcome import GateOutcome, hours, usd

if TYPE_CHECKING:
    from trainbudget.plan.gates import RetentionSection

_BYTES_PER_GB = 10**9


@dataclass(frozen=True)
class RetentionPolicy:
    """Days each role is kept after creation; recovery points also only the newest
    `recovery_keep_last` per experiment (None: no count limit)."""

    recovery_days: int = 14
    recovery_keep_last: int | None = 2
    promoted_days: int = 180
    final_days: int = 730
    evaluation_days: int = 0


def retention_policy(section: RetentionSection | None) -> RetentionPolicy:
    """The policy a plan's `gates.retention` section sets (the defaults without one)."""
    return RetentionPolicy(**section.as_dict()) if section is not None else RetentionPolicy()


@dataclass(frozen=True)
class Artifact:
    """One manifest row: an artifact, its role, size and creation time."""

    artifact_id: str
    experiment_id: str
    role: str
    size_bytes: int
    created: datetime
    step: int | None = None
    retain_until: datetime | None = None


@dataclass(frozen=True)
class ArtifactRetention:
    """The verdict on one artifact: keep or expire, why, and until when it is kept."""

    artifact_id: str
    role: str
    size_bytes: int
    keep: bool
    reason: str
    keep_until: datetime | None


def check_policy(policy: RetentionPolicy) -> None:
    """InputError naming the field for a negative period or count."""
    for name in ("recovery_days", "promoted_days", "final_days", "evaluation_days"):
        value = getattr(policy, name)
        if value < 0:
            raise InputError(f"retention.{name}: must be zero or more days, got {value}")
    if policy.recovery_keep_last is not None and policy.recovery_keep_last < 0:
        raise InputError(
            f"retention.recovery_keep_last: must be zero or more, got {policy.recovery_keep_last}"
        )


def retain_artifacts(
    artifacts: Sequence[Artifact], policy: RetentionPolicy, as_of: datetime
) -> list[ArtifactRetention]:
    """Keep or expire each artifact as of `as_of`. An artifact is kept while its age is
    below its role's period (an age equal to the period has expired)."""
    check_policy(policy)
    now = _aware(as_of)
    newest = _newest_recovery_points(artifacts, policy.recovery_keep_last)
    verdicts = []
    for artifact in artifacts:
        if artifact.role not in ROLES:
            raise InputError(
                f"artifact {artifact.artifact_id}: role: must be one of {', '.join(ROLES)}, "
                f"got {artifact.role!r}"
            )
        if artifact.size_bytes < 0:
            raise InputError(
                f"artifact {artifact.artifact_id}: size_bytes: must be zero or more, "
                f"got {artifact.size_bytes}"
            )
        period_end = _aware(artifact.created) + timedelta(
            days=getattr(policy, f"{artifact.role}_days")
        )
        hold = _aware(artifact.retain_until) if artifact.retain_until else None
        if hold is not None and now < hold:
            keep, reason, until = True, "held", max(hold, period_end)
        elif artifact.role == "recovery" and artifact.artifact_id not in newest:
            keep, reason, until = False, "superseded-recovery-point", None
        elif now < period_end:
            keep, reason, until = True, f"{artifact.role}-period", period_end
        else:
            keep, reason, until = False, f"{artifact.role}-period-over", None
        verdicts.append(
            ArtifactRetention(
                artifact.artifact_id, artifact.role, artifact.size_bytes, keep, reason, until
            )
        )
    return verdicts


def retention_outcome(
    verdicts: Sequence[ArtifactRetention],
    storage_gb_month_usd: Decimal,
    horizon_months: Decimal = Decimal(1),
) -> GateOutcome:
    """Summarise verdicts: GB expired, and the GB-months and dollars freed over the horizon.

    freed_gb_months = expired GB × horizon_months; freed_usd = freed_gb_months × price.
    """
    price = non_negative("storage_gb_month_usd", storage_gb_month_usd)
    months = non_negative("horizon_months", horizon_months)
    expired = [v for v in verdicts if not v.keep]
    expired_gb = Decimal(sum(v.size_bytes for v in expired)) / _BYTES_PER_GB
    kept_gb = Decimal(sum(v.size_bytes for v in verdicts if v.keep)) / _BYTES_PER_GB
    gb_months = expired_gb * months
    freed_usd = gb_months * price
    details = {
        "expired": [v.artifact_id for v in expired],
        "expired_gb": expired_gb,
        "kept_gb": kept_gb,
        "freed_gb_months": gb_months,
        "freed_usd": freed_usd,
        "horizon_months": months,
    }
    inputs = {"artifacts": len(verdicts), "storage_gb_month_usd": price}
    if not expired:
        return GateOutcome(
            "retention", "keep", None, "Keep: every artifact is within its period.", inputs, details
        )
    return GateOutcome(
        "retention",
        "expire",
        "period-over",
        f"Expire {len(expired)} of {len(verdicts)} artifacts: {hours(expired_gb)} GB, freeing "
        f"{hours(gb_months)} GB-months ({usd(freed_usd)}) over {hours(months)} month(s).",
        inputs,
        details,
    )


def _newest_recovery_points(artifacts: Sequence[Artifact], keep_last: int | None) -> set[str]:
    """Ids of the newest `keep_last` recovery points of each experiment (by step, then time)."""
    by_experiment: dict[str, list[Artifact]] = defaultdict(list)
    for artifact in artifacts:
        if artifact.role == "recovery":
            by_experiment[artifact.experiment_id].append(artifact)
    kept: set[str] = set()
    for points in by_experiment.values():
        points.sort(key=lambda a: (a.step if a.step is not None else -1, _aware(a.created)))
        chosen = points if keep_last is None else points[len(points) - keep_last :]
        kept.update(a.artifact_id for a in chosen)
    return kept


def _aware(moment: datetime) -> datetime:
    """Naive times are taken as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)

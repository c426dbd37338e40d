"""The plan's optional `gates:` section: the thresholds every gate takes as arguments.

Validated like the rest of the plan (plan/fields.py: unknown keys refused, decimals exact), so
a bad threshold is reported as `plan.yaml:LINE: gates.FIELD: what`. The gates turn these
sections into their own arguments (`gates.admission_plan.plan_limits`, `gates.stop_rules.
declared_stop_rules`, `gates.retention.retention_policy`); this module imports no gate.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from trainbudget.base.errors import InputError
from trainbudget.base.limits import within_gate_bound
from trainbudget.plan.checks import (
    NON_NEGATIVE_DECIMAL,
    NON_NEGATIVE_INT,
    POSITIVE_INT,
    TEXT,
    boolean,
    choice,
    decimal,
    list_of,
    nested,
    optional,
    text,
)
from trainbudget.plan.fields import (
    Check,
    Invalid,
    Location,
    Section,
    section,
    spec,
)

_FINITE = decimal()
_NAMES = list_of(TEXT)


def _bounded(inner: Check) -> Check:
    """`inner`, then the field's sane bound (limits.GATE_BOUNDS, the options' bound too)."""

    def check(value: Any, loc: Location) -> Any:
        checked = inner(value, loc)
        try:
            return within_gate_bound(str(loc[-1]), checked)
        except InputError as exc:
            raise Invalid(loc, str(exc).partition(": ")[2]) from None

    return check


_AMOUNT = _bounded(NON_NEGATIVE_DECIMAL)
_WHOLE = _bounded(NON_NEGATIVE_INT)
_POSITIVE = _bounded(POSITIVE_INT)


@section
class AdmissionLimits(Section):
    """Shared queue limits (seed 001) and the run's approved budget."""

    budget_gpu_hours: Decimal | None = spec(optional(_AMOUNT), None)
    max_gpus: int | None = spec(optional(_POSITIVE), None)
    max_memory_per_gpu_gb: Decimal | None = spec(optional(_AMOUNT), None)
    max_runtime_hours: Decimal | None = spec(optional(_AMOUNT), None)
    require_data_snapshot: bool = spec(boolean(), False)
    data_snapshots: list[str] | None = spec(optional(_NAMES), None)
    capacity_gpu_hours: Decimal | None = spec(optional(_AMOUNT), None)
    retraining_reserve_gpu_hours: Decimal = spec(_AMOUNT, Decimal(0))


@section
class EarlyStopRule(Section):
    metric: str = spec(text(min_length=1))
    mode: Literal["min", "max"] = spec(choice("min", "max"), "min")
    patience: int = spec(_POSITIVE, 3)
    min_delta: Decimal = spec(NON_NEGATIVE_DECIMAL, Decimal(0))


def _disjoint(holdout: list[str], before: dict[str, Any]) -> str | None:
    overlap = sorted(set(before.get("development_metrics", [])) & set(holdout))
    if overlap:
        return f"{overlap[0]!r} is listed as both a development and a holdout metric"
    return None


def _development_metric_only(rule: EarlyStopRule | None, before: dict[str, Any]) -> str | None:
    # A field's rule (not the section's) so the error points at the early_stop line.
    if rule is None:
        return None
    development = before.get("development_metrics", [])
    if rule.metric in before.get("holdout_metrics", []):
        return (
            f"metric {rule.metric!r} is a final holdout metric; early stopping must use a "
            "development metric"
        )
    if rule.metric not in development:
        known = ", ".join(development) or "none declared"
        return f"unknown metric {rule.metric!r} (development_metrics: {known})"
    return None


@section
class StopRulesSection(Section):
    """Stop rules declared before launch; the early-stop metric must be a development metric."""

    development_metrics: list[str] = spec(_NAMES, factory=list)
    holdout_metrics: list[str] = spec(_NAMES, factory=list, after=_disjoint)
    max_wall_hours: Decimal | None = spec(optional(_AMOUNT), None)
    spend_limit_usd: Decimal | None = spec(optional(_AMOUNT), None)
    max_failed_steps: int | None = spec(optional(_WHOLE), None)
    early_stop: EarlyStopRule | None = spec(
        optional(nested(EarlyStopRule)), None, after=_development_metric_only
    )


@section
class RetryPolicy(Section):
    max_attempts: int | None = spec(optional(_WHOLE), None)


@section
class RetentionSection(Section):
    """Days each artifact role is kept; recovery points also only the newest N per experiment."""

    recovery_days: int = spec(_WHOLE, 14)
    recovery_keep_last: int | None = spec(optional(_WHOLE), 2)
    promoted_days: int = spec(_WHOLE, 180)
    final_days: int = spec(_WHOLE, 730)
    evaluation_days: int = spec(_WHOLE, 0)


@section
class Gates(Section):
    """The plan's `gates:` section; every part is optional."""

    admission: AdmissionLimits = spec(nested(AdmissionLimits), factory=AdmissionLimits)
    correctness_floor: Decimal | None = spec(optional(_FINITE), None)
    cheap_suite_floor: Decimal | None = spec(optional(_FINITE), None)
    stop_rules: StopRulesSection | None = spec(optional(nested(StopRulesSection)), None)
    retry: RetryPolicy = spec(nested(RetryPolicy), factory=RetryPolicy)
    retention: RetentionSection = spec(nested(RetentionSection), factory=RetentionSection)

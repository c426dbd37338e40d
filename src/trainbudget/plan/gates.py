"""The plan's optional `gates:` section: the thresholds every gate takes as arguments.

Validated with pydantic like the rest of the plan (unknown keys refused, decimals exact), so
a bad threshold is reported as `plan.yaml:LINE: gates.FIELD: what`. The gates turn these
sections into their own arguments (`gates.admission.plan_limits`, `gates.stop_rules.
declared_stop_rules`, `gates.retention.retention_policy`); this module imports no gate.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

_NonNegDecimal = Annotated[Decimal, Field(ge=0, allow_inf_nan=False)]
_NonNegInt = Annotated[int, Field(ge=0, strict=True)]
_PosInt = Annotated[int, Field(gt=0, strict=True)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AdmissionLimits(_Section):
    """Shared queue limits (seed 001) and the run's approved budget."""

    budget_gpu_hours: _NonNegDecimal | None = None
    max_gpus: _PosInt | None = None
    max_memory_per_gpu_gb: _NonNegDecimal | None = None
    max_runtime_hours: _NonNegDecimal | None = None
    require_data_snapshot: bool = False
    data_snapshots: list[str] | None = None
    capacity_gpu_hours: _NonNegDecimal | None = None
    retraining_reserve_gpu_hours: _NonNegDecimal = Decimal(0)


class EarlyStopRule(_Section):
    metric: Annotated[str, Field(min_length=1)]
    mode: Literal["min", "max"] = "min"
    patience: _PosInt = 3
    min_delta: _NonNegDecimal = Decimal(0)


class StopRulesSection(_Section):
    """Stop rules declared before launch; the early-stop metric must be a development metric."""

    development_metrics: list[str] = Field(default_factory=list)
    holdout_metrics: list[str] = Field(default_factory=list)
    max_wall_hours: _NonNegDecimal | None = None
    spend_limit_usd: _NonNegDecimal | None = None
    max_failed_steps: _NonNegInt | None = None
    early_stop: EarlyStopRule | None = None

    @field_validator("holdout_metrics")
    @classmethod
    def _disjoint(cls, holdout: list[str], info: ValidationInfo) -> list[str]:
        overlap = sorted(set(info.data.get("development_metrics", [])) & set(holdout))
        if overlap:
            raise ValueError(f"{overlap[0]!r} is listed as both a development and a holdout metric")
        return holdout

    @field_validator("early_stop")
    @classmethod
    def _development_metric_only(
        cls, rule: EarlyStopRule | None, info: ValidationInfo
    ) -> EarlyStopRule | None:
        # A field validator (not a model one) so the error points at the early_stop line.
        if rule is None:
            return rule
        development = info.data.get("development_metrics", [])
        if rule.metric in info.data.get("holdout_metrics", []):
            raise ValueError(
                f"metric {rule.metric!r} is a final holdout metric; early stopping must use a "
                "development metric"
            )
        if rule.metric not in development:
            known = ", ".join(development) or "none declared"
            raise ValueError(f"unknown metric {rule.metric!r} (development_metrics: {known})")
        return rule


class RetryPolicy(_Section):
    max_attempts: _NonNegInt | None = None


class RetentionSection(_Section):
    """Days each artifact role is kept; recovery points also only the newest N per experiment."""

    recovery_days: _NonNegInt = 14
    recovery_keep_last: _NonNegInt | None = 2
    promoted_days: _NonNegInt = 180
    final_days: _NonNegInt = 730
    evaluation_days: _NonNegInt = 0


class Gates(_Section):
    """The plan's `gates:` section; every part is optional."""

    admission: AdmissionLimits = Field(default_factory=AdmissionLimits)
    correctness_floor: Annotated[Decimal, Field(allow_inf_nan=False)] | None = None
    cheap_suite_floor: Annotated[Decimal, Field(allow_inf_nan=False)] | None = None
    stop_rules: StopRulesSection | None = None
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    retention: RetentionSection = Field(default_factory=RetentionSection)

"""The plan's sections as pydantic models: unknown keys refused, decimals exact."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from trainbudget.plan.forecast import (
    FailureFraction,
    FlopsSpec,
    Phase,
    Reliability,
    failure_fractions,
)
from trainbudget.plan.gates import Gates

# Integers are strict (true and "8" are not 8); decimals accept any finite number.
PositiveInt = Annotated[int, Field(gt=0, strict=True)]
NonNegativeInt = Annotated[int, Field(ge=0, strict=True)]
# Decimal bounds are Decimal so error messages can tell "positive" from "a positive integer".
PositiveDecimal = Annotated[Decimal, Field(gt=Decimal(0), allow_inf_nan=False)]
NonNegativeDecimal = Annotated[Decimal, Field(ge=Decimal(0), allow_inf_nan=False)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Prices(_Section):
    gpu_hour_usd: NonNegativeDecimal
    storage_gb_month_usd: NonNegativeDecimal = Decimal(0)


class Ceiling(_Section):
    gpu_hours: PositiveDecimal
    usd: PositiveDecimal | None = None


class JobGroup(_Section):
    """A batch of identical jobs: runs × gpus × hours GPU-hours."""

    name: str
    runs: PositiveInt
    gpus: PositiveInt
    hours: PositiveDecimal


class MainRun(_Section):
    """The main training run: hours given, or derived from (params, tokens, gpu, mfu or
    throughput_tflops on the `flops` basis), optionally in `phases` (plan/forecast.py)."""

    gpus: PositiveInt
    hours: PositiveDecimal | None = None
    gpu: str | None = None
    gpu_tflops: PositiveDecimal | None = None
    params: PositiveDecimal | None = None
    active_params: PositiveDecimal | None = None
    tokens: PositiveDecimal | None = None
    mfu: Annotated[Decimal, Field(gt=0, le=1, allow_inf_nan=False)] | None = None
    flops_method: Literal["6nt", "attention", "recompute", "moe"] = "6nt"
    n_layers: PositiveInt | None = None
    d_model: PositiveInt | None = None
    seq_len: PositiveInt | None = None
    # The class-default MFU's class: dense, or moe with flops_method moe.
    model_class: Literal["dense", "moe", "cnn", "snn"] | None = None
    precision: Literal["fp32", "tf32", "bf16", "fp16", "fp8"] = "bf16"  # catalog peak
    throughput_tflops: PositiveDecimal | None = None  # measured per GPU, on the flops basis
    flops: FlopsSpec | None = None
    phases: list[Phase] = Field(default_factory=list)

    @model_validator(mode="after")
    def _hours_or_derivation(self) -> MainRun:
        if self.mfu is not None and self.throughput_tflops is not None:
            raise ValueError("give mfu or throughput_tflops (an alternative to mfu), not both")
        if (
            self.flops is not None
            and self.flops.terms
            and self.flops_method
            in (
                "attention",
                "recompute",
            )
        ):
            raise ValueError(
                f"give flops.terms or flops_method {self.flops_method}, not both "
                f"(the method is the term {self.flops_method})"
            )
        if self.phases and self.hours is not None:
            raise ValueError("give hours or phases (whose hours are derived), not both")
        if self.hours is None:
            needed = ("params",) if self.phases else ("params", "tokens")
            missing = [k for k in needed if getattr(self, k) is None]
            if self.gpu is None and self.gpu_tflops is None:
                missing.append("gpu")
            if missing:
                raise ValueError(
                    "give hours, or params, tokens and gpu (or gpu_tflops) to derive them; "
                    f"missing {', '.join(missing)}"
                )
        return self


class Retry(_Section):
    attempts: NonNegativeInt
    gpus: PositiveInt
    hours: PositiveDecimal
    name: str = "retries"


class Evaluation(_Section):
    """Evaluation jobs, given directly (jobs) or as checkpoints × suites × replicas.

    `hours` is the elapsed allocation of one job, model loading and result writing included;
    `load_hours` and `write_hours`, when given, are added to it per job.
    """

    name: str
    gpus: PositiveInt
    hours: PositiveDecimal
    jobs: PositiveInt | None = None
    checkpoints: PositiveInt | None = None
    suites: PositiveInt = 1
    replicas: PositiveInt = 1
    load_hours: NonNegativeDecimal = Decimal(0)
    write_hours: NonNegativeDecimal = Decimal(0)

    @model_validator(mode="after")
    def _jobs_or_checkpoints(self) -> Evaluation:
        if (self.jobs is None) == (self.checkpoints is None):
            raise ValueError("give either jobs, or checkpoints (with suites and replicas)")
        return self


class Checkpoints(_Section):
    count: NonNegativeInt
    size_gb: NonNegativeDecimal
    retention_months: NonNegativeDecimal


class Sensitivity(_Section):
    """The grid's attempts n and failure fractions f; f `forecast` is the forecast's overhead."""

    attempts: list[PositiveInt] = Field(default_factory=lambda: [1], min_length=1)
    failure_fraction: list[FailureFraction] = Field(
        default_factory=lambda: [Decimal("0.05")], min_length=1
    )

    @field_validator("failure_fraction", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return failure_fractions(value)


class CheckpointCadence(_Section):
    """Inputs of the checkpoint-interval model (estimate/cadence.py): times in minutes."""

    write_minutes: PositiveDecimal
    restart_minutes: NonNegativeDecimal = Decimal(0)
    mtbf_hours_per_gpu: PositiveDecimal | None = None
    mtbf_hours_per_node: PositiveDecimal | None = None
    gpus_per_node: PositiveInt = 8
    size_gb: NonNegativeDecimal | None = None
    keep_last: PositiveInt = 2

    @model_validator(mode="after")
    def _one_mtbf(self) -> CheckpointCadence:
        if (self.mtbf_hours_per_gpu is None) == (self.mtbf_hours_per_node is None):
            raise ValueError("give exactly one of mtbf_hours_per_gpu or mtbf_hours_per_node")
        return self


class CapacityChoice(_Section):
    """A capacity option for the main run (estimate/capacity.py); no mtbf = never interrupted."""

    name: str
    gpu_hour_usd: NonNegativeDecimal
    mtbf_hours: PositiveDecimal | None = None
    restart_minutes: NonNegativeDecimal = Decimal(0)
    write_minutes: NonNegativeDecimal = Decimal(0)
    checkpointing: bool = True
    delay_usd_per_day: NonNegativeDecimal = Decimal(0)


class Plan(_Section):
    """A training campaign plan (docs/plan.md)."""

    # A campaign names report folders and artifact keys: a plain name, never a path.
    campaign: Annotated[
        str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    ]
    unit_of_progress: Literal["optimizer_steps", "tokens", "validated_samples"]
    prices: Prices
    ceiling: Ceiling
    main: MainRun
    pilots: list[JobGroup] = Field(default_factory=list)
    retries: list[Retry] = Field(default_factory=list)
    evaluation: list[Evaluation] = Field(default_factory=list)
    diagnostics: list[JobGroup] = Field(default_factory=list)
    checkpoints: Checkpoints | None = None
    sensitivity: Sensitivity = Field(default_factory=Sensitivity)
    cadence: CheckpointCadence | None = None
    capacity: list[CapacityChoice] = Field(default_factory=list)
    gates: Gates | None = None  # thresholds for admission, stop rules, ... (plan/gates.py)
    reliability: Reliability | None = None  # the main-run forecast (plan/forecast.py)

"""The plan's sections (plan/fields.py): unknown keys refused, integers strict, decimals exact."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from trainbudget.plan.checks import (
    FRACTION_01,
    NON_NEGATIVE_DECIMAL,
    NON_NEGATIVE_INT,
    POSITIVE_DECIMAL,
    POSITIVE_INT,
    TEXT,
    boolean,
    choice,
    list_of,
    nested,
    optional,
    text,
)
from trainbudget.plan.cluster import Cluster
from trainbudget.plan.fields import (
    Section,
    section,
    spec,
)
from trainbudget.plan.forecast import (
    FlopsSpec,
    Parallel,
    Phase,
    Reliability,
    failure_fractions,
)
from trainbudget.plan.gates import Gates

_OPT_POS_DECIMAL = optional(POSITIVE_DECIMAL)
_OPT_POS_INT = optional(POSITIVE_INT)
_OPT_TEXT = optional(TEXT)
_TERM_METHODS = ("attention", "recompute")  # methods that are a flops term


@section
class Prices(Section):
    gpu_hour_usd: Decimal = spec(NON_NEGATIVE_DECIMAL)
    storage_gb_month_usd: Decimal = spec(NON_NEGATIVE_DECIMAL, Decimal(0))


@section
class Ceiling(Section):
    gpu_hours: Decimal = spec(POSITIVE_DECIMAL)
    usd: Decimal | None = spec(_OPT_POS_DECIMAL, None)


@section
class JobGroup(Section):
    """A batch of identical jobs: runs × gpus × hours GPU-hours."""

    name: str = spec(TEXT)
    runs: int = spec(POSITIVE_INT)
    gpus: int = spec(POSITIVE_INT)
    hours: Decimal = spec(POSITIVE_DECIMAL)
    # The job's CPUs and memory when not its GPU share of cluster.node (estimate/billing.py).
    cpus: int | None = spec(_OPT_POS_INT, None, omit_default=True)
    mem_gib: Decimal | None = spec(_OPT_POS_DECIMAL, None, omit_default=True)


@section
class MainRun(Section):
    """The main training run: hours given, or derived from (params, tokens, gpu, mfu or
    throughput_tflops on the `flops` basis), optionally in `phases` (plan/forecast.py)."""

    gpus: int = spec(POSITIVE_INT)
    hours: Decimal | None = spec(_OPT_POS_DECIMAL, None)
    gpu: str | None = spec(_OPT_TEXT, None)
    gpu_tflops: Decimal | None = spec(_OPT_POS_DECIMAL, None)
    params: Decimal | None = spec(_OPT_POS_DECIMAL, None)
    active_params: Decimal | None = spec(_OPT_POS_DECIMAL, None)
    tokens: Decimal | None = spec(_OPT_POS_DECIMAL, None)
    mfu: Decimal | None = spec(optional(FRACTION_01), None)
    flops_method: Literal["6nt", "attention", "recompute", "moe"] = spec(
        choice("6nt", "attention", "recompute", "moe"), "6nt"
    )
    n_layers: int | None = spec(_OPT_POS_INT, None)
    d_model: int | None = spec(_OPT_POS_INT, None)
    seq_len: int | None = spec(_OPT_POS_INT, None)
    # The kind the throughput prior is taken for: dense, or moe with flops_method moe.
    model_class: Literal["dense", "moe", "cnn", "snn"] | None = spec(
        optional(choice("dense", "moe", "cnn", "snn")), None
    )
    precision: Literal["fp32", "tf32", "bf16", "fp16", "fp8"] = spec(
        choice("fp32", "tf32", "bf16", "fp16", "fp8"), "bf16"
    )  # catalog peak
    throughput_tflops: Decimal | None = spec(_OPT_POS_DECIMAL, None)  # per GPU, flops basis
    flops: FlopsSpec | None = spec(optional(nested(FlopsSpec)), None)
    phases: list[Phase] = spec(list_of(nested(Phase)), factory=list)
    parallel: Parallel | None = spec(optional(nested(Parallel)), None, omit_default=True)
    # The job's CPUs and memory when not its GPU share of cluster.node (estimate/billing.py).
    cpus: int | None = spec(_OPT_POS_INT, None, omit_default=True)
    mem_gib: Decimal | None = spec(_OPT_POS_DECIMAL, None, omit_default=True)

    def check(self) -> str | tuple[str, str] | None:
        if self.mfu is not None and self.throughput_tflops is not None:
            return "give mfu or throughput_tflops (an alternative to mfu), not both"
        if (dual := self._two_ways()) is not None:
            return dual
        if self.flops is not None and self.flops.terms and self.flops_method in _TERM_METHODS:
            return (
                f"give flops.terms or flops_method {self.flops_method}, not both "
                f"(the method is the term {self.flops_method})"
            )
        if self.phases and self.hours is not None:
            return "give hours or phases (whose hours are derived), not both"
        if self.hours is None:
            needed = ("params",) if self.phases else ("params", "tokens")
            missing = [k for k in needed if getattr(self, k) is None]
            if self.gpu is None and self.gpu_tflops is None:
                missing.append("gpu")
            if missing:
                return (
                    "give hours, or params, tokens and gpu (or gpu_tflops) to derive them; "
                    f"missing {', '.join(missing)}"
                )
        return None

    def _two_ways(self) -> tuple[str, str] | None:
        """Two ways to say one quantity (docs/plan.md, "One way to say each quantity"):
        refused at the second key's line, never resolved by a silent rule."""
        rate = "mfu" if self.mfu is not None else None
        rate = rate or ("throughput_tflops" if self.throughput_tflops is not None else None)
        if self.hours is not None and rate and self.params is not None and self.tokens is not None:
            return (
                "hours",
                f"{self.hours} h and the model keys (params, tokens, {rate}) are two ways to "
                "say the main run's hours, and they need not agree; give one: hours, or "
                "params, tokens, gpu and mfu (or throughput_tflops) to derive them",
            )
        if self.gpu is not None and self.gpu_tflops is not None:
            return (
                "gpu_tflops",
                f"gpu {self.gpu} (the catalog's peak at {self.precision}) and gpu_tflops "
                f"{self.gpu_tflops} are two ways to say one GPU's peak; give one",
            )
        if self.flops is not None:
            for name in ("n_layers", "d_model", "seq_len"):
                if getattr(self, name) is not None and getattr(self.flops, name) is not None:
                    return (
                        name,
                        f"given in main and in main.flops, two ways to say the model's "
                        f"{name}; give it once (main.flops, which the flops basis reads)",
                    )
        return None


@section
class Retry(Section):
    attempts: int = spec(NON_NEGATIVE_INT)
    gpus: int = spec(POSITIVE_INT)
    hours: Decimal = spec(POSITIVE_DECIMAL)
    name: str = spec(TEXT, "retries")
    # The job's CPUs and memory when not its GPU share of cluster.node (estimate/billing.py).
    cpus: int | None = spec(_OPT_POS_INT, None, omit_default=True)
    mem_gib: Decimal | None = spec(_OPT_POS_DECIMAL, None, omit_default=True)


@section
class Evaluation(Section):
    """Evaluation jobs, given directly (jobs) or as checkpoints × suites × replicas.

    `hours` is the elapsed allocation of one job, model loading and result writing included;
    `load_hours` and `write_hours`, when given, are added to it per job.
    """

    name: str = spec(TEXT)
    gpus: int = spec(POSITIVE_INT)
    hours: Decimal = spec(POSITIVE_DECIMAL)
    jobs: int | None = spec(_OPT_POS_INT, None)
    checkpoints: int | None = spec(_OPT_POS_INT, None)
    suites: int = spec(POSITIVE_INT, 1)
    replicas: int = spec(POSITIVE_INT, 1)
    load_hours: Decimal = spec(NON_NEGATIVE_DECIMAL, Decimal(0))
    write_hours: Decimal = spec(NON_NEGATIVE_DECIMAL, Decimal(0))
    # The job's CPUs and memory when not its GPU share of cluster.node (estimate/billing.py).
    cpus: int | None = spec(_OPT_POS_INT, None, omit_default=True)
    mem_gib: Decimal | None = spec(_OPT_POS_DECIMAL, None, omit_default=True)

    def check(self) -> str | None:
        if (self.jobs is None) == (self.checkpoints is None):
            return "give either jobs, or checkpoints (with suites and replicas)"
        return None


@section
class Checkpoints(Section):
    count: int = spec(NON_NEGATIVE_INT)
    size_gb: Decimal = spec(NON_NEGATIVE_DECIMAL)
    retention_months: Decimal = spec(NON_NEGATIVE_DECIMAL)


@section
class Sensitivity(Section):
    """The grid's attempts n and failure fractions f; f `forecast` is the forecast's overhead."""

    attempts: list[int] = spec(list_of(POSITIVE_INT, min_length=1), factory=lambda: [1])
    failure_fraction: list[Decimal | str] = spec(
        failure_fractions, factory=lambda: [Decimal("0.05")]
    )


@section
class CheckpointCadence(Section):
    """Inputs of the checkpoint-interval model (estimate/cadence.py): times in minutes."""

    write_minutes: Decimal = spec(POSITIVE_DECIMAL)
    restart_minutes: Decimal = spec(NON_NEGATIVE_DECIMAL, Decimal(0))
    mtbf_hours_per_gpu: Decimal | None = spec(_OPT_POS_DECIMAL, None)
    mtbf_hours_per_node: Decimal | None = spec(_OPT_POS_DECIMAL, None)
    gpus_per_node: int = spec(POSITIVE_INT, 8)
    size_gb: Decimal | None = spec(optional(NON_NEGATIVE_DECIMAL), None)
    keep_last: int = spec(POSITIVE_INT, 2)

    def check(self) -> str | None:
        if (self.mtbf_hours_per_gpu is None) == (self.mtbf_hours_per_node is None):
            return "give exactly one of mtbf_hours_per_gpu or mtbf_hours_per_node"
        return None


@section
class CapacityChoice(Section):
    """A capacity option for the main run (estimate/capacity.py); no mtbf = never interrupted."""

    name: str = spec(TEXT)
    gpu_hour_usd: Decimal = spec(NON_NEGATIVE_DECIMAL)
    mtbf_hours: Decimal | None = spec(_OPT_POS_DECIMAL, None)
    restart_minutes: Decimal = spec(NON_NEGATIVE_DECIMAL, Decimal(0))
    write_minutes: Decimal = spec(NON_NEGATIVE_DECIMAL, Decimal(0))
    checkpointing: bool = spec(boolean(), True)
    delay_usd_per_day: Decimal = spec(NON_NEGATIVE_DECIMAL, Decimal(0))


# A campaign names report folders and artifact keys: a plain name, never a path.
_CAMPAIGN = text(
    min_length=1,
    max_length=200,
    pattern=r"[A-Za-z0-9][A-Za-z0-9._-]*",
    pattern_message="must be a plain name (letters, digits, '.', '_', '-'; no path)",
)


@section
class Plan(Section):
    """A training campaign plan (docs/plan.md)."""

    campaign: str = spec(_CAMPAIGN)
    unit_of_progress: Literal["optimizer_steps", "tokens", "validated_samples"] = spec(
        choice("optimizer_steps", "tokens", "validated_samples")
    )
    prices: Prices = spec(nested(Prices))
    ceiling: Ceiling = spec(nested(Ceiling))
    main: MainRun = spec(nested(MainRun))
    pilots: list[JobGroup] = spec(list_of(nested(JobGroup)), factory=list)
    retries: list[Retry] = spec(list_of(nested(Retry)), factory=list)
    evaluation: list[Evaluation] = spec(list_of(nested(Evaluation)), factory=list)
    diagnostics: list[JobGroup] = spec(list_of(nested(JobGroup)), factory=list)
    checkpoints: Checkpoints | None = spec(optional(nested(Checkpoints)), None)
    sensitivity: Sensitivity = spec(nested(Sensitivity), factory=Sensitivity)
    cadence: CheckpointCadence | None = spec(optional(nested(CheckpointCadence)), None)
    capacity: list[CapacityChoice] = spec(list_of(nested(CapacityChoice)), factory=list)
    gates: Gates | None = spec(optional(nested(Gates)), None)  # thresholds (plan/gates.py)
    reliability: Reliability | None = spec(optional(nested(Reliability)), None)  # the forecast
    # The cluster's own units (plan/cluster.py): billing, node, allocation.
    cluster: Cluster | None = spec(optional(nested(Cluster)), None, omit_default=True)

"""A pilot's summary: per-shape statistics, the shape mix, measured MFU and the warnings.

This is what `trainbudget pilot` prints and lands, and what the estimator takes as a measured
MFU (`mfu_source: pilot`) and a measured per-GPU throughput.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import polars as pl

from trainbudget.base.errors import InputError
from trainbudget.pilot.mfu import bucket_mfu, mfu_from_throughput, mixed_tokens_per_gpu_second
from trainbudget.pilot.mix import MixEntry, ResolvedMix, resolve_mix
from trainbudget.pilot.stats import (
    BucketStats,
    CheckpointStats,
    Shape,
    bucket_stats,
    checkpoint_stats,
    with_tokens,
    without_warmup,
)

if TYPE_CHECKING:
    from trainbudget.estimate.catalog import Accelerator

HEADROOM_WARN_BELOW = Decimal("0.10")  # a worst-case batch or fragmentation eats ~10 %
MFU_WARN_ABOVE = Decimal("0.7")
SECONDS_PER_HOUR = 3600


@dataclass(frozen=True)
class PilotOptions:
    """What the user told us beyond the step logs (all optional)."""

    params: Decimal | None = None
    gpu: str | None = None
    precision: str = "bf16"
    shape_mix: tuple[MixEntry, ...] = ()
    warmup_steps: int = 0
    train_tokens: Decimal | None = None

    def as_record(self) -> dict[str, Any]:
        """The options as plain values, for the ledger and the analysis key."""
        return {
            "params": None if self.params is None else str(self.params),
            "gpu": self.gpu,
            "precision": self.precision,
            "shape_mix": [[e.seq_len, e.batch_size, str(e.fraction)] for e in self.shape_mix],
            "warmup_steps": self.warmup_steps,
            "train_tokens": None if self.train_tokens is None else str(self.train_tokens),
        }


@dataclass(frozen=True)
class PilotSummary:
    """Everything measured from a set of step logs, in exact numbers."""

    steps: int
    runs: int
    buckets: list[BucketStats]
    mix: ResolvedMix
    checkpoint: CheckpointStats | None
    options: PilotOptions
    accelerator: Accelerator | None
    peak_flops_per_second: Decimal | None
    tokens_per_gpu_second: Decimal
    mfu: Decimal | None
    bucket_mfus: dict[Shape, Decimal] = field(default_factory=dict)
    projected_gpu_hours: Decimal | None = None
    warnings: tuple[str, ...] = ()

    def headroom(self, bucket: BucketStats) -> tuple[int | None, Decimal | None]:
        """(bytes, fraction of the accelerator's memory) left at the bucket's peak, if known."""
        if self.accelerator is None or bucket.peak_memory_bytes is None:
            return None, None
        left = self.accelerator.memory_bytes - bucket.peak_memory_bytes
        return left, Decimal(left) / self.accelerator.memory_bytes

    def min_headroom_bytes(self) -> int | None:
        """The smallest headroom over all shapes (the one that would run out first)."""
        known = [h for h, _ in map(self.headroom, self.buckets) if h is not None]
        return min(known) if known else None

    def to_payload(self) -> dict[str, Any]:
        """The summary as a JSON-ready dict (keys documented in docs/pilot.md)."""
        worst = self.mix.worst_case
        worst_shape = dict(self.mix.matches).get(worst) if worst else None
        return {
            "steps": self.steps,
            "runs": self.runs,
            "buckets": [self._bucket_payload(b, b.shape == worst_shape) for b in self.buckets],
            "shape_mix": {
                "source": self.mix.source,
                "coverage": self.mix.coverage,
                "entries": [
                    {**_entry_payload(e), "measured": s is not None} for e, s in self.mix.matches
                ],
                "worst_case": (
                    {**_entry_payload(worst), "measured": self.mix.worst_case_measured}
                    if worst
                    else None
                ),
            },
            "tokens_per_gpu_second": self.tokens_per_gpu_second,
            "mfu": self.mfu,
            "mfu_source": "pilot" if self.mfu is not None else None,
            "params": self.options.params,
            "gpu": self.accelerator.name if self.accelerator else None,
            "precision": self.options.precision,
            "peak_flops_per_second": self.peak_flops_per_second,
            "memory_bytes": self.accelerator.memory_bytes if self.accelerator else None,
            "memory_headroom_bytes": self.min_headroom_bytes(),
            "checkpoint": None if self.checkpoint is None else vars(self.checkpoint).copy(),
            "warmup_steps": self.options.warmup_steps,
            "train_tokens": self.options.train_tokens,
            "projected_gpu_hours": self.projected_gpu_hours,
            "warnings": list(self.warnings),
        }

    def _bucket_payload(self, bucket: BucketStats, worst_case: bool) -> dict[str, Any]:
        left, fraction = self.headroom(bucket)
        fields = {k: v for k, v in vars(bucket).items() if k != "shape"}
        return {
            **vars(bucket.shape),
            **fields,
            "memory_headroom_bytes": left,
            "memory_headroom_fraction": fraction,
            "mfu": self.bucket_mfus.get(bucket.shape),
            "mix_fraction": self.mix.weights.get(bucket.shape, Decimal(0)),
            "worst_case": worst_case,
        }


def _entry_payload(entry: MixEntry) -> dict[str, Any]:
    return {"seq_len": entry.seq_len, "batch_size": entry.batch_size, "fraction": entry.fraction}


def summarize_pilot(
    steps: pl.DataFrame, options: PilotOptions, accelerator: Accelerator | None = None
) -> PilotSummary:
    """Summarize validated step rows (PilotStep frames, concatenated) under `options`."""
    used = without_warmup(with_tokens(steps), options.warmup_steps)
    if used.height == 0:
        raise InputError(
            f"warmup_steps {options.warmup_steps}: leaves no steps to measure "
            f"(the longest run has {steps.group_by('run_id').len()['len'].max()} steps)"
        )
    buckets = bucket_stats(used)
    mix = resolve_mix(options.shape_mix, buckets)
    measured = [b for b in buckets if b.shape in mix.weights]
    throughput = mixed_tokens_per_gpu_second(measured, mix.weights)
    peak = accelerator.peak_flops_per_second(options.precision) if accelerator else None
    mfu, per_bucket = None, {}
    if peak is not None and options.params is not None:
        mfu = mfu_from_throughput(throughput, options.params, peak)
        per_bucket = {b.shape: bucket_mfu(b, options.params, peak) for b in buckets}
    projected = None
    if options.train_tokens is not None:
        projected = options.train_tokens / throughput / SECONDS_PER_HOUR
    summary = PilotSummary(
        steps=used.height,
        runs=used["run_id"].n_unique(),
        buckets=buckets,
        mix=mix,
        checkpoint=checkpoint_stats(used),
        options=options,
        accelerator=accelerator,
        peak_flops_per_second=peak,
        tokens_per_gpu_second=throughput,
        mfu=mfu,
        bucket_mfus=per_bucket,
        projected_gpu_hours=projected,
    )
    return PilotSummary(**{**vars(summary), "warnings": tuple(pilot_warnings(summary))})


def pilot_warnings(summary: PilotSummary) -> list[str]:
    """What a careful reader should know before trusting these numbers."""
    notes = []
    mix = summary.mix
    if mix.source == "pilot":
        notes.append(
            "no --shape-mix declared: figures use the pilot's own token mix, so nothing checks "
            "that the worst-case shape (the longest sequences of the real run) was measured"
        )
    elif mix.worst_case is not None and not mix.worst_case_measured:
        notes.append(
            f"the pilot never ran the worst-case shape {mix.worst_case.label} "
            f"({mix.worst_case.fraction} of training tokens): throughput, MFU and memory "
            "headroom come from shorter shapes and are likely optimistic"
        )
    others = [e for e in mix.unmeasured if e != mix.worst_case]
    if others:
        names = ", ".join(e.label for e in others)
        notes.append(f"the pilot never ran {names}")
    if mix.coverage < 1:
        notes.append(
            f"the declared mix was renormalised over the measured shapes, which carry "
            f"{mix.coverage} of the training tokens"
        )
    for bucket in summary.buckets:
        left, fraction = summary.headroom(bucket)
        if left is None or fraction is None:
            continue
        name = summary.accelerator.name if summary.accelerator else "accelerator"
        if left < 0:
            notes.append(
                f"{bucket.shape.label}: peak memory {bucket.peak_memory_bytes} bytes exceeds the "
                f"{name}'s {summary.accelerator.memory_bytes} bytes; wrong --gpu, or the log's "
                "peak_memory_bytes is not per GPU"
            )
        elif fraction < HEADROOM_WARN_BELOW:
            notes.append(
                f"{bucket.shape.label}: only {fraction:.1%} of the {name}'s memory is left at "
                "peak; a longer batch or fragmentation can run out of memory"
            )
    if summary.mfu is not None and summary.mfu > MFU_WARN_ABOVE:
        notes.append(
            f"measured MFU {summary.mfu:.3f} is above {MFU_WARN_ABOVE}: check --params, --gpu, "
            "--precision and that tokens count the whole step across all GPUs"
        )
    return notes

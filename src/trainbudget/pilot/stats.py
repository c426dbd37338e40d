"""Per-shape pilot statistics: step time, throughput, peak memory, checkpoint writes.

A shape bucket is (seq_len, batch_size, gpus): steps of different shapes are never pooled, so
a slow long-sequence shape cannot hide inside an average of short ones. Numbers are exact
Decimals built from each measured value's shortest decimal text; rounding is for display only.

Definitions (docs/pilot.md): median as usual (mean of the two middle values for an even
count); p95 by nearest rank, the ⌈0.95·n⌉-th smallest value, so it is always a measured step;
tokens per second = median tokens per step / median step seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

import polars as pl

from trainbudget.estimate.exact import to_decimal


@dataclass(frozen=True, order=True)
class Shape:
    """A shape bucket: sequence length, global batch size and GPU count of a step."""

    seq_len: int
    batch_size: int
    gpus: int

    @property
    def label(self) -> str:
        unit = "GPU" if self.gpus == 1 else "GPUs"
        return f"seq_len {self.seq_len} x batch {self.batch_size} on {self.gpus} {unit}"


@dataclass(frozen=True)
class BucketStats:
    """Step-time and throughput statistics of one shape bucket (seconds, tokens, bytes)."""

    shape: Shape
    steps: int
    runs: int
    tokens: int
    median_step_seconds: Decimal
    p95_step_seconds: Decimal
    max_step_seconds: Decimal
    tokens_per_step: Decimal
    tokens_per_second: Decimal
    tokens_per_gpu_second: Decimal
    peak_memory_bytes: int | None


@dataclass(frozen=True)
class CheckpointStats:
    """Checkpoint writes seen in the pilot: how many, how long (seconds), how big (bytes)."""

    writes: int
    median_seconds: Decimal
    max_seconds: Decimal
    median_bytes: Decimal | None
    max_bytes: int | None
    bytes_per_second: Decimal | None


def median(values: Sequence[Decimal]) -> Decimal:
    """The median: middle value, or the mean of the two middle values for an even count."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("median of no values")
    return _sorted_median(ordered)


def nearest_rank(values: Sequence[Decimal], percent: int) -> Decimal:
    """The `percent`-th percentile by nearest rank: the ⌈percent·n/100⌉-th smallest value."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values")
    return ordered[_nearest_rank_index(len(ordered), percent)]


def with_tokens(steps: pl.DataFrame) -> pl.DataFrame:
    """Fill `tokens` from samples × seq_len where a row gave only samples (fixed-length rows)."""
    return steps.with_columns(
        pl.coalesce(pl.col("tokens"), pl.col("samples") * pl.col("seq_len")).alias("tokens")
    )


def without_warmup(steps: pl.DataFrame, warmup_steps: int) -> pl.DataFrame:
    """Drop the first `warmup_steps` steps (by step number) of every run."""
    if warmup_steps <= 0:
        return steps
    order = pl.col("step").rank("ordinal").over("run_id")
    return steps.filter(order > warmup_steps)


def bucket_stats(steps: pl.DataFrame) -> list[BucketStats]:
    """Statistics per shape bucket, ordered by shape; `steps` must already carry tokens."""
    found = []
    keys = ["seq_len", "batch_size", "gpus"]
    for key, group in steps.sort(keys).group_by(keys, maintain_order=True):
        shape = Shape(*(int(k) for k in key))
        # Sorting floats orders their exact decimal texts the same way, so only the order
        # statistics we report need converting to Decimal.
        seconds = group["wall_seconds"].sort().to_list()
        tokens = group["tokens"].sort().to_list()
        median_seconds = _sorted_median(seconds)
        tokens_per_step = _sorted_median(tokens)
        per_second = tokens_per_step / median_seconds
        memory = group["peak_memory_bytes"].max()
        found.append(
            BucketStats(
                shape=shape,
                steps=group.height,
                runs=group["run_id"].n_unique(),
                tokens=int(group["tokens"].sum()),
                median_step_seconds=median_seconds,
                p95_step_seconds=to_decimal(seconds[_nearest_rank_index(len(seconds), 95)]),
                max_step_seconds=to_decimal(seconds[-1]),
                tokens_per_step=tokens_per_step,
                tokens_per_second=per_second,
                tokens_per_gpu_second=per_second / shape.gpus,
                peak_memory_bytes=None if memory is None else int(memory),
            )
        )
    return found


def _sorted_median(ordered: Sequence[Decimal | float | int]) -> Decimal:
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return to_decimal(ordered[mid])
    return (to_decimal(ordered[mid - 1]) + to_decimal(ordered[mid])) / 2


def _nearest_rank_index(count: int, percent: int) -> int:
    """0-based index of the ⌈percent·count/100⌉-th smallest value."""
    return max(1, -(-percent * count // 100)) - 1


def checkpoint_stats(steps: pl.DataFrame) -> CheckpointStats | None:
    """Checkpoint write time and size over the steps that wrote one; None if none did."""
    writes = steps.filter(pl.col("checkpoint_seconds").is_not_null())
    if writes.height == 0:
        return None
    seconds = [to_decimal(v) for v in writes["checkpoint_seconds"]]
    sizes = [Decimal(int(v)) for v in writes["checkpoint_bytes"].drop_nulls()]
    # Write bandwidth only over the writes that report both their time and their size.
    both = writes.filter(pl.col("checkpoint_bytes").is_not_null())
    both_seconds = sum((to_decimal(v) for v in both["checkpoint_seconds"]), Decimal(0))
    both_bytes = sum((Decimal(int(v)) for v in both["checkpoint_bytes"]), Decimal(0))
    return CheckpointStats(
        writes=writes.height,
        median_seconds=median(seconds),
        max_seconds=max(seconds),
        median_bytes=median(sizes) if sizes else None,
        max_bytes=int(max(sizes)) if sizes else None,
        bytes_per_second=both_bytes / both_seconds if both_seconds > 0 else None,
    )


def observed_token_mix(buckets: Sequence[BucketStats]) -> dict[Shape, Decimal]:
    """Each bucket's share of the pilot's tokens (what the pilot itself ran)."""
    total = sum(b.tokens for b in buckets)
    return {b.shape: Decimal(b.tokens) / total for b in buckets}

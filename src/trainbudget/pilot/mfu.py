"""Measured model-FLOPs utilisation (MFU) from pilot throughput.

MFU = 6 · N · tokens per step / (step seconds · GPUs · peak FLOP/s per GPU), with 6·N training
FLOPs per token (Kaplan et al. 2020, the approximation seed 004 uses for FLOPs ≈ 6·N·T). The
estimator takes the result as `mfu_source: pilot`. Attention FLOPs are not in 6·N, so a long
sequence shows a lower MFU for the same hardware work; that is the convention (model FLOPs,
not hardware FLOPs), kept so the pilot MFU plugs straight into FLOPs = 6·N·T.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from trainbudget.pilot.stats import BucketStats, Shape

FLOPS_PER_PARAM_TOKEN = 6


def step_mfu(
    params: Decimal, tokens: Decimal, step_seconds: Decimal, gpus: int, peak: Decimal
) -> Decimal:
    """MFU of one step: 6·N·tokens / (seconds · GPUs · peak FLOP/s per GPU)."""
    return FLOPS_PER_PARAM_TOKEN * params * tokens / (step_seconds * gpus * peak)


def bucket_mfu(bucket: BucketStats, params: Decimal, peak: Decimal) -> Decimal:
    """MFU of a shape bucket at its median tokens per step and median step time."""
    return step_mfu(
        params, bucket.tokens_per_step, bucket.median_step_seconds, bucket.shape.gpus, peak
    )


def mixed_tokens_per_gpu_second(
    buckets: list[BucketStats], weights: Mapping[Shape, Decimal]
) -> Decimal:
    """Throughput per GPU over a token mix: 1 / Σ (share of tokens / tokens per GPU-second).

    A weighted harmonic mean, because the shares are of tokens: each shape adds the GPU-seconds
    its tokens take, and throughput is total tokens over total GPU-seconds.
    """
    by_shape = {b.shape: b for b in buckets}
    gpu_seconds_per_token = sum(
        (share / by_shape[shape].tokens_per_gpu_second for shape, share in weights.items()),
        Decimal(0),
    )
    return 1 / gpu_seconds_per_token


def mfu_from_throughput(tokens_per_gpu_second: Decimal, params: Decimal, peak: Decimal) -> Decimal:
    """MFU of a per-GPU throughput: 6·N·(tokens per GPU-second) / peak FLOP/s per GPU."""
    return FLOPS_PER_PARAM_TOKEN * params * tokens_per_gpu_second / peak

"""The peak a trace's MFU is measured against: one rule for `trainbudget trace` and the flow."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

from trainbudget.trace.combine import Peak, dominant_precision
from trainbudget.trace.summary import RankSummary


def peak_for(
    summaries: Sequence[RankSummary],
    *,
    gpu: str | None = None,
    gpu_tflops: Fraction | Decimal | None = None,
    precision: str | None = None,
) -> Peak | None:
    """`gpu_tflops` × 10¹² FLOP/s, else the catalog GPU's dense peak; None with neither.

    The precision is the one given, else the one carrying most of the traced FLOPs, else bf16.
    """
    if gpu is None and gpu_tflops is None:
        return None
    chosen = (precision or dominant_precision(summaries) or "bf16").lower()
    if gpu_tflops is not None:
        return Peak(gpu or "custom", chosen, Fraction(gpu_tflops) * 10**12)
    from trainbudget.estimate.catalog import get_accelerator

    accelerator = get_accelerator(gpu)
    return Peak(accelerator.name, chosen, Fraction(accelerator.peak_flops_per_second(chosen)))

"""The peak a trace's MFU is measured against: one rule (`choose_peak`) for the trace command
and the pre-launch procedure."""

from __future__ import annotations

from fractions import Fraction

from trainbudget.estimate.catalog import get_accelerator
from trainbudget.trace.combine import choose_peak

A100 = get_accelerator("A100-80GB")


def test_no_gpu_means_no_peak() -> None:
    assert choose_peak([]) is None


def test_given_tflops_win_over_the_catalog() -> None:
    peak = choose_peak(
        [], accelerator=A100, tflops=Fraction(100), gpu="A100-80GB", precision="fp16"
    )
    assert (peak.gpu, peak.precision, peak.flops_per_second) == ("A100-80GB", "fp16", 10**14)


def test_the_catalog_peak_at_the_given_precision() -> None:
    # NVIDIA A100 datasheet: 312 TFLOP/s dense BF16, 156 TF32.
    bf16 = choose_peak([], accelerator=A100, precision="bf16")
    assert bf16.flops_per_second == Fraction(312 * 10**12)
    assert choose_peak([], accelerator=A100, precision="tf32").flops_per_second == 156 * 10**12
    assert choose_peak([], accelerator=A100).precision == "bf16"  # nothing traced or given

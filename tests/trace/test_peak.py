"""The peak a trace's MFU is measured against: one rule for the command and the flow."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from trainbudget.trace.peak import peak_for


def test_no_gpu_means_no_peak() -> None:
    assert peak_for([]) is None


def test_given_tflops_win_over_the_catalog() -> None:
    peak = peak_for([], gpu="A100-80GB", gpu_tflops=Decimal("100"), precision="fp16")
    assert (peak.gpu, peak.precision, peak.flops_per_second) == ("A100-80GB", "fp16", 10**14)


def test_the_catalog_peak_at_the_given_precision() -> None:
    # NVIDIA A100 datasheet: 312 TFLOP/s dense BF16, 156 TF32.
    assert peak_for([], gpu="A100-80GB", precision="bf16").flops_per_second == Fraction(
        312 * 10**12
    )
    assert peak_for([], gpu="A100-80GB", precision="tf32").flops_per_second == Fraction(
        156 * 10**12
    )
    assert peak_for([], gpu="A100-80GB").precision == "bf16"  # nothing traced, no precision given

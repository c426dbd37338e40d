"""The accelerator catalog: canonical names, published peaks, close-name errors, lazy loading."""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal

import pytest

from trainbudget.errors import InputError
from trainbudget.estimate.catalog import PRECISIONS, get_accelerator, list_accelerators

CANONICAL = [
    "A100-40GB",
    "A100-80GB",
    "A100-PCIe",
    "H100-SXM",
    "H100-PCIe",
    "H200",
    "B200",
    "L40S",
    "L4",
    "V100",
    "MI250X",
    "MI300X",
]


def test_every_canonical_name_is_present_with_memory_peaks_and_source() -> None:
    names = [a.name for a in list_accelerators()]
    assert sorted(names) == sorted(CANONICAL)
    for accelerator in list_accelerators():
        assert accelerator.memory_bytes >= 16 * 1024**3
        assert accelerator.source.strip()
        assert accelerator.peak_tflops and set(accelerator.peak_tflops) <= set(PRECISIONS)
        assert all(v > 0 for v in accelerator.peak_tflops.values())


@pytest.mark.parametrize("name", ["a100-80gb", "A100-80GB", "  a100-80GB "])
def test_names_match_case_insensitively(name: str) -> None:
    assert get_accelerator(name).name == "A100-80GB"


@pytest.mark.parametrize(
    ("name", "precision", "tflops"),
    [
        # Published dense peaks: A100 datasheet 312 TFLOP/s bf16 (the seed's 3.12e14),
        # H100 SXM whitepaper 989.4 bf16, V100 datasheet 125 fp16 tensor, MI300X 1307.4 bf16.
        ("A100-40GB", "bf16", "312"),
        ("A100-80GB", "tf32", "156"),
        ("H100-SXM", "bf16", "989.4"),
        ("H100-SXM", "fp8", "1978.9"),
        ("V100", "fp16", "125"),
        ("MI300X", "bf16", "1307.4"),
    ],
)
def test_published_peaks(name: str, precision: str, tflops: str) -> None:
    peak = get_accelerator(name).peak_flops_per_second(precision)
    assert peak == Decimal(tflops) * 10**12


def test_dense_peaks_are_ordered_fp8_above_bf16_above_tf32_where_present() -> None:
    for accelerator in list_accelerators():
        peaks = accelerator.peak_tflops
        if "fp8" in peaks:
            assert peaks["fp8"] > peaks["bf16"]
        if "tf32" in peaks and "bf16" in peaks:
            assert peaks["tf32"] < peaks["bf16"]


def test_memory_is_datasheet_gib() -> None:
    assert get_accelerator("A100-40GB").memory_bytes == 40 * 2**30
    assert get_accelerator("H100-SXM").memory_bytes == 80 * 2**30
    assert get_accelerator("MI300X").memory_bytes == 192 * 2**30


def test_unknown_name_lists_close_names() -> None:
    with pytest.raises(InputError) as info:
        get_accelerator("H100")
    message = str(info.value)
    assert message.startswith("gpu: unknown accelerator 'H100'; close names:")
    assert "H100-SXM" in message and "H100-PCIe" in message
    assert "MI250X" not in message


def test_unknown_name_with_nothing_close_lists_all() -> None:
    with pytest.raises(InputError, match=r"known names: A100-40GB, .*MI300X"):
        get_accelerator("tpu-v5p")


def test_missing_precision_is_an_error_not_a_fallback() -> None:
    with pytest.raises(InputError, match=r"precision: A100-80GB has no .*fp8.*gpu_tflops"):
        get_accelerator("A100-80GB").peak_flops_per_second("fp8")


def test_catalog_is_not_read_at_import() -> None:
    probe = "import trainbudget.estimate.catalog as c\nprint(c._catalog.cache_info().currsize)\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"

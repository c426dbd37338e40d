"""The accelerator catalog: canonical names, published peaks, close-name errors, lazy loading."""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal

import pytest

from trainbudget.base.errors import InputError
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
    # issue 16: TPUs per chip, the Hopper/Blackwell variants, PCIe cards, AMD, Intel.
    *("TPU-v3", "TPU-v4", "TPU-v5e", "TPU-v5p", "TPU-v6e"),
    *("H800", "H20", "GH200", "GH200-144GB", "GB200", "B100", "B300"),
    *("A10", "A10G", "A40", "L40", "T4"),
    *("MI210", "MI325X", "MI355X", "Gaudi2", "Gaudi3"),
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
        # Google Cloud TPU docs, per chip: v4 275, v5e 197, v5p 459, v6e 918 bf16.
        ("TPU-v4", "bf16", "275"),
        ("TPU-v5e", "bf16", "197"),
        ("TPU-v5p", "bf16", "459"),
        ("TPU-v6e", "bf16", "918"),
        # GB200 NVL72 datasheet per GPU: 5 PF BF16 / 10 PF FP8 sparse, halved.
        ("GB200", "bf16", "2500"),
        ("GB200", "fp8", "5000"),
        # A40 datasheet: 149.7 dense BF16; T4 datasheet: 65 FP16 tensor; Gaudi 3: 1,835 both.
        ("A40", "bf16", "149.7"),
        ("T4", "fp16", "65"),
        ("Gaudi3", "fp8", "1835"),
        ("MI325X", "fp8", "2614.9"),
    ],
)
def test_published_peaks(name: str, precision: str, tflops: str) -> None:
    peak = get_accelerator(name).peak_flops_per_second(precision)
    assert peak == Decimal(tflops) * 10**12


def test_dense_peaks_are_ordered_fp8_at_least_bf16_above_tf32_where_present() -> None:
    # At least, not above: Intel publishes the same FP8 and BF16 matrix peak for Gaudi 3.
    for accelerator in list_accelerators():
        peaks = accelerator.peak_tflops
        if "fp8" in peaks:
            assert peaks["fp8"] >= peaks["bf16"]
        if "tf32" in peaks and "bf16" in peaks:
            assert peaks["tf32"] < peaks["bf16"]


# Vendors whose tensor cores double from 16-bit to 8-bit: NVIDIA Hopper/Ada/Blackwell, AMD
# CDNA 3/4. A figure copied from a sparse column on one line and a dense one on the other
# breaks the 2x.
FP8_IS_TWICE_BF16 = ("H800", "H20", "GH200", "GB200", "B100", "B300", "MI325X", "MI355X")


@pytest.mark.parametrize("name", FP8_IS_TWICE_BF16)
def test_fp8_is_twice_bf16_where_the_vendor_says_so(name: str) -> None:
    peaks = get_accelerator(name).peak_tflops
    # Datasheets round each figure to 0.1 TFLOP/s (H100: 1978.9 = 2 x 989.45).
    assert abs(peaks["fp8"] - 2 * peaks["bf16"]) <= Decimal("0.1")
    assert peaks["bf16"] == peaks["fp16"]


def test_gaudi3_fp8_equals_bf16_and_gaudi2_roughly_doubles() -> None:
    assert get_accelerator("Gaudi3").peak_tflops["fp8"] == Decimal(1835)
    assert get_accelerator("Gaudi3").peak_tflops["bf16"] == Decimal(1835)
    gaudi2 = get_accelerator("Gaudi2").peak_tflops
    assert Decimal("1.9") < gaudi2["fp8"] / gaudi2["bf16"] < Decimal("2.1")


def test_dense_figures_are_half_the_published_sparse_ones() -> None:
    # Sparse datasheet columns: A40 BF16 299.4, L40 FP8 724, A10 INT8 500 TOPS, B300 FP8
    # 72 PF per 8 GPUs; the catalog keeps the dense half.
    assert get_accelerator("A40").peak_tflops["bf16"] * 2 == Decimal("299.4")
    assert get_accelerator("L40").peak_tflops["fp8"] * 2 == Decimal(724)
    assert get_accelerator("A10").peak_tops["int8"] * 2 == Decimal(500)
    assert get_accelerator("B300").peak_tflops["fp8"] * 8 * 2 == Decimal(72_000)


def test_int8_is_listed_in_tops_and_is_never_a_flop_peak() -> None:
    tpu = get_accelerator("TPU-v5p")
    assert tpu.peak_tops == {"int8": Decimal(918)}
    assert "int8" not in tpu.peak_tflops
    with pytest.raises(InputError, match="has no published dense int8"):
        tpu.peak_flops_per_second("int8")
    assert get_accelerator("B300").peak_tops == {}  # cut on Blackwell Ultra: not listed


@pytest.mark.parametrize(
    ("name", "gib"),
    [("TPU-v5e", 16), ("TPU-v5p", 95), ("GB200", 186), ("B300", 288), ("MI355X", 288)],
)
def test_new_entries_memory(name: str, gib: int) -> None:
    assert get_accelerator(name).memory_bytes == gib * 2**30


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("TPU-v4", "per chip"),
        ("TPU-v3", "count cores"),
        ("GB200", "per gpu"),
        ("MI250X", "two gcds"),
        ("Gaudi3", "two dies"),
    ],
)
def test_source_notes_say_how_devices_are_counted(name: str, words: str) -> None:
    assert words in get_accelerator(name).source.lower()


@pytest.mark.parametrize("name", ["H20", "A10G", "B100", "Gaudi2"])
def test_uncertain_figures_say_so(name: str) -> None:
    assert "UNCERTAIN" in get_accelerator(name).source


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
    with pytest.raises(InputError, match=r"known names: A100-40GB, .*MI300X.*Gaudi3"):
        get_accelerator("wse-3")


def test_missing_precision_is_an_error_not_a_fallback() -> None:
    with pytest.raises(InputError, match=r"precision: A100-80GB has no .*fp8.*gpu_tflops"):
        get_accelerator("A100-80GB").peak_flops_per_second("fp8")


def test_catalog_is_not_read_at_import() -> None:
    probe = "import trainbudget.estimate.catalog as c\nprint(c._catalog.cache_info().currsize)\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"

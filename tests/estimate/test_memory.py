"""Per-GPU training memory: ZeRO's published model-state figures and Korthikanti's activations."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.estimate.catalog import get_accelerator
from trainbudget.estimate.memory import (
    StateBytes,
    activation_bytes_per_layer,
    model_state_bytes,
    training_memory,
)


@pytest.mark.parametrize(
    ("stage", "published_gb"),
    # Rajbhandari et al. 2020 (ZeRO), figure 1: a 7.5B-parameter model, 64 data-parallel
    # ranks, mixed-precision Adam (K = 12): 120 GB, 31.4 GB, 16.6 GB, 1.9 GB per device.
    [(0, "120"), (1, "31.4"), (2, "16.6"), (3, "1.9")],
)
def test_zero_paper_figure_1(stage: int, published_gb: str) -> None:
    states = model_state_bytes(Decimal("7.5e9"), zero_stage=stage, data_parallel=64)
    total_gb = sum(states) / Decimal(10**9)
    assert abs(total_gb - Decimal(published_gb)) < Decimal("0.05")


def test_zero_formulas_exactly() -> None:
    psi, nd = Decimal("7.5e9"), 64
    assert sum(model_state_bytes(psi, zero_stage=1, data_parallel=nd)) == 4 * psi + 12 * psi / nd
    assert sum(model_state_bytes(psi, zero_stage=2, data_parallel=nd)) == 2 * psi + 14 * psi / nd
    assert sum(model_state_bytes(psi, zero_stage=3, data_parallel=nd)) == 16 * psi / nd


def test_tensor_parallel_splits_every_state() -> None:
    whole = model_state_bytes(8 * 10**9)
    split = model_state_bytes(8 * 10**9, tensor_parallel=4)
    assert [w / 4 for w in whole] == list(split)


def test_configurable_optimizer_bytes() -> None:
    # Plain fp32 Adam without a master copy: 4 weights + 4 gradients + 8 moments = 16 too,
    # but SGD with momentum in fp32 is 4 + 4 + 4 = 12 bytes per parameter.
    sgd = StateBytes(weights=4, gradients=4, optimizer=4)
    assert sum(model_state_bytes(10**9, state=sgd)) == 12 * 10**9


S, B, H, A = 2048, 1, 12288, 96  # GPT-3 175B shapes used by Korthikanti et al. 2022


def test_korthikanti_no_recompute_single_gpu() -> None:
    per_layer, _ = activation_bytes_per_layer(S, B, H, A)
    assert per_layer == S * B * H * (34 + Decimal(5 * A * S) / H)


def test_korthikanti_table_2_rows() -> None:
    t = 8
    sbh = S * B * H
    tp, _ = activation_bytes_per_layer(S, B, H, A, tensor_parallel=t)
    assert tp == sbh * (10 + Decimal(24) / t + Decimal(5 * A * S) / (H * t))
    sp, _ = activation_bytes_per_layer(S, B, H, A, tensor_parallel=t, sequence_parallel=True)
    assert sp == Decimal(sbh) / t * (34 + Decimal(5 * A * S) / H)
    sel, _ = activation_bytes_per_layer(S, B, H, A, recompute="selective", tensor_parallel=t)
    assert sel == sbh * (10 + Decimal(24) / t)
    sel_sp, _ = activation_bytes_per_layer(
        S, B, H, A, recompute="selective", tensor_parallel=t, sequence_parallel=True
    )
    assert sel_sp == Decimal(34 * sbh) / t
    full, _ = activation_bytes_per_layer(S, B, H, A, recompute="full", tensor_parallel=t)
    assert full == 2 * sbh


def test_seven_b_fits_on_h100_with_zero_3_but_not_without() -> None:
    # A 7B Llama-like model (32 layers, 4096 hidden, 32 heads), seq 4096, micro-batch 1, 8 GPUs.
    shape = {"n_layers": 32, "d_model": 4096, "heads": 32, "seq_len": 4096, "micro_batch": 1}
    capacity = get_accelerator("H100-SXM").memory_bytes
    plain = training_memory(7 * 10**9, gpus=8, capacity_bytes=capacity, **shape)
    assert plain.total_bytes > 16 * 7 * 10**9  # model states alone are 112 GB
    assert plain.fits is False and plain.headroom_bytes < 0
    sharded = training_memory(
        7 * 10**9, gpus=8, zero_stage=3, recompute="full", capacity_bytes=capacity, **shape
    )
    expected = Decimal(16 * 7 * 10**9) / 8 + 32 * 2 * 4096 * 1 * 4096
    assert sharded.total_bytes == expected
    assert sharded.fits is True
    assert sharded.headroom_bytes == capacity - expected


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"zero_stage": 4}, "zero_stage"),
        ({"tensor_parallel": 3}, "tensor_parallel"),
        ({"micro_batch": 0}, "micro_batch"),
        ({"recompute": "some"}, "recompute"),
    ],
)
def test_bad_memory_input(kwargs: dict, field: str) -> None:
    args = {"n_layers": 2, "d_model": 64, "heads": 4, "seq_len": 16, "micro_batch": 1, "gpus": 8}
    with pytest.raises(InputError, match=rf"^{field}:"):
        training_memory(10**6, **{**args, **kwargs})


@given(
    stage=st.integers(0, 2),
    dp=st.integers(1, 1024),
    params=st.integers(1, 10**12),
)
def test_higher_zero_stage_never_needs_more(stage: int, dp: int, params: int) -> None:
    lower = sum(model_state_bytes(params, zero_stage=stage, data_parallel=dp))
    higher = sum(model_state_bytes(params, zero_stage=stage + 1, data_parallel=dp))
    assert higher <= lower

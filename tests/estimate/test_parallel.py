"""The parallel layout: the bubble and the most loaded rank's memory, by hand, against
Megatron-LM's own theoretical memory model on published configurations, and as properties.

The oracle below is Megatron-LM's arithmetic, ported line for line (dense GPT layers, no MoE,
MTP, MLA or GQA; sequence parallelism with selective recompute, the branch that uses
Korthikanti et al. 2022's table 2 as written) from
megatron/training/theoretical_memory_usage.py at NVIDIA/Megatron-LM commit
d98e8a64ddf34856e74b24714e3bedb2f5a39553 (compute_weight_and_optimizer_memory and
compute_activation_memory).
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.estimate.campaign import campaign_estimate
from trainbudget.estimate.parallel import (
    Grid,
    Shape,
    activation_bytes,
    bubble_share,
    layout_of,
    state_bytes,
)
from trainbudget.plan import parse_plan


def megatron_params(a: SimpleNamespace) -> float:
    """num_total_parameters for a dense GPT (LayerNorm with bias, 4h MLP, tied embeddings)."""
    norm = 2
    attention = 2 * a.hidden_size * a.hidden_size * (1 + 1) * 1  # no GQA: 1 + groups/heads = 2
    mlp = 2 * a.hidden_size * a.ffn_hidden_size
    layer = attention + mlp + 2 * a.hidden_size * norm
    return layer * a.num_layers + norm * a.hidden_size + a.hidden_size * a.padded_vocab_size


def megatron_weight_and_optimizer(a: SimpleNamespace) -> float:
    """compute_weight_and_optimizer_memory, the dense path."""
    norm = 2
    attention = 2 * a.hidden_size * a.hidden_size * 2
    mlp = 2 * a.hidden_size * a.ffn_hidden_size
    layernorm = 2 * a.hidden_size * norm
    embedding = a.hidden_size * a.padded_vocab_size
    tp_sharded = (attention + mlp) * a.num_layers
    replicated = layernorm * a.num_layers + norm * a.hidden_size
    pp, tp = a.pipeline_model_parallel_size, a.tensor_model_parallel_size
    on_shard = (tp_sharded / pp + embedding) / tp + replicated / pp
    per_param = 18 if not a.use_distributed_optimizer else 6 + 12 / a.data_parallel_size
    return on_shard * per_param


def megatron_activations(a: SimpleNamespace, num_microbatches: int | None) -> float:
    """compute_activation_memory (sequence parallel, selective recompute)."""
    s, b, h = a.seq_length, a.micro_batch_size, a.hidden_size
    pp, tp = a.pipeline_model_parallel_size, a.tensor_model_parallel_size
    memory = (s * b * h) * (18 + (4 * (a.ffn_hidden_size / h))) * a.num_layers
    memory += 8 * s * b * pp
    memory += s * b * h * pp
    if a.virtual_pipeline_model_parallel_size is not None:
        memory *= 1 + ((pp - 1) / (pp * a.virtual_pipeline_model_parallel_size))
    if a.virtual_pipeline_model_parallel_size is None and pp > 1 and num_microbatches is not None:
        memory *= min(1, num_microbatches / pp)
    if pp == 1:
        memory += s * b * h * 4 * (1 + (a.padded_vocab_size / h))
    return memory / tp


# Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models"),
# table 3: GPT-3 175B (96 heads, h 12,288, 96 layers, t 8, p 8, 64 GPUs, batch 64) and
# MT-NLG 530B (128 heads, h 20,480, 105 layers, t 8, p 35, 280 GPUs, batch 280); s 2,048,
# vocabulary 51,200. Plus the 22B (t 8, p 1, 8 GPUs, batch 4) and an interleaved 175B (v 2).
CONFIGS = {
    "gpt3-175b": (96, 12288, 96, 8, 8, 64, 64, None),
    "mt-nlg-530b": (128, 20480, 105, 8, 35, 280, 280, None),
    "22b": (64, 6144, 48, 8, 1, 8, 4, None),
    "gpt3-175b-interleaved": (96, 12288, 96, 8, 8, 128, 64, 2),
}


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("distributed_optimizer", [False, True])
def test_memory_matches_megatron_lm_on_published_configurations(
    name: str, distributed_optimizer: bool
) -> None:
    heads, h, layers, tp, pp, gpus, batch, v = CONFIGS[name]
    dp = gpus // (tp * pp)
    args = SimpleNamespace(
        hidden_size=h,
        ffn_hidden_size=4 * h,
        num_layers=layers,
        padded_vocab_size=51200,
        seq_length=2048,
        micro_batch_size=1,
        tensor_model_parallel_size=tp,
        pipeline_model_parallel_size=pp,
        virtual_pipeline_model_parallel_size=v,
        data_parallel_size=dp,
        use_distributed_optimizer=distributed_optimizer,
    )
    microbatches = batch // dp
    shape = Shape(Fraction(int(megatron_params(args))), layers, h, 2048, 51200, heads, True)
    grid = Grid(
        gpus=gpus,
        global_batch=batch,
        tp=tp,
        pp=pp,
        virtual_stages=v or 1,
        sequence_parallel=True,
        recompute="selective",
        zero_stage=1 if distributed_optimizer else 0,
    )
    states = float(sum(state_bytes(shape, grid)))
    # Megatron keeps layer norms replicated across TP ranks; here they are sharded with the
    # rest: the whole difference is theirs, (1/p − 1/(p·t)) of them at 18 (or 6 + 12/dp) bytes.
    norms = 2 * h * 2 * layers + 2 * h
    per_param = 6 + 12 / dp if distributed_optimizer else 18
    missing = norms * (1 / pp - 1 / (pp * tp)) * per_param
    assert states + missing == pytest.approx(megatron_weight_and_optimizer(args), rel=1e-12)
    assert missing / states < 5e-4
    assert float(activation_bytes(shape, grid)) == pytest.approx(
        megatron_activations(args, microbatches), rel=1e-12
    )


def test_a_small_layout_by_hand() -> None:
    # N = 1.2e9 with V·h = 50,000 × 2,048 tied; t 2, p 2, 16 GPUs: dp 4; ZeRO 1.
    shape = Shape(Fraction(1_200_000_000), 24, 2048, 2048, 50_000, 16, True)
    grid = Grid(
        gpus=16,
        global_batch=64,
        tp=2,
        pp=2,
        micro_batch=2,
        sequence_parallel=False,
        recompute="selective",
        zero_stage=1,
    )
    embedding = 50_000 * 2048
    params = ((1_200_000_000 - embedding) / 2 + embedding) / 2  # first stage, tensor-split
    weights, gradients, optimizer = state_bytes(shape, grid)
    assert (weights, gradients) == (2 * params, 4 * params)
    assert optimizer == pytest.approx(12 * params / 4)
    # m = 64 / (2 × 4) = 8 micro-batches ≥ p: all of the first stage's in flight.
    sbh = 2048 * 2 * 2048
    layers = sbh * (10 + 24 / 2) * 24
    embed = (8 * 2048 * 2 + sbh) * 2
    assert float(activation_bytes(shape, grid)) == pytest.approx(layers + embed, rel=1e-15)
    assert bubble_share(2, 1, 8) == Fraction(1, 9)
    # Full recompute keeps only each layer's input: 2·sbh per layer.
    full = Grid(gpus=16, global_batch=64, tp=2, pp=2, micro_batch=2, recompute="full")
    assert float(activation_bytes(shape, full)) == pytest.approx(2 * sbh * 24 + embed)


def test_the_bubble_by_hand() -> None:
    # Narayanan et al. 2021: (p − 1)/m without interleaving; v stages divide the idle part.
    assert bubble_share(8, 1, 64) == Fraction(7, 71)
    assert bubble_share(8, 2, 64) == Fraction(Fraction(7, 2), 64 + Fraction(7, 2))
    assert bubble_share(1, 1, 3) == 0


def _plan(parallel: str, gpu: str = "H100-SXM") -> str:
    return (
        "campaign: t\nunit_of_progress: tokens\nprices: {gpu_hour_usd: 2}\n"
        "ceiling: {gpu_hours: 1e12}\n"
        f"main: {{gpu: {gpu}, gpus: 1024, params: 70e9, tokens: 2e12, mfu: 0.4,\n"
        "  flops: {n_layers: 80, d_model: 8192, seq_len: 4096, vocab: 128000, n_heads: 64,"
        " head_dim: 128},\n"
        f"  parallel: {parallel}}}\n"
        "reliability: {mtbf: fleet, checkpoint_write_minutes: 1}\n"
    )


def test_campaign_reports_the_bubble_and_whether_the_rank_fits() -> None:
    layout = (
        "{tp: 8, pp: 4, micro_batch: 1, global_batch: 1024, sequence_parallel: true, "
        "recompute: selective, zero_stage: 1}"
    )
    forecast = campaign_estimate(parse_plan(_plan(layout))).forecast
    assert float(forecast.layout.bubble_share) == pytest.approx(3 / (32 + 3))  # dp 32, m 32
    assert forecast.layout.fits is True
    tight = campaign_estimate(parse_plan(_plan("{tp: 1, pp: 1, global_batch: 1024}")))
    assert tight.forecast.layout.fits is False
    assert any("does not fit" in w for w in tight.warnings)


def test_a_layout_without_reliability_still_reports_the_bubble_and_the_rank() -> None:
    layout = "{tp: 8, pp: 4, micro_batch: 1, global_batch: 1024, recompute: selective}"
    text = _plan(layout).replace("reliability: {mtbf: fleet, checkpoint_write_minutes: 1}\n", "")
    result = campaign_estimate(parse_plan(text))
    assert result.forecast is None
    band_only = result.main_band
    # dp = 1024 / (8 · 4) = 32, m = 1024 / (1 · 32) = 32: (4 − 1) / (32 + 3).
    assert float(band_only["pipeline_bubble_share"]) == pytest.approx(3 / 35)
    assert band_only["memory_most_loaded_rank"]["fits"] is True
    tight = campaign_estimate(
        parse_plan(text.replace(layout, "{tp: 1, pp: 1, global_batch: 1024}"))
    )
    assert tight.main_band["memory_most_loaded_rank"]["fits"] is False
    assert any("does not fit" in w for w in tight.warnings)


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        ("{tp: 3, global_batch: 1024}", "not a multiple of tp × pp = 3"),
        ("{tp: 8, global_batch: 100}", "not a multiple of micro_batch × dp"),
        ("{pp: 1, virtual_stages: 2, global_batch: 1024}", "needs pp > 1"),
        ("{zero_stage: 4, global_batch: 1024}", "must be at most 3"),
    ],
)
def test_a_layout_that_cannot_be_is_refused(layout: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_plan(_plan(layout))


SHAPES = st.tuples(
    st.sampled_from([48, 64, 96, 128]),  # layers
    st.sampled_from([6144, 8192, 12288]),  # d_model
    st.sampled_from([2048, 4096]),  # seq_len
    st.sampled_from([1, 2]),  # micro_batch
    st.sampled_from(["none", "selective", "full"]),
    st.booleans(),  # sequence parallel
    st.integers(0, 3),  # ZeRO stage
)


def _memory(shape_args, tp: int, pp: int, ep: int, dp: int = 8) -> float:
    layers, h, s, b, recompute, sp, zero = shape_args
    n = Fraction(12 * layers * h * h + 128_000 * h)
    shape = Shape(
        n + 8 * Fraction(12 * layers * h * h),
        layers,
        h,
        s,
        128_000,
        h // 128,
        True,
        expert_params=8 * Fraction(12 * layers * h * h),
    )
    grid = Grid(
        gpus=tp * pp * dp,
        global_batch=dp * b * 16,
        tp=tp,
        pp=pp,
        ep=ep,
        micro_batch=b,
        sequence_parallel=sp,
        recompute=recompute,
        zero_stage=zero,
    )
    return layout_of(shape, grid, None).total


@settings(max_examples=60, deadline=None)
@given(SHAPES, st.sampled_from([1, 2, 4]), st.sampled_from([1, 2, 4]), st.sampled_from([1, 2, 4]))
def test_memory_per_rank_never_rises_when_tp_pp_or_ep_grow(shape_args, tp, pp, ep) -> None:
    here = _memory(shape_args, tp, pp, ep)
    assert _memory(shape_args, 2 * tp, pp, ep) <= here
    assert _memory(shape_args, tp, 2 * pp, ep) <= here
    assert _memory(shape_args, tp, pp, 2 * ep) <= here


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 64), st.integers(1, 8), st.integers(1, 512), st.integers(1, 4))
def test_more_gpus_never_lower_the_bubble_share_at_fixed_micro_batches(p, v, m, more) -> None:
    # More GPUs at fixed m: more data-parallel ranks (same share) or deeper pipelines (more).
    assert bubble_share(p, v, m) <= bubble_share(p * more, v, m)
    assert 0 <= bubble_share(p, v, m) < 1
    assert math.isclose(float(bubble_share(p, v, m)), ((p - 1) / v) / (m + (p - 1) / v))

"""Model shape in the FLOPs terms, phases that change hardware and recovery, and rollbacks."""

from __future__ import annotations

from fractions import Fraction

import pytest

from trainbudget.base.errors import InputError as PlanError
from trainbudget.estimate.campaign import campaign_estimate
from trainbudget.estimate.forecast_model import exact_sum
from trainbudget.plan import parse_plan

BASE = """\
campaign: t
unit_of_progress: tokens
prices: {gpu_hour_usd: 2}
ceiling: {gpu_hours: 1e12}
"""
REL = "reliability: {job_mtbf_hours: 1e9, checkpoint_write_minutes: 1}\n"


def _forecast(text: str):
    result = campaign_estimate(parse_plan(BASE + text))
    assert result.forecast is not None
    return result.forecast


def test_attention_counts_heads_times_head_dim_not_d_model() -> None:
    # PaLM 540B: 48 heads × 256 = 12,288 against d_model 18,432 (Chowdhery et al. 2022, table 1).
    shape = "n_layers: 118, d_model: 18432, seq_len: 2048"
    main = "main: {gpu: TPU-v4, gpus: 6144, params: 540.35e9, tokens: 780e9, mfu: 0.462, "
    wide = _forecast(main + f"flops: {{terms: [attention], {shape}}}}}\n" + REL)
    heads = _forecast(
        main + f"flops: {{terms: [attention], {shape}, n_heads: 48, head_dim: 256}}}}\n" + REL
    )
    per_token_wide = 6 * 540.35e9 + 12 * 118 * 18432 * 2048
    per_token_heads = 6 * 540.35e9 + 12 * 118 * 48 * 256 * 2048
    assert float(wide.phases[0].flops) == pytest.approx(per_token_wide * 780e9)
    assert float(heads.phases[0].flops) == pytest.approx(per_token_heads * 780e9)


def test_tied_embeddings_do_not_count_the_output_projection_twice() -> None:
    # BLOOM: 176.2B parameters hold the 250,880 × 14,336 embedding once, tied to the output.
    shape = "n_layers: 70, d_model: 14336, seq_len: 2048, vocab: 250880"
    main = (
        "main: {gpu: A100-80GB, gpus: 384, params: 176.2e9, tokens: 341e9, throughput_tflops: 150, "
    )
    terms = "terms: [recompute, attention, logits]"
    untied = _forecast(main + f"flops: {{{terms}, {shape}}}}}\n" + REL)
    tied = _forecast(main + f"flops: {{{terms}, {shape}, tied_embeddings: true}}}}\n" + REL)
    n, layers, h, s, v = 176.2e9, 70, 14336, 2048, 250880
    assert float(untied.phases[0].flops) == pytest.approx(
        (8 * n + 16 * layers * h * s + 6 * v * h) * 341e9
    )
    assert float(tied.phases[0].flops) == pytest.approx((8 * n + 16 * layers * h * s) * 341e9)
    assert "logits (in N: tied embeddings)" in tied.phases[0].flops_basis
    # The double count was 6·V·h ÷ (8N + 16lhs) ≈ 1.5 % of the compute.
    ratio = float(untied.compute_gpu_hours / tied.compute_gpu_hours) - 1
    assert ratio == pytest.approx(6 * v * h / (8 * n + 16 * layers * h * s), rel=1e-9)


def test_a_phase_changes_accelerator_precision_spares_and_recovery() -> None:
    text = (
        "main: {gpu: TPU-v3, gpus: 1024, params: 1e9, tokens: 2e9, mfu: 0.5,\n"
        "  phases: [{tokens: 1e9}, {tokens: 1e9, gpu: TPU-v4, spare_gpus: 8, restart_minutes: 30,"
        " checkpoint_write_minutes: 4}]}\n"
        "reliability: {job_mtbf_hours: 100, restart_minutes: 10, checkpoint_write_minutes: 2,"
        " checkpoint_interval_minutes: 60}\n"
    )
    forecast = _forecast(text)
    v3, v4 = forecast.phases
    # 6·N·T ÷ (peak × MFU): 123 TFLOP/s per v3 chip, 275 per v4 chip.
    v3_hours, v4_hours = (
        Fraction(6 * 10**18, 123 * 10**12 // 2 * 3600),
        Fraction(6 * 10**18, 275 * 10**12 // 2 * 3600),
    )
    assert abs(Fraction(v3.overhead.compute_gpu_hours) - v3_hours) < Fraction(1, 10**40)
    assert abs(Fraction(v4.overhead.compute_gpu_hours) - v4_hours) < Fraction(1, 10**40)
    assert (v3.overhead.spare_gpus, v4.overhead.spare_gpus) == (0, 8)
    minutes = [60 * float(h) for h in (v3.overhead.restart_hours, v4.overhead.restart_hours)]
    assert minutes == pytest.approx([10, 30])
    assert 60 * float(v4.overhead.write_hours) == pytest.approx(4)
    assert 60 * float(v3.overhead.write_hours) == pytest.approx(2)


def test_rollbacks_are_their_own_line_and_the_lines_still_sum() -> None:
    text = (
        "main: {gpu: A100-80GB, gpus: 992, params: 175e9, tokens: 300e9, mfu: 0.35}\n"
        "reliability: {spare_gpus: 8, mtbf: fleet, restart_minutes: 60, "
        "checkpoint_write_minutes: 5, rollbacks: {count: 3, lost_hours: 20}}\n"
    )
    forecast = _forecast(text)
    assert forecast.overhead_gpu_hours["rollbacks"] == 3 * 20 * (992 + 8)
    total = exact_sum([forecast.compute_gpu_hours, *forecast.overhead_gpu_hours.values()])
    assert total == forecast.main_gpu_hours
    plain = _forecast(text.replace(", rollbacks: {count: 3, lost_hours: 20}", ""))
    assert Fraction(forecast.main_wall_hours) - Fraction(plain.main_wall_hours) == 60
    assert "rollbacks" not in plain.overhead_gpu_hours


def test_the_fleet_prior_on_a_tpu_says_it_is_a_gpu_prior() -> None:
    text = "main: {gpu: TPU-v4, gpus: 6144, params: 540e9, tokens: 780e9, mfu: 0.46}\n"
    forecast = _forecast(text + "reliability: {mtbf: fleet, checkpoint_write_minutes: 2}\n")
    assert any("fleet is a GPU prior" in w and "TPU-v4" in w for w in forecast.warnings)


@pytest.mark.parametrize(
    ("flops", "message"),
    [
        ("{n_heads: 48}", "give n_heads and head_dim together"),
        ("{n_heads: 48, head_dim: 128, n_kv_heads: 5}", "n_kv_heads: 5 does not divide"),
        ("{tied_embeddings: maybe}", "tied_embeddings"),
    ],
)
def test_a_bad_shape_is_refused_with_its_key(flops: str, message: str) -> None:
    text = BASE + f"main: {{gpu: A100-80GB, gpus: 8, params: 1e9, tokens: 1e9, flops: {flops}}}\n"
    with pytest.raises(PlanError, match=message):
        parse_plan(text)


@pytest.mark.parametrize("reliability", ["", REL])
def test_a_pilot_mfu_on_model_flops_prices_the_same_work_on_a_wider_basis(
    reliability: str,
) -> None:
    """pilot/mfu.py measures MFU on 6·N·T: with recompute counted in the plan's basis, the run
    takes as long as the pilot says, so the compute is 6·N·T ÷ (peak × MFU) either way."""
    main = "main: {gpu: A100-80GB, gpus: 64, params: 7e9, tokens: 1e11, "
    narrow = parse_plan(BASE + main + "}\n" + reliability)
    wide = parse_plan(BASE + main + "flops: {terms: [recompute]}}\n" + reliability)
    # 6·N·T at MFU 0.4 of A100 BF16's 312 TFLOP/s (datasheet), in GPU-hours.
    expected = Fraction(6 * 7 * 10**9 * 10**11) / (312 * 10**12 * Fraction(4, 10)) / 3600
    for plan in (narrow, wide):
        result = campaign_estimate(plan, mfu=Fraction(4, 10), mfu_source="pilot")
        compute = (
            result.forecast.compute_gpu_hours
            if result.forecast is not None
            else next(line.gpu_hours for line in result.lines if line.work_class == "main")
        )
        assert Fraction(compute) == pytest.approx(expected, rel=1e-12)

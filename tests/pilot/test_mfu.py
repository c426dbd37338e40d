"""Measured MFU = 6·N·tokens / (seconds · GPUs · peak), checked against seed 004's example."""

from __future__ import annotations

from decimal import Decimal

from trainbudget.pilot.mfu import mfu_from_throughput, mixed_tokens_per_gpu_second, step_mfu
from trainbudget.pilot.stats import BucketStats, Shape

D = Decimal
N = D("7e9")  # seed 004: a 7B model on A100s at 312 TFLOP/s, MFU 0.4
A100_PEAK = D("312e12")


def test_step_mfu_matches_the_formula_by_hand() -> None:
    # 8 GPUs, 2 s per step, 4,000,000 tokens per step:
    # 6 * 7e9 * 4e6 / (2 * 8 * 3.12e14) = 1.68e17 / 4.992e15
    assert step_mfu(N, D(4_000_000), D(2), 8, A100_PEAK) == D("1.68e17") / D("4.992e15")


def test_a_pilot_at_seed_004_throughput_gives_its_mfu_and_wall_time() -> None:
    # At MFU 0.4 a GPU turns 0.4 * 3.12e14 / (6 * 7e9) tokens per second.
    per_gpu = D("0.4") * A100_PEAK / (6 * N)
    assert mfu_from_throughput(per_gpu, N, A100_PEAK) == D("0.4")
    # Seed README: 1e11 tokens on 8 such GPUs take 4.2e21 / (8 * 3.12e14 * 0.4) s ≈ 48.7 days.
    wall_seconds = D("1e11") / (8 * per_gpu)
    assert abs(wall_seconds - D("4.2e21") / (8 * A100_PEAK * D("0.4"))) < D("1e-12")
    assert round(wall_seconds / 86400, 1) == D("48.7")


def bucket(seq_len: int, tokens_per_gpu_second: Decimal) -> BucketStats:
    one = D(1)
    return BucketStats(
        Shape(seq_len, 1, 1), 1, 1, 1, one, one, one, one, one, tokens_per_gpu_second, None
    )


def test_mixed_throughput_adds_gpu_seconds_per_token() -> None:
    fast, slow = bucket(2048, D(1000)), bucket(8192, D(250))
    weights = {fast.shape: D("0.9"), slow.shape: D("0.1")}
    # A million tokens: 900,000 at 1000/s = 900 s, 100,000 at 250/s = 400 s.
    expected = D(1_000_000) / D(1300)
    assert mixed_tokens_per_gpu_second([fast, slow], weights) == expected
    assert mixed_tokens_per_gpu_second([fast], {fast.shape: D(1)}) == D(1000)

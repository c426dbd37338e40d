"""The throughput prior: the published points' own arithmetic, and the rule recomputed here."""

from __future__ import annotations

import math
import tomllib
from datetime import date
from pathlib import Path

import pytest

from trainbudget.base.errors import InputError
from trainbudget.estimate.throughput_prior import (
    RUNS_FILE,
    published_runs,
    throughput_prior,
)

Z90 = 1.2815515655446004
# The dense 16-bit MFUs as their sources publish them (or their derivation's result).
DENSE = {
    "gpt3-175b": 0.213, "megatron-1t": 0.392, "gopher-280b": 0.325, "mt-nlg-530b": 0.302,
    "palm-540b": 0.462, "opt-175b": 0.345, "glm-130b": 0.325, "bloom-176b": 0.352,
    "llama-65b": 0.476, "mpt-7b": 0.501, "megascale-175b": 0.552, "nemotron-4-340b": 0.41,
    "llama3.1-405b": 0.404,
}  # fmt: skip
# MoE: DeepSeek-V2 (16-bit), DeepSeek-V3 and Llama 4 Behemoth (fp8).
MOE = {"deepseek-v2": (0.205, "16-bit"), "deepseek-v3": (0.173, "fp8"),
       "llama4-behemoth": (0.197, "fp8")}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "arithmetic"),
    [
        ("llama-65b", 6 * 65.2e9 * 380 / 312e12),  # LLaMA sec. 2.4: 380 tokens/s/GPU
        ("megatron-1t", 163 / 312 * 6 / 8),  # 163 TFLOP/s with full recompute
        ("opt-175b", 147 / 312 * 6 / (4.30e23 / (175e9 * 300e9))),
        ("bloom-176b", 6 * 176.2e9 / (8 * 176.2e9 + 16 * 70 * 14336 * 2048) * 150 / 312),
        ("deepseek-v2", 6 * 21e9 * 1e12 / (172_800 * 3600 * 989.4e12)),
        ("deepseek-v3", 6 * 37e9 * 1e12 / (180_000 * 3600) / 1978.9e12),
        ("llama3.1-405b", 400 / 989.4),
        ("llama4-behemoth", 390 / 1978.9),
    ],
)
def test_a_derived_point_is_its_sources_arithmetic(name: str, arithmetic: float) -> None:
    point = next(r for r in published_runs() if r.name == name)
    assert point.mfu == pytest.approx(arithmetic, abs=0.0006)


def test_every_point_has_a_source_kind_group_and_date() -> None:
    with RUNS_FILE.open("rb") as handle:
        rows = tomllib.load(handle)["run"]
    assert {r["name"] for r in rows} == set(DENSE) | set(MOE)
    for row in rows:
        assert row["source"] and row["kind"] in ("dense", "moe")
        assert row["group"] in ("16-bit", "fp8") and isinstance(row["published"], date)
        assert 0 < row["mfu"] < 1 and row["hardware"] and row["year"] >= 2020


def _pooled_sigma(points: dict[str, list[float]]) -> float:
    squares = sum((x - sum(xs) / len(xs)) ** 2 for xs in points.values() for x in xs)
    return math.sqrt(squares / (sum(len(xs) for xs in points.values()) - len(points)))


def test_the_dense_prior_is_the_log_normal_of_the_dense_points() -> None:
    logs = [math.log(v) for v in DENSE.values()]
    mu = sum(logs) / len(logs)
    moe_16 = [math.log(v if g == "16-bit" else v / 0.7) for v, g in MOE.values()]
    sigma = _pooled_sigma({"dense": logs, "moe": moe_16})
    prior = throughput_prior("dense", "bf16")
    assert prior.mu == pytest.approx(mu) and prior.sigma == pytest.approx(sigma)
    assert float(prior.median) == pytest.approx(math.exp(mu), rel=1e-3)
    assert prior.quantile(-Z90) < float(prior.median) < prior.quantile(Z90)
    assert len(prior.points) == 13


def test_an_fp8_moe_prior_moves_16_bit_points_by_the_fp8_factor() -> None:
    logs = [math.log(v * 0.7 if g == "16-bit" else v) for v, g in MOE.values()]
    prior = throughput_prior("moe", "fp8")
    assert prior.mu == pytest.approx(sum(logs) / 3)


def test_a_strictly_pre_launch_prior_keeps_only_earlier_points_and_not_its_own() -> None:
    prior = throughput_prior("moe", "fp8", before=date(2024, 12, 1), exclude=("deepseek-v3",))
    assert prior.points == ("deepseek-v2",)
    assert prior.mu == pytest.approx(math.log(0.205 * 0.7))
    early = throughput_prior("dense", "fp16", before=date(2021, 11, 11), exclude=("opt-175b",))
    assert early.points == ("megatron-1t",) and "full data's" in early.note
    with pytest.raises(InputError, match="no published moe run published before 2020-01-01"):
        throughput_prior("moe", "bf16", before=date(2020, 1, 1))


def test_the_data_file_is_cheap_to_read() -> None:
    assert Path(RUNS_FILE).stat().st_size < 20_000

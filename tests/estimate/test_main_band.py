"""Every plan's `campaign --json` carries the main line's throughput source and band."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.estimate.campaign import campaign_estimate
from trainbudget.estimate.campaign_payload import campaign_payload
from trainbudget.plan import parse_plan

BASE = """
campaign: c
unit_of_progress: tokens
prices: {gpu_hour_usd: 2}
ceiling: {gpu_hours: 100000}
main: {MAIN}
"""
Z90 = 1.2815515655446004  # Φ⁻¹(0.9)


def _forecast(main: str) -> dict:
    return campaign_payload(campaign_estimate(parse_plan(BASE.replace("{MAIN}", main))))["forecast"]


def _gpu_hours(params: float, tokens: float, gpus: int, mfu: float) -> float:
    """6·N·T at mfu × A100 BF16's 312 TFLOP/s (datasheet), as GPU-hours."""
    return 6 * params * tokens / (312e12 * mfu) / 3600


def test_a_main_line_given_in_hours_says_no_throughput_is_involved() -> None:
    forecast = _forecast("{gpus: 8, hours: 10}")
    assert forecast["throughput_source"] == "plan"
    assert forecast["main_gpu_hours_band"] == {"p10": 80, "p50": 80, "p90": 80}
    assert forecast["band_detail"]["method"].startswith("none: the plan gives")


def test_a_plan_throughput_gets_the_measured_spread() -> None:
    forecast = _forecast("{gpus: 8, gpu: A100-80GB, params: 1e9, tokens: 2e10, mfu: 0.5}")
    point = _gpu_hours(1e9, 2e10, 8, 0.5)
    # A measured throughput is ×/÷ √1.3 at p10/p90: p90/p10 = 1.3.
    band = forecast["main_gpu_hours_band"]
    assert forecast["throughput_source"] == "plan"
    assert float(band["p50"]) == pytest.approx(point, rel=1e-12)
    assert float(band["p10"]) == pytest.approx(point / math.sqrt(1.3), rel=1e-12)
    assert float(band["p90"]) == pytest.approx(point * math.sqrt(1.3), rel=1e-12)


def _pooled_sigma() -> float:
    import tomllib
    from pathlib import Path

    import trainbudget.estimate as pkg

    runs = tomllib.loads((Path(pkg.__file__).parent / "published_runs.toml").read_text())["run"]
    # The pooled σ of ln MFU about each kind's mean, fp8 points moved to 16-bit (÷ 0.7).
    by_kind: dict[str, list[float]] = {}
    for r in runs:
        by_kind.setdefault(r["kind"], []).append(
            math.log(r["mfu"] if r["group"] == "16-bit" else r["mfu"] / 0.7)
        )
    squares = sum((x - sum(xs) / len(xs)) ** 2 for xs in by_kind.values() for x in xs)
    return math.sqrt(squares / (sum(map(len, by_kind.values())) - len(by_kind)))


def test_no_throughput_is_priced_at_the_prior_with_its_spread(dense_prior_mfu: Decimal) -> None:
    sigma = _pooled_sigma()
    forecast = _forecast("{gpus: 8, gpu: A100-80GB, params: 1e9, tokens: 2e10}")
    point = _gpu_hours(1e9, 2e10, 8, float(dense_prior_mfu))  # the dense prior's median
    band = forecast["main_gpu_hours_band"]
    assert forecast["throughput_source"] == "prior"
    assert float(forecast["main_gpu_hours"]) == pytest.approx(point, rel=1e-12)
    assert float(band["p50"]) == pytest.approx(point, rel=1e-12)
    assert float(band["p10"]) == pytest.approx(point * math.exp(-Z90 * sigma), rel=1e-9)
    assert float(band["p90"]) == pytest.approx(point * math.exp(Z90 * sigma), rel=1e-9)
    assert band["p10"] <= band["p50"] <= band["p90"]
    assert all(isinstance(v, Decimal) for v in band.values())
    assert float(forecast["band_detail"]["throughput_sigma"]) == pytest.approx(sigma, rel=1e-12)
    assert "published dense run" in forecast["throughput_prior"]


def test_the_prior_band_is_wider_than_a_measured_one() -> None:
    prior = _forecast("{gpus: 8, gpu: A100-80GB, params: 1e9, tokens: 2e10}")
    measured = _forecast("{gpus: 8, gpu: A100-80GB, params: 1e9, tokens: 2e10, mfu: 0.3784}")
    assert prior["main_gpu_hours"] == measured["main_gpu_hours"]
    width = {k: f["main_gpu_hours_band"]["p90"] / f["main_gpu_hours_band"]["p10"]
             for k, f in (("prior", prior), ("measured", measured))}  # fmt: skip
    assert width["prior"] > width["measured"]
    assert float(width["measured"]) == pytest.approx(1.3, rel=1e-12)


def test_without_reliability_the_mtbf_is_the_fleet_prior_labelled_as_not_priced() -> None:
    forecast = _forecast("{gpus: 1024, gpu: A100-80GB, params: 1e9, tokens: 2e10}")
    # Kokolis et al. 2024: 7.9 h for a 1,024-GPU job.
    assert forecast["mtbf_source"] == "fleet" and forecast["mtbf_hours"] == Decimal("7.9")
    assert "no failure overhead is in the main line" in forecast["mtbf_note"]


def test_the_main_line_shows_the_band_beside_its_figure() -> None:
    main = "{gpus: 8, gpu: A100-80GB, params: 1e9, tokens: 2e10}"
    plan = parse_plan(BASE.replace("{MAIN}", main))
    result = campaign_estimate(plan)
    (main,) = [line for line in result.lines if line.work_class == "main"]
    band = result.main_band["main_gpu_hours_band"]
    low, high = f"{float(band['p10']):,.0f}", f"{float(band['p90']):,.0f}"
    assert f"band p10–p90 {low}–{high} GPU-h (throughput prior; moved most by the throughput)" in (
        main.detail
    )


@settings(max_examples=40, deadline=None)
@given(
    params=st.integers(min_value=10**8, max_value=10**12),
    tokens=st.integers(min_value=10**9, max_value=10**13),
    gpus=st.integers(min_value=1, max_value=16384),
    mfu=st.one_of(st.none(), st.decimals(min_value="0.05", max_value="0.7", places=3)),
)
def test_the_band_is_ordered_holds_the_figure_and_is_wider_at_the_prior(
    params: int, tokens: int, gpus: int, mfu: Decimal | None
) -> None:
    rate = "" if mfu is None else f", mfu: {mfu}"
    main = f"{{gpus: {gpus}, gpu: A100-80GB, params: {params}, tokens: {tokens}{rate}}}"
    forecast = _forecast(main)
    band = forecast["main_gpu_hours_band"]
    assert band["p10"] < band["p50"] == forecast["main_gpu_hours"] < band["p90"]
    width = float(band["p90"] / band["p10"])
    # p90/p10 = e^(2·1.2816·σ): 1.3 measured; the prior's pooled σ (about 0.242: 1.86).
    expected = 1.3 if mfu is not None else math.exp(2 * Z90 * _pooled_sigma())
    assert width == pytest.approx(expected, rel=1e-9)
    assert forecast["throughput_source"] == ("plan" if mfu is not None else "prior")


FLEET = "reliability: {mtbf: fleet, checkpoint_write_minutes: 1}\n"


@pytest.mark.parametrize("reliability", ["", FLEET])
def test_the_prior_prices_model_flops_whatever_the_plan_counts(
    reliability: str, dense_prior_mfu: Decimal
) -> None:
    # BLOOM's shape with every FLOPs term: the prior is an MFU on 6·N·T, so the compute is
    # 6·N·T ÷ (peak · prior MFU) however many terms the plan's throughput would count.
    main = (
        "{gpus: 384, gpu: A100-80GB, params: 176.247e9, tokens: 341e9,\n"
        "  flops: {terms: [recompute, attention, logits], n_layers: 70, d_model: 14336,\n"
        "          seq_len: 2048, vocab: 250880, n_heads: 112, head_dim: 128,\n"
        "          tied_embeddings: true}}\n"
    )
    result = campaign_estimate(parse_plan(BASE.replace("{MAIN}", main) + reliability))
    expected = 6 * 176.247e9 * 341e9 / (312e12 * float(dense_prior_mfu)) / 3600
    compute = result.forecast.compute_gpu_hours if reliability else result.main.gpu_hours
    assert float(compute) == pytest.approx(expected, rel=1e-12)
    assert float(result.main.gpu_hours) == pytest.approx(expected, rel=1e-12)
    assert result.main.mfu_source == "prior"


RELIABILITY = """
reliability: {job_mtbf_hours: 500, restart_minutes: 10, checkpoint_write_minutes: 2}
"""


@pytest.mark.parametrize("reliability", ["", RELIABILITY])
def test_a_kind_no_published_run_covers_is_priced_at_a_prior_named_as_the_class_default(
    reliability: str,
) -> None:
    """cnn has no published run: its MFU is seed 004's class default, still an assumption made
    before launch, so DESIGN's throughput_source says `prior` and the note names the default."""
    main = "{gpus: 8, gpu: A100-80GB, params: 1e9, tokens: 1e10, model_class: cnn}"
    text = BASE.replace("{MAIN}", main) + reliability
    payload = campaign_payload(campaign_estimate(parse_plan(text)))
    forecast = payload["forecast"]
    assert forecast["throughput_source"] == "prior"
    assert "class-default" in forecast["throughput_prior"]
    assert "no published cnn run" in forecast["throughput_prior"]
    # Seed 004: MFU 0.1-0.2 for CNN-heavy models; its middle, 0.15, prices the compute.
    compute = _gpu_hours(1e9, 1e10, 8, 0.15)
    main_line = next(line for line in payload["lines"] if line["work_class"] == "main")
    assert math.isclose(float(forecast.get("compute_gpu_hours", main_line["gpu_hours"])), compute)
    band = forecast["main_gpu_hours_band"]
    assert band["p10"] < band["p50"] < band["p90"]

"""Every plan's `campaign --json` carries the main line's throughput source and band."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

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
    assert forecast["throughput_source"] == "hours"
    assert forecast["main_gpu_hours_band"] == {"p10": 80, "p50": 80, "p90": 80}


def test_a_plan_throughput_gets_the_measured_spread() -> None:
    forecast = _forecast("{gpus: 8, gpu: A100-80GB, params: 1e9, tokens: 2e10, mfu: 0.5}")
    point = _gpu_hours(1e9, 2e10, 8, 0.5)
    # A measured throughput is ×/÷ √1.3 at p10/p90: p90/p10 = 1.3.
    band = forecast["main_gpu_hours_band"]
    assert forecast["throughput_source"] == "plan"
    assert float(band["p50"]) == pytest.approx(point, abs=0.05)
    assert float(band["p10"]) == pytest.approx(point / math.sqrt(1.3), abs=0.05)
    assert float(band["p90"]) == pytest.approx(point * math.sqrt(1.3), abs=0.05)


def test_a_class_default_mfu_gets_the_priors_spread() -> None:
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
    sigma = math.sqrt(squares / (sum(map(len, by_kind.values())) - len(by_kind)))
    forecast = _forecast("{gpus: 8, gpu: A100-80GB, params: 1e9, tokens: 2e10}")
    point = _gpu_hours(1e9, 2e10, 8, 0.4)  # the dense class default
    band = forecast["main_gpu_hours_band"]
    assert forecast["throughput_source"] == "class-default"
    assert float(band["p10"]) == pytest.approx(point * math.exp(-Z90 * sigma), abs=0.05)
    assert float(band["p90"]) == pytest.approx(point * math.exp(Z90 * sigma), abs=0.05)
    assert band["p10"] <= band["p50"] <= band["p90"]
    assert isinstance(band["p50"], Decimal)

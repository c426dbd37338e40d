"""The GPU-hours band: ordered, holds the point figure, narrows with a measured throughput,
and matches the throughput's log-normal alone when failures are negligible."""

from __future__ import annotations

import math
from decimal import Decimal
from statistics import NormalDist

from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.estimate.campaign import campaign_estimate
from trainbudget.estimate.forecast_band import MEASURED_SIGMA
from trainbudget.estimate.throughput_prior import throughput_prior
from trainbudget.plan import parse_plan

BASE = """\
campaign: t
unit_of_progress: tokens
prices: {gpu_hour_usd: 2}
ceiling: {gpu_hours: 1e12}
"""


def _plan(rate: str, *, gpus: int = 1024, mtbf: str = "mtbf: fleet", spares: int = 0) -> str:
    return BASE + (
        f"main: {{gpu: H100-SXM, gpus: {gpus}, params: 70e9, tokens: 2e12{rate}}}\n"
        f"reliability: {{spare_gpus: {spares}, {mtbf}, restart_minutes: 10, "
        "checkpoint_write_minutes: 2}\n"
    )


def _forecast(text: str):
    result = campaign_estimate(parse_plan(text))
    assert result.forecast is not None
    return result.forecast


def test_a_plan_without_throughput_is_priced_at_the_prior_median() -> None:
    forecast = _forecast(_plan(""))
    prior = throughput_prior("dense", "bf16")
    assert forecast.throughput_source == "prior"
    phase = forecast.phases[0]
    assert phase.mfu == prior.median and "prior" in phase.rate_source
    # 6·N·T at peak × median: the compute line, by hand.
    hours = Decimal(6 * 70 * 2) * Decimal(10) ** 21 / (Decimal("989.4e12") * prior.median) / 3600
    assert abs(forecast.compute_gpu_hours - hours) < Decimal("1e-6")


def test_the_band_is_the_throughput_log_normal_when_failures_are_negligible() -> None:
    # A job MTBF of 10⁹ h: the MTBF's spread moves nothing, the band is K·e^(∓z·σ).
    forecast = _forecast(_plan("", mtbf="job_mtbf_hours: 1e9"))
    sigma = throughput_prior("dense", "bf16").sigma
    point = float(forecast.main_gpu_hours)
    z = NormalDist().inv_cdf(0.9)
    band = forecast.band
    assert math.isclose(float(band.p10), point * math.exp(-z * sigma), rel_tol=1e-4)
    assert math.isclose(float(band.p90), point * math.exp(z * sigma), rel_tol=1e-4)
    assert math.isclose(float(band.p50), point, rel_tol=1e-4)
    assert band.moved_most_by.startswith("throughput (prior")


def test_a_measured_throughput_narrows_the_band_but_never_removes_it() -> None:
    prior = _forecast(_plan("")).band
    measured = _forecast(_plan(", mfu: 0.378")).band
    assert measured is not None and measured.throughput_sigma == MEASURED_SIGMA
    assert measured.p90 / measured.p10 < prior.p90 / prior.p10


def test_the_band_is_deterministic() -> None:
    assert _forecast(_plan("")).band == _forecast(_plan("")).band


@settings(max_examples=25, deadline=None)
@given(
    gpus=st.sampled_from([64, 512, 4096, 16384]),
    mfu=st.one_of(st.none(), st.sampled_from(["0.2", "0.35", "0.5"])),
    mtbf=st.sampled_from(["mtbf: fleet", "job_mtbf_hours: 3", "job_mtbf_hours: 200"]),
    spares=st.integers(0, 64),
)
def test_the_band_is_ordered_and_holds_the_point_figure(gpus, mfu, mtbf, spares) -> None:
    rate = "" if mfu is None else f", mfu: {mfu}"
    forecast = _forecast(_plan(rate, gpus=gpus, mtbf=mtbf, spares=spares))
    band = forecast.band
    assert band.p10 <= band.p50 <= band.p90
    # The band's numbers are rounded to 0.1 GPU-hour.
    assert band.p10 - Decimal("0.1") <= forecast.main_gpu_hours <= band.p90 + Decimal("0.1")

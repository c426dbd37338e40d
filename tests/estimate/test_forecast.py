"""The main-run forecast: lines sum to the total, an independent small case, fleet points,
monotonicity, the forecast f replacing the retry line, and Llama 3.1 405B against its actual."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.estimate.campaign import campaign_estimate
from trainbudget.estimate.forecast import forecast_main, resolve_mtbf
from trainbudget.estimate.forecast_model import OVERHEAD_LINES, phase_overhead
from trainbudget.estimate.mtbf import FLEET_PRIOR, MtbfCurve
from trainbudget.plan import load_plan, parse_plan

REPO_ROOT = Path(__file__).resolve().parents[2]
LLAMA_PLAN = REPO_ROOT / "examples" / "published" / "llama3.1-405b.plan.yaml"
BASE = """\
campaign: t
unit_of_progress: tokens
prices: {gpu_hour_usd: 2.40}
ceiling: {gpu_hours: 100000000}
"""
# DESIGN.md's example: a 176B model on 384 A100s, in two phases, 32 hot spares.
DESIGN_PLAN = (REPO_ROOT / "tests" / "fixtures" / "plans" / "design-176b.plan.yaml").read_text(
    encoding="utf-8"
)


def _sum(*values: Decimal) -> Fraction:
    return sum((Fraction(v) for v in values), Fraction(0))


def _forecast(text: str, ledger_mtbf: MtbfCurve | None = None):
    result = campaign_estimate(parse_plan(text), ledger_mtbf=ledger_mtbf)
    assert result.forecast is not None
    return result, result.forecast


def test_lines_sum_exactly_to_the_main_gpu_hours() -> None:
    _, f = _forecast(DESIGN_PLAN)
    assert _sum(f.compute_gpu_hours, *f.overhead_gpu_hours.values()) == Fraction(f.main_gpu_hours)
    for phase in f.phases:
        o = phase.overhead
        assert _sum(o.compute_gpu_hours, *o.overhead_gpu_hours.values()) == Fraction(
            o.main_gpu_hours
        )
    assert f.ettr == pytest.approx(f.compute_gpu_hours / f.main_gpu_hours, rel=Decimal("1e-40"))
    assert 0 < f.ettr <= 1


def test_small_plan_against_an_independent_calculation() -> None:
    # 8 GPUs training for 100 h, 1 spare, job MTBF 24 h, 5 min writes, 10 min restarts.
    _, f = _forecast(
        BASE + "main: {gpus: 8, hours: 100}\n"
        "reliability: {spare_gpus: 1, job_mtbf_hours: 24, restart_minutes: 10,"
        " checkpoint_write_minutes: 5}\n"
    )
    m, delta, r, ts = 24.0, 5 / 60, 10 / 60, 100.0
    tau = math.sqrt(2 * delta * m) * (1 + math.sqrt(delta / (2 * m)) / 3 + delta / (18 * m)) - delta
    wall = m * math.exp(r / m) * (math.exp((tau + delta) / m) - 1) * ts / tau  # Daly 2006
    assert float(f.checkpoint_interval_minutes) == pytest.approx(tau * 60, rel=1e-12)
    assert round(float(f.checkpoint_interval_minutes), 2) == 116.69  # Daly's published M = 24 h
    assert float(f.main_wall_hours) == pytest.approx(wall, rel=1e-12)
    assert float(f.main_gpu_hours) == pytest.approx(9 * wall, rel=1e-12)
    assert f.compute_gpu_hours == 800
    assert f.overhead_gpu_hours["spares"] == 100
    assert float(f.overhead_gpu_hours["checkpoint_writes"]) == pytest.approx(
        9 * ts / tau * delta, rel=1e-12
    )
    assert float(f.interruptions) == pytest.approx(wall / m, rel=1e-12)
    assert f.mtbf_source == "plan" and f.mtbf_hours == 24


def test_throughput_on_the_stated_basis_gives_the_compute() -> None:
    _, f = _forecast(DESIGN_PLAN)
    per_token = 8 * 176 * 10**9 + 16 * 70 * 14336 * 2048 + 6 * 250880 * 14336
    expected = Fraction(per_token * 366 * 10**9, 150 * 10**12 * 3600)
    assert abs(Fraction(f.compute_gpu_hours) - expected) < Fraction(1, 10**30)
    assert {p.overhead.gpus for p in f.phases} == {192, 384}
    assert f.phases[0].flops_basis == "hardware FLOPs: 6·N·T + recompute + attention + logits"


@pytest.mark.parametrize(("gpus", "published_hours"), [(1024, Decimal("7.9")), (16384, 1.8)])
def test_kokolis_fleet_points_through_the_forecast(gpus: int, published_hours) -> None:
    _, f = _forecast(
        BASE + f"main: {{gpus: {gpus}, hours: 100}}\n"
        "reliability: {mtbf: fleet, restart_minutes: 10, checkpoint_write_minutes: 1}\n"
    )
    assert f.mtbf_source == "fleet" and "Kokolis" in f.mtbf_note and "prior" in f.mtbf_note
    assert float(f.mtbf_hours) == pytest.approx(float(published_hours), rel=1e-30)
    assert float(f.interruptions) == pytest.approx(float(f.main_wall_hours) / float(f.mtbf_hours))


def test_plan_mtbf_scales_with_the_fleet_exponent_for_other_gpu_counts() -> None:
    result, f = _forecast(DESIGN_PLAN)
    small = f.phases[0].overhead.mtbf_hours
    assert float(small) == pytest.approx(112 * 0.5 ** float(FLEET_PRIOR.exponent), rel=1e-20)
    assert f.phases[1].overhead.mtbf_hours == 112
    assert any("fleet exponent" in w for w in result.warnings)


phase_inputs = st.fixed_dictionaries(
    {
        "compute_wall_hours": st.decimals(min_value=1, max_value=10**5, places=2),
        "gpus": st.integers(min_value=1, max_value=50_000),
        "spare_gpus": st.integers(min_value=0, max_value=5_000),
        "mtbf_hours": st.decimals(min_value=Decimal("0.5"), max_value=10**4, places=2),
        "write_hours": st.decimals(min_value=0, max_value=Decimal("0.5"), places=3),
        "restart_hours": st.decimals(min_value=0, max_value=2, places=3),
        "interval_hours": st.decimals(min_value=Decimal("0.05"), max_value=24, places=3),
    }
)


@settings(max_examples=60, deadline=None)
@given(phase_inputs)
def test_lines_always_sum_and_are_non_negative(inputs: dict) -> None:
    o = phase_overhead(**inputs)
    assert _sum(o.compute_gpu_hours, *o.overhead_gpu_hours.values()) == Fraction(o.main_gpu_hours)
    assert all(o.overhead_gpu_hours[k] >= 0 for k in OVERHEAD_LINES)
    assert 0 < o.ettr <= 1


@settings(max_examples=60, deadline=None)
@given(phase_inputs, st.decimals(min_value=Decimal("1.01"), max_value=10, places=2))
def test_more_mtbf_means_less_overhead(inputs: dict, factor: Decimal) -> None:
    base = phase_overhead(**inputs)
    better = phase_overhead(**{**inputs, "mtbf_hours": inputs["mtbf_hours"] * factor})
    lost = ("lost_progress", "restarts")
    assert sum(better.overhead_gpu_hours[k] for k in lost) < sum(
        base.overhead_gpu_hours[k] for k in lost
    )
    assert better.main_gpu_hours < base.main_gpu_hours


@settings(max_examples=30, deadline=None)
@given(
    mtbf=st.integers(min_value=2, max_value=500),
    factor=st.integers(min_value=2, max_value=10),
    spares=st.integers(min_value=0, max_value=64),
    more=st.integers(min_value=1, max_value=64),
)
def test_plan_monotonicity_mtbf_and_spares(mtbf: int, factor: int, spares: int, more: int) -> None:
    def plan(m: int, s: int) -> str:
        return (
            BASE + "main: {gpus: 64, hours: 500}\n"
            f"reliability: {{spare_gpus: {s}, job_mtbf_hours: {m}, restart_minutes: 10,"
            " checkpoint_write_minutes: 5}\n"
        )

    _, base = _forecast(plan(mtbf, spares))
    _, reliable = _forecast(plan(mtbf * factor, spares))
    _, spared = _forecast(plan(mtbf, spares + more))
    failure = ("checkpoint_writes", "lost_progress", "restarts")
    assert sum(reliable.overhead_gpu_hours[k] for k in failure) < sum(
        base.overhead_gpu_hours[k] for k in failure
    )
    assert spared.main_gpu_hours > base.main_gpu_hours
    assert spared.main_wall_hours == base.main_wall_hours
    assert spared.compute_gpu_hours == base.compute_gpu_hours


def test_forecast_fraction_replaces_the_retry_line() -> None:
    seed = (REPO_ROOT / "examples" / "demo-7b.plan.yaml").read_text()
    text = seed.replace(
        "sensitivity: {attempts: [1, 2], failure_fraction: [0.05, 0.20]}",
        "sensitivity: {attempts: [1, 2], failure_fraction: [0.05, forecast]}",
    )
    text += "reliability: {job_mtbf_hours: 24, restart_minutes: 10, checkpoint_write_minutes: 5}\n"
    assert "forecast]" in text
    result, f = _forecast(text)
    cases = {(c.attempts, c.failure_fraction_source): c for c in result.sensitivity}
    one = cases[(1, "forecast")]
    # P + T·(1 + f) + E with T the forecast's compute (8 × 120 = 960): exactly its main line.
    assert f.compute_gpu_hours == 960
    assert abs(Fraction(one.gpu_hours) - _sum(Decimal(72), f.main_gpu_hours, Decimal(60))) < (
        Fraction(1, 10**40)
    )
    two = cases[(2, "forecast")]
    assert abs(Fraction(two.gpu_hours) - (72 + 2 * Fraction(f.main_gpu_hours) + 60)) < Fraction(
        1, 10**40
    )
    retry = sum(ln.gpu_hours for ln in result.lines if ln.work_class == "retry")
    assert retry == 160 and abs(one.gpu_hours - (72 + f.main_gpu_hours + 60 + retry)) > 1
    # The 5 % case still prices T = 960 with f = 0.05, as the seed does.
    assert cases[(1, "plan")].gpu_hours == 1140
    (main,) = [ln for ln in result.lines if ln.work_class == "main"]
    assert main.gpu_hours == f.main_gpu_hours and main.detail.startswith("forecast:")


def test_without_forecast_keys_the_seed_campaign_is_unchanged() -> None:
    result = campaign_estimate(load_plan(REPO_ROOT / "examples" / "demo-7b.plan.yaml"))
    assert result.forecast is None and result.planned_gpu_hours == 1252


def test_ettr_interval_from_an_mtbf_interval() -> None:
    draws = tuple((Decimal(h), FLEET_PRIOR.exponent) for h in range(60, 141, 5))
    curve = MtbfCurve(384, Decimal(100), FLEET_PRIOR.exponent, "ledger", "fit", draws)
    _, f = _forecast(DESIGN_PLAN.replace("job_mtbf_hours: 112", "mtbf: ledger"), curve)
    low, high = f.ettr_interval
    assert f.mtbf_source == "ledger" and low < f.ettr < high
    m_low, m_high = f.mtbf_hours_interval
    assert m_low < f.mtbf_hours < m_high
    assert f.main_gpu_hours_interval[0] < f.main_gpu_hours < f.main_gpu_hours_interval[1]


def test_ledger_mtbf_without_a_fit_is_one_clear_error() -> None:
    plan = parse_plan(DESIGN_PLAN.replace("job_mtbf_hours: 112", "mtbf: ledger"))
    with pytest.raises(InputError, match=r"^reliability.mtbf: ledger needs a ledger"):
        campaign_estimate(plan)
    assert resolve_mtbf(plan.reliability, 384, FLEET_PRIOR) is FLEET_PRIOR


def test_throughput_above_the_peak_is_an_error_and_model_basis_warns() -> None:
    text = BASE + "main: {gpus: 8, gpu: H100-SXM, params: 7e9, tokens: 1e11, "
    rel = "reliability: {job_mtbf_hours: 100, checkpoint_write_minutes: 1}\n"
    with pytest.raises(InputError, match=r"^main.throughput_tflops: 1000 TFLOP/s is above"):
        campaign_estimate(parse_plan(text + "throughput_tflops: 1000}\n" + rel))
    # 700 of 989.4 TFLOP/s on 6·N·T is MFU 0.71: more than dense bf16 reaches; likely hardware.
    result, _ = _forecast(text + "throughput_tflops: 700}\n" + rel)
    assert any("counts hardware FLOPs" in w and "main.flops.terms" in w for w in result.warnings)
    quiet, _ = _forecast(text + "throughput_tflops: 400}\n" + rel)
    assert not any("hardware FLOPs" in w for w in quiet.warnings)


@pytest.mark.parametrize("mtbf", ["mtbf: fleet", "job_mtbf_hours: 3.1"])
def test_llama_3_1_405b_within_20_percent_of_its_gpu_hours(mtbf: str) -> None:
    # Actual: 30.84M H100 GPU-hours for the 405B model (Llama 3.1 model card). The 54-day
    # snapshot's 419 unexpected interruptions give a job MTBF of 54 · 24 / 419 ≈ 3.1 h.
    assert round(54 * 24 / 419, 1) == 3.1
    text = LLAMA_PLAN.read_text().replace("mtbf: fleet", mtbf)
    f = forecast_main(parse_plan(text), resolve_mtbf(parse_plan(text).reliability, 16384))
    actual = 30.84e6
    # The throughputs count attention (380 TFLOP/s at 128K would otherwise be 88 % of the
    # peak on 6·N·T alone), and the long-context phase is priced at 128K throughout: an upper
    # bound, so the forecast sits above the actual (docs/validation.md).
    assert 0 < float(f.main_gpu_hours) / actual - 1 <= 0.20
    attention = 12 * 126 * 128 * 128
    by_hand = [
        (6 * 405e9 + attention * 8192) * 2.87e12 / (430e12 * 3600),
        (6 * 405e9 + attention * 8192) * 11.93e12 / (400e12 * 3600),
        (6 * 405e9 + attention * 131072) * 0.8e12 / (380e12 * 3600),
    ]
    computed = [float(p.overhead.compute_gpu_hours) for p in f.phases]
    assert computed == pytest.approx(by_hand, rel=1e-12)
    assert 0.8 < f.ettr < 0.95  # the paper: effective training time above 90 %


def test_an_mtbf_far_below_the_segment_is_an_input_error() -> None:
    plan = parse_plan(
        BASE + "main: {gpus: 8, hours: 100}\n"
        "reliability: {job_mtbf_hours: 1e-9, checkpoint_write_minutes: 5,"
        " checkpoint_interval_minutes: 60}\n"
    )
    with pytest.raises(InputError, match=r"^reliability: a job MTBF of 1e-9 h .* never finishes"):
        campaign_estimate(plan)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=1, max_value=99))
def test_splitting_the_run_into_phases_on_the_same_gpus_changes_nothing(percent: int) -> None:
    head = BASE + "main: {gpus: 64, gpu: H100-SXM, params: 7e9, tokens: 1e12, mfu: 0.4"
    rel = "reliability: {spare_gpus: 4, job_mtbf_hours: 30, checkpoint_write_minutes: 2}\n"
    first = Decimal(10**12) * percent / 100
    _, whole = _forecast(head + "}\n" + rel)
    _, split = _forecast(
        head + f", phases: [{{tokens: {first}}}, {{tokens: {Decimal(10**12) - first}}}]}}\n" + rel
    )
    # Every line is linear in compute time at one MTBF and interval: the sums agree.
    assert abs(split.main_gpu_hours - whole.main_gpu_hours) < Decimal("1e-30")
    assert abs(split.compute_gpu_hours - whole.compute_gpu_hours) < Decimal("1e-30")
    assert len(split.phases) == 2

"""Checkpoint cadence: Daly's published intervals, Young's formula, lost fraction, storage."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.estimate.cadence import (
    checkpoint_cadence,
    daly_interval,
    expected_wall_factor,
    job_mtbf_hours,
    restart_from_scratch_factor,
    young_interval,
)

MIN = Decimal(1) / 60  # one minute in hours
TINY = Decimal("1e-20")  # Decimal quotients carry 28-50 digits; compare far below display


@pytest.mark.parametrize(
    ("mtbf_hours", "published_minutes", "tolerance"),
    # Daly 2006: δ = 5 min, R = 10 min; M = 24 h → ≈ 117 min, 6 h → ≈ 57 min, 15 min → ≈ 9.1 min.
    [(Decimal(24), 117, 0.5), (Decimal(6), 57, 0.5), (Decimal(15) / 60, 9.1, 0.05)],
)
def test_daly_published_intervals(mtbf_hours: Decimal, published_minutes: float, tolerance: float):
    minutes = float(daly_interval(5 * MIN, mtbf_hours)) * 60
    assert abs(minutes - published_minutes) <= tolerance


def test_young_is_sqrt_2_delta_m() -> None:
    # δ = 5 min, M = 1440 min: √(2 · 5 · 1440) = 120 min exactly.
    assert young_interval(5 * MIN, 24) * 60 == pytest.approx(Decimal(120), abs=TINY)


def test_daly_caps_at_m_when_writes_are_slow() -> None:
    assert daly_interval(3, 1) == 1


def test_job_mtbf_from_parts() -> None:
    assert job_mtbf_hours(16, mtbf_hours_per_gpu=40_000) == 2_500
    # 12 GPUs on 8-GPU nodes span 2 nodes.
    assert job_mtbf_hours(12, mtbf_hours_per_node=1_000, gpus_per_node=8) == 500
    with pytest.raises(InputError, match=r"^mtbf:"):
        job_mtbf_hours(8)


def test_expected_wall_factor_matches_dalys_model() -> None:
    tau, delta, restart, m = 2.0, 5 / 60, 10 / 60, 24.0
    expected = m * math.exp(restart / m) * (math.exp((tau + delta) / m) - 1) / tau
    got = expected_wall_factor(Decimal(2), 5 * MIN, 10 * MIN, 24)
    assert float(got) == pytest.approx(expected, rel=1e-12)


def test_lost_fraction_splits_from_write_overhead() -> None:
    c = checkpoint_cadence(write_hours=5 * MIN, restart_hours=10 * MIN, mtbf_hours=24)
    assert abs(c.write_overhead_fraction - c.write_hours / c.interval_hours) < TINY
    assert abs(c.lost_fraction + c.write_overhead_fraction + 1 - c.expected_wall_factor) < TINY
    assert 0 < c.lost_fraction < Decimal("0.1")


def test_first_order_overhead_for_rare_failures() -> None:
    # For δ ≪ M the total overhead is ≈ √(2δ/M) + R/M (Young's first-order expansion).
    delta, restart, m = 2 * MIN, 10 * MIN, Decimal(2000)
    c = checkpoint_cadence(write_hours=delta, restart_hours=restart, mtbf_hours=m)
    first_order = math.sqrt(2 * float(delta) / float(m)) + float(restart) / float(m)
    assert float(c.expected_wall_factor - 1) == pytest.approx(first_order, rel=0.02)


def test_written_checkpoints_and_retained_storage() -> None:
    c = checkpoint_cadence(
        write_hours=5 * MIN,
        restart_hours=10 * MIN,
        mtbf_hours=24,
        solve_hours=120,
        gpus=8,
        size_gb=180,
        keep_last=2,
    )
    written = math.ceil(120 / float(c.interval_hours))
    assert c.checkpoints_written == written
    assert abs(c.write_gpu_hours - written * 8 * (5 * MIN)) < TINY
    assert c.retained_gb == 360
    months = 120 * c.expected_wall_factor / Decimal("730.5")
    assert abs(c.retained_gb_months - 360 * months) < TINY


def test_restart_from_scratch_is_the_exponential_formula() -> None:
    ts, r, m = 10.0, 0.5, 4.0
    expected = (m + r) * (math.exp(ts / m) - 1) / ts
    assert float(restart_from_scratch_factor(10, Decimal("0.5"), 4)) == pytest.approx(expected)


@given(m1=st.integers(1, 10_000), m2=st.integers(1, 10_000))
def test_more_failures_lose_more(m1: int, m2: int) -> None:
    lo, hi = sorted((m1, m2))
    rare = checkpoint_cadence(write_hours=MIN, restart_hours=5 * MIN, mtbf_hours=hi)
    often = checkpoint_cadence(write_hours=MIN, restart_hours=5 * MIN, mtbf_hours=lo)
    assert often.expected_wall_factor >= rare.expected_wall_factor
    assert often.interval_hours <= rare.interval_hours


def test_overhead_fraction_is_dalys_whole_wall_time() -> None:
    # Issue 16: a 500 h job at M = 24 h, δ = 5 min, R = 10 min takes 547.9 h by Daly's model;
    # the grid's cadence column must give that, not 526.5 (writes left out).
    c = checkpoint_cadence(write_hours=5 * MIN, restart_hours=10 * MIN, mtbf_hours=24)
    tau = float(c.interval_hours)
    wall = 24 * math.exp((10 / 60) / 24) * (math.exp((tau + 5 / 60) / 24) - 1) * 500 / tau
    assert float(500 * (1 + c.overhead_fraction)) == pytest.approx(wall, rel=1e-12)
    assert round(wall, 1) == 547.9

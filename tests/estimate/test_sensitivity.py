"""The sensitivity model P + n·T·(1 + f) + E: the seed's three published cases and its shape."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from trainbudget.estimate.sensitivity import campaign_gpu_hours, sensitivity_grid


def test_seed_000_cases() -> None:
    # P = 72, T = 960, E = 60: n = 1, f = 5 % → 72 + 960·1.05 + 60 = 1,140; f = 20 % → 1,284;
    # n = 2, f = 5 % → 72 + 2·960·1.05 + 60 = 2,148.
    assert campaign_gpu_hours(72, 960, 60, 1, Decimal("0.05")) == 1140
    assert campaign_gpu_hours(72, 960, 60, 1, Decimal("0.20")) == 1284
    assert campaign_gpu_hours(72, 960, 60, 2, Decimal("0.05")) == 2148


def test_grid_order_margins_and_derived_column() -> None:
    grid = sensitivity_grid(
        pilot=72,
        main=960,
        evaluation=60,
        attempts=[1, 2],
        failure_fractions=[Decimal("0.05"), Decimal("0.20")],
        gpu_hour_usd=Decimal("2.40"),
        ceiling_gpu_hours=2000,
        derived_fraction=Decimal("0.1"),
    )
    assert [(c.attempts, c.failure_fraction, c.failure_fraction_source) for c in grid] == [
        (1, Decimal("0.05"), "plan"),
        (1, Decimal("0.20"), "plan"),
        (1, Decimal("0.1"), "cadence"),
        (2, Decimal("0.05"), "plan"),
        (2, Decimal("0.20"), "plan"),
        (2, Decimal("0.1"), "cadence"),
    ]
    n2 = grid[3]
    assert n2.gpu_hours == 2148 and n2.margin_gpu_hours == -148 and not n2.within_ceiling
    assert n2.compute_usd == Decimal("2148") * Decimal("2.40")
    assert grid[2].gpu_hours == 72 + 960 * Decimal("1.1") + 60


def test_diagnostics_are_planned_work_added_once() -> None:
    assert campaign_gpu_hours(72, 960, 60, 1, 0, diagnostic=16) == 72 + 960 + 60 + 16


@given(
    n=st.integers(1, 5),
    f=st.decimals(min_value=0, max_value=1, places=3),
    g=st.decimals(min_value=0, max_value=1, places=3),
)
def test_monotone_in_attempts_and_failure(n: int, f: Decimal, g: Decimal) -> None:
    lo, hi = sorted((f, g))
    assert campaign_gpu_hours(72, 960, 60, n, lo) <= campaign_gpu_hours(72, 960, 60, n, hi)
    assert campaign_gpu_hours(72, 960, 60, n, f) < campaign_gpu_hours(72, 960, 60, n + 1, f)

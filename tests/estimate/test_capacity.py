"""Preemptible versus stable capacity: restarts, lost work and delay decide, not the price."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from trainbudget.base.errors import InputError
from trainbudget.estimate.capacity import CapacityOption, compare_capacity, option_cost

H = Decimal(1) / 60  # a minute in hours


def _daly_factor(delta: float, restart: float, m: float) -> float:
    """Daly 2006: optimum interval, then expected wall time per unit of compute (floats)."""
    x = delta / (2 * m)
    tau = math.sqrt(2 * delta * m) * (1 + math.sqrt(x) / 3 + x / 9) - delta
    return m * math.exp(restart / m) * (math.exp((tau + delta) / m) - 1) / tau


def test_stable_capacity_costs_exactly_hours_times_gpus_times_price() -> None:
    cost = option_cost(CapacityOption("stable", Decimal("2.40")), 120, 8)
    assert cost.expected_wall_hours == 120
    assert cost.gpu_hours == 960 and cost.overhead_gpu_hours == 0
    assert cost.total_usd == Decimal("2304.00")
    assert cost.expected_interruptions == 0


def test_preemptible_cost_includes_restarts_lost_work_and_delay() -> None:
    spot = CapacityOption(
        "spot",
        Decimal("1.20"),
        mtbf_hours=Decimal(4),
        restart_hours=20 * H,
        write_hours=2 * H,
        delay_usd_per_day=Decimal(200),
    )
    cost = option_cost(spot, 100, 16)
    factor = _daly_factor(2 / 60, 20 / 60, 4.0)
    assert float(cost.expected_wall_hours) == pytest.approx(100 * factor, rel=1e-12)
    assert float(cost.expected_interruptions) == pytest.approx(100 * factor / 4, rel=1e-12)
    compute = 100 * factor * 16 * 1.20
    delay = (100 * factor - 100) / 24 * 200
    assert float(cost.compute_usd) == pytest.approx(compute, rel=1e-12)
    assert float(cost.delay_usd) == pytest.approx(delay, rel=1e-12)
    assert float(cost.total_usd) == pytest.approx(compute + delay, rel=1e-12)


def test_cheaper_per_hour_can_be_dearer_in_total() -> None:
    stable = CapacityOption("stable", Decimal("2.00"))
    flaky = CapacityOption(
        "flaky-spot",
        Decimal("1.80"),
        mtbf_hours=Decimal(1),
        restart_hours=30 * H,
        write_hours=10 * H,
    )
    ranked = compare_capacity([flaky, stable], 50, 8)
    assert [c.name for c in ranked] == ["stable", "flaky-spot"]
    factor = _daly_factor(10 / 60, 30 / 60, 1.0)
    assert factor * 1.80 > 2.00  # the independent arithmetic agrees the discount is eaten
    assert float(ranked[1].total_usd) == pytest.approx(50 * 8 * 1.80 * factor, rel=1e-12)


def test_no_checkpointing_restarts_from_zero() -> None:
    option = CapacityOption(
        "spot-nockpt",
        Decimal(1),
        mtbf_hours=Decimal(200),
        restart_hours=20 * H,
        checkpointing=False,
    )
    cost = option_cost(option, 89, 16)
    expected_wall = (200 + 1 / 3) * (math.exp(89 / 200) - 1)
    assert float(cost.expected_wall_hours) == pytest.approx(expected_wall, rel=1e-12)


def test_checkpointing_needs_a_write_time() -> None:
    option = CapacityOption("spot", Decimal(1), mtbf_hours=Decimal(4))
    with pytest.raises(InputError, match=r"^capacity\.spot\.write_minutes"):
        option_cost(option, 10, 8)

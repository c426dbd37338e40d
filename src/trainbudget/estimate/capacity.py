"""Preemptible versus stable capacity: total cost with restarts, lost work and delay included.

Seed 001: "if a preemptible machine saves money but causes repeated restarts, include lost
work and delay when comparing it with stable capacity." Each option's expected wall time uses
Daly's model (cadence.py) at its own interruption rate: checkpointing at Daly's interval, or,
without checkpoints, restarting from zero. Hours are wall-clock hours of the whole job.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from trainbudget.base.errors import InputError
from trainbudget.estimate.cadence import (
    daly_interval,
    expected_wall_factor,
    restart_from_scratch_factor,
)
from trainbudget.estimate.exact import Numeric, div, mul, to_decimal

HOURS_PER_DAY = 24


@dataclass(frozen=True)
class CapacityOption:
    """One way to buy the GPUs: price, interruption MTBF (None = no interruptions), recovery."""

    name: str
    gpu_hour_usd: Decimal
    mtbf_hours: Decimal | None = None
    restart_hours: Decimal = Decimal(0)
    write_hours: Decimal = Decimal(0)
    checkpointing: bool = True
    delay_usd_per_day: Decimal = Decimal(0)


@dataclass(frozen=True)
class CapacityCost:
    """An option's expected cost for one job of `solve_hours` useful compute on `gpus` GPUs."""

    name: str
    gpu_hour_usd: Decimal
    interval_hours: Decimal | None
    expected_wall_hours: Decimal
    expected_interruptions: Decimal
    useful_gpu_hours: Decimal
    overhead_gpu_hours: Decimal
    gpu_hours: Decimal
    compute_usd: Decimal
    delay_hours: Decimal
    delay_usd: Decimal
    total_usd: Decimal


def option_cost(option: CapacityOption, solve_hours: Numeric, gpus: int) -> CapacityCost:
    """Expected wall time, GPU-hours and dollars of one option, delay priced against Ts.

    overhead = checkpoint writes + recomputed work + restarts (all paid for at the option's
    price); delay = expected wall time − solve time, priced at delay_usd_per_day.
    """
    solve = to_decimal(solve_hours)
    if solve <= 0:
        raise InputError(f"main: solve hours must be positive, got {solve_hours}")
    interval = None
    if option.mtbf_hours is None:
        factor = Decimal(1)
        interruptions = Decimal(0)
    else:
        if option.checkpointing:
            if option.write_hours <= 0:
                raise InputError(
                    f"capacity.{option.name}.write_minutes: must be positive when checkpointing"
                )
            interval = daly_interval(option.write_hours, option.mtbf_hours)
            factor = expected_wall_factor(
                interval, option.write_hours, option.restart_hours, option.mtbf_hours
            )
        else:
            factor = restart_from_scratch_factor(solve, option.restart_hours, option.mtbf_hours)
        interruptions = div(mul(solve, factor), option.mtbf_hours)
    wall = mul(solve, factor)
    gpu_hours = mul(wall, gpus)
    compute = mul(gpu_hours, option.gpu_hour_usd)
    delay = wall - solve
    delay_usd = mul(div(delay, HOURS_PER_DAY), option.delay_usd_per_day)
    return CapacityCost(
        name=option.name,
        gpu_hour_usd=option.gpu_hour_usd,
        interval_hours=interval,
        expected_wall_hours=wall,
        expected_interruptions=interruptions,
        useful_gpu_hours=mul(solve, gpus),
        overhead_gpu_hours=gpu_hours - mul(solve, gpus),
        gpu_hours=gpu_hours,
        compute_usd=compute,
        delay_hours=delay,
        delay_usd=delay_usd,
        total_usd=compute + delay_usd,
    )


def compare_capacity(
    options: list[CapacityOption], solve_hours: Numeric, gpus: int
) -> list[CapacityCost]:
    """Every option's expected cost, cheapest total first (ties keep the plan's order)."""
    costs = [option_cost(option, solve_hours, gpus) for option in options]
    return sorted(costs, key=lambda cost: cost.total_usd)

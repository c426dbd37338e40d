"""The failure and iteration sensitivity grid of seed 000: P + n·T·(1 + f) + E GPU-hours.

P pilot, T main-run, E evaluation GPU-hours; n complete main attempts; f failed and recovery
GPU-hours as a fraction of T. The model REPLACES the plan's explicit retry line, it is never
added to it. Planned diagnostic/profiling hours D, when the plan has any, are added as the
planned work they are (P + n·T·(1 + f) + E + D).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Context, Decimal

from trainbudget.estimate.exact import Numeric, mul, to_decimal

_EXACT = Context(prec=200)  # sums of exact products and 50-digit quotients keep every digit


@dataclass(frozen=True)
class SensitivityCase:
    """One cell of the grid: its GPU-hours, dollars and distance to the ceiling."""

    attempts: int
    failure_fraction: Decimal
    gpu_hours: Decimal
    compute_usd: Decimal
    margin_gpu_hours: Decimal
    within_ceiling: bool
    # "plan", "cadence" (Daly's expected overhead at the cadence section's MTBF) or "forecast"
    # (the main-run forecast's overhead ÷ compute)
    failure_fraction_source: str


def campaign_gpu_hours(
    pilot: Numeric,
    main: Numeric,
    evaluation: Numeric,
    attempts: int,
    failure_fraction: Numeric,
    diagnostic: Numeric = 0,
) -> Decimal:
    """P + n·T·(1 + f) + E (+ D) in GPU-hours, added without rounding."""
    main_hours = mul(attempts, main, _EXACT.add(1, to_decimal(failure_fraction)))
    total = Decimal(0)
    for part in (pilot, main_hours, evaluation, diagnostic):
        total = _EXACT.add(total, to_decimal(part))
    return total


def sensitivity_grid(
    *,
    pilot: Numeric,
    main: Numeric,
    evaluation: Numeric,
    diagnostic: Numeric = 0,
    attempts: list[int],
    failure_fractions: list[Numeric],
    gpu_hour_usd: Numeric,
    ceiling_gpu_hours: Numeric,
    derived_fraction: Numeric | None = None,
    forecast_fraction: Numeric | None = None,
) -> list[SensitivityCase]:
    """Every (n, f) case, attempts-major in the plan's order; a derived (cadence) f and the
    forecast's f add a column each."""
    columns = [(to_decimal(f), "plan") for f in failure_fractions]
    if derived_fraction is not None:
        columns.append((to_decimal(derived_fraction), "cadence"))
    if forecast_fraction is not None:
        columns.append((to_decimal(forecast_fraction), "forecast"))
    ceiling = to_decimal(ceiling_gpu_hours)
    cases = []
    for n in attempts:
        for fraction, source in columns:
            hours = campaign_gpu_hours(pilot, main, evaluation, n, fraction, diagnostic)
            cases.append(
                SensitivityCase(
                    attempts=n,
                    failure_fraction=fraction,
                    gpu_hours=hours,
                    compute_usd=mul(hours, gpu_hour_usd),
                    margin_gpu_hours=ceiling - hours,
                    within_ceiling=hours <= ceiling,
                    failure_fraction_source=source,
                )
            )
    return cases

"""The main line's band for a plan with no `reliability` section: the throughput alone.

With no MTBF term the forecast band's rule (estimate/forecast_band.py) reduces to
main(s) = K / s with ln s ~ N(0, σ_s²), so p10 = K·e^(−1.2816·σ_s), p50 = K, p90 = K·e^(1.2816·σ_s)
(rounded to 0.1 GPU-hour like the forecast's band). σ_s is MEASURED_SIGMA for a throughput
the plan (or a pilot or a calibration) gives, the throughput prior's σ for a class-default
MFU. A main line given as `hours` involves no throughput: its band is the stated GPU-hours.
Kept light (no statistics, no forecast model): `campaign --json` loads it for every plan.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trainbudget.estimate.run import RunEstimate
    from trainbudget.plan import Plan

Z90 = 1.2815515655446004
# Assumption: a throughput measured by a pilot, a calibration or the plan's own benchmark is
# within ×/÷ 1.14 of the run's at p10/p90 (p90/p10 = 1.3); the validation's measured
# throughputs (docs/validation.md) miss their runs by up to that much.
MEASURED_SIGMA = math.log(1.3) / (2 * Z90)
MEASURED_SOURCES = {"plan": "plan", "user": "plan", "pilot": "pilot", "calibrated": "calibrated"}


def _hours(value: float) -> Decimal:
    return Decimal(f"{value:.1f}")


def throughput_band(point: Decimal, sigma: float) -> dict[str, Decimal]:
    """p10, p50, p90 of K / s, ln s ~ N(0, σ²), for K = `point` GPU-hours."""
    spread = math.exp(Z90 * sigma)
    return {
        "p10": _hours(float(point) / spread),
        "p50": _hours(float(point)),
        "p90": _hours(float(point) * spread),
    }


def main_band_payload(
    plan: Plan, run: RunEstimate | None, main_gpu_hours: Decimal
) -> dict[str, Any]:
    """`forecast` of `campaign --json` for a plan without `reliability`: source and band."""
    if run is None:
        return {
            "throughput_source": "hours",
            "main_gpu_hours_band": {
                "p10": main_gpu_hours,
                "p50": main_gpu_hours,
                "p90": main_gpu_hours,
            },
            "band_detail": {
                "method": "none: the plan gives the main run's hours, no throughput is involved",
                "throughput": None,
                "throughput_sigma": None,
                "mtbf": None,
                "moved_most_by": None,
            },
        }
    source = MEASURED_SOURCES.get(run.mfu_source, run.mfu_source)
    if source == "class-default":
        from trainbudget.estimate.run import implied_class
        from trainbudget.estimate.throughput_prior import throughput_prior

        main = plan.main
        prior = throughput_prior(implied_class(main.model_class, main.flops_method), main.precision)
        sigma = prior.sigma
        label = f"class-default MFU, spread σ {sigma:.3f} on ln MFU of the throughput prior"
    else:
        sigma = MEASURED_SIGMA
        label = f"{source}-measured, σ {MEASURED_SIGMA:.3f} assumed"
    return {
        "throughput_source": source,
        "main_gpu_hours_band": throughput_band(main_gpu_hours, sigma),
        "band_detail": {
            "method": "throughput alone (no reliability section): K·e^(∓1.2816·σ), "
            "estimate/main_band.py",
            "throughput": label,
            "throughput_sigma": Decimal(f"{sigma:.6f}"),
            "mtbf": None,
            "moved_most_by": f"throughput ({label}): the only input with a spread",
        },
    }

"""The band of the main run's GPU-hours: p10, p50, p90 from the throughput and MTBF together.

Every line of a phase (estimate/forecast_model.py) is proportional to its compute wall time,
and a throughput error is common to all phases, so with s the throughput's factor on the
forecast's rate and m the MTBF's factor on every phase's MTBF (the intervals kept as planned):
    main(s, m) = K(m) / s,   K(m) = Σ phases' main_gpu_hours at MTBF × m (+ rollbacks).
ln s ~ N(0, σ_s²) and ln m ~ N(0, σ_m²), independent, both centred on the point figure:
    P(main ≤ x) = E_m[Φ((ln x − ln K(m)) / σ_s)].
E_m is a midpoint rule over STRATA equal-probability strata of m (z_i = Φ⁻¹((i + ½)/STRATA);
for a ledger fit, its bootstrap draws' order statistics at those probabilities), K(m_i) in
exact Decimal arithmetic; Φ is exact; each quantile is found by bisection on ln x. So the
band is quantile arithmetic, deterministic, with no random draws. The point figure K(1) lies
between p25 and p75 (P(ln K(m) ≤ ln K(1), s ≥ 1) = ¼), so inside [p10, p90].

σ_s: the prior's (estimate/throughput_prior.py) when any phase's rate is the prior, else
MEASURED_SIGMA. σ_m: FLEET_SIGMA for the fleet prior, PLAN_SIGMA for a plan's job MTBF.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from statistics import NormalDist
from typing import TYPE_CHECKING

from trainbudget.base.errors import InputError
from trainbudget.estimate.forecast_model import PhaseOverhead, exact_sum, phase_overhead
from trainbudget.estimate.main_band import MEASURED_SIGMA, Z90  # noqa: F401 (re-exported)

if TYPE_CHECKING:
    from trainbudget.estimate.mtbf import MtbfCurve

STRATA = 40
# Assumption: a published fleet curve is within ×/÷ 2 of a new cluster's job MTBF at p10/p90
# (Llama 3's 16,384-GPU run saw 3.1 h against the fleet curve's 1.8 h: ×1.7).
FLEET_SIGMA = math.log(2) / Z90
# Assumption: a team's own job-MTBF figure is within ×/÷ 1.5 at p10/p90.
PLAN_SIGMA = math.log(1.5) / Z90
_NORMAL = NormalDist()


@dataclass(frozen=True)
class Band:
    """p10, p50, p90 of main_gpu_hours; what each input alone gives; which moves it most."""

    p10: Decimal
    p50: Decimal
    p90: Decimal
    throughput_sigma: float
    mtbf_sigma: float | None
    throughput_only: tuple[Decimal, Decimal]
    mtbf_only: tuple[Decimal, Decimal]
    moved_most_by: str
    throughput_label: str
    mtbf_label: str

    def as_dict(self) -> dict[str, Decimal]:
        return {"p10": self.p10, "p50": self.p50, "p90": self.p90}

    def detail(self) -> dict[str, object]:
        """How the band was made (campaign --json `forecast.band_detail`)."""
        return {
            "method": (
                f"quantile arithmetic: {STRATA} equal-probability MTBF strata × the exact "
                "normal CDF of ln throughput (estimate/forecast_band.py)"
            ),
            "throughput": self.throughput_label,
            "throughput_sigma": Decimal(f"{self.throughput_sigma:.6f}"),
            "mtbf": self.mtbf_label,
            "mtbf_sigma": None if self.mtbf_sigma is None else Decimal(f"{self.mtbf_sigma:.6f}"),
            "throughput_only": {"p10": self.throughput_only[0], "p90": self.throughput_only[1]},
            "mtbf_only": {"p10": self.mtbf_only[0], "p90": self.mtbf_only[1]},
            "moved_most_by": self.moved_most_by,
        }


def _hours(value: float) -> Decimal:
    """A quantile as found (every digit of the bisection's float; no rounding in --json)."""
    return Decimal(repr(value))


def _k(planned: list[PhaseOverhead], factor: Decimal, extra: Decimal) -> float:
    """K(m): the phases' main_gpu_hours with every MTBF × `factor`; inf if it never finishes."""
    try:
        hours = [
            phase_overhead(
                compute_wall_hours=p.compute_wall_hours,
                gpus=p.gpus,
                spare_gpus=p.spare_gpus,
                mtbf_hours=p.mtbf_hours * factor,
                write_hours=p.write_hours,
                restart_hours=p.restart_hours,
                interval_hours=p.interval_hours,
            ).main_gpu_hours
            for p in planned
        ]
    except InputError:
        return math.inf
    return float(exact_sum([*hours, extra]))


def _mtbf_factors(
    curve: MtbfCurve, gpus: int
) -> tuple[list[Decimal], Decimal, Decimal, float | None]:
    """The strata's MTBF factors, m's p10 and p90, and σ_m (None for bootstrap draws)."""
    probabilities = [(i + 0.5) / STRATA for i in range(STRATA)]
    if curve.draws:
        point = curve.hours_at(gpus)
        ratios = sorted(_draw_ratio(curve, h, b, gpus, point) for h, b in curve.draws)

        def at(p: float) -> Decimal:
            return ratios[min(len(ratios) - 1, int(p * len(ratios)))]

        return [at(p) for p in probabilities], at(0.1), at(0.9), None
    sigma = FLEET_SIGMA if curve.source == "fleet" else PLAN_SIGMA

    def factor(z: float) -> Decimal:
        return Decimal(repr(math.exp(sigma * z)))

    zs = [_NORMAL.inv_cdf(p) for p in probabilities]
    return [factor(z) for z in zs], factor(-Z90), factor(Z90), sigma


def _draw_ratio(
    curve: MtbfCurve, hours: Decimal, exponent: Decimal, gpus: int, point: Decimal
) -> Decimal:
    """One bootstrap draw's MTBF at `gpus` over the point curve's."""
    from trainbudget.estimate.mtbf import MtbfCurve

    draw = MtbfCurve(curve.reference_gpus, hours, exponent, curve.source, "")
    return draw.hours_at(gpus) / point


def _quantile(ks: list[float], sigma: float, q: float) -> float:
    """x with mean_i Φ((ln x − ln K_i)/σ) = q, by bisection on ln x."""
    finite = [math.log(k) for k in ks if math.isfinite(k)]
    if not finite:
        return math.inf
    low, high = min(finite) - 10 * sigma, max(finite) + 10 * sigma

    def cdf(y: float) -> float:
        return sum(
            0.0 if not math.isfinite(k) else _NORMAL.cdf((y - math.log(k)) / sigma) for k in ks
        ) / len(ks)

    if cdf(high) < q:
        return math.inf
    for _ in range(200):
        mid = (low + high) / 2
        if cdf(mid) < q:
            low = mid
        else:
            high = mid
    return math.exp((low + high) / 2)


def main_gpu_hours_band(
    planned: list[PhaseOverhead],
    curve: MtbfCurve,
    gpus: int,
    throughput_sigma: float,
    throughput_label: str,
    extra_gpu_hours: Decimal = Decimal(0),
) -> Band:
    """The band (module docstring) of the phases `planned` at the forecast's point."""
    factors, low_m, high_m, mtbf_sigma = _mtbf_factors(curve, gpus)
    ks = [_k(planned, f, extra_gpu_hours) for f in factors]
    p10, p50, p90 = (_quantile(ks, throughput_sigma, q) for q in (0.1, 0.5, 0.9))
    point = _k(planned, Decimal(1), extra_gpu_hours)
    spread = math.exp(Z90 * throughput_sigma)
    throughput_only = (_hours(point / spread), _hours(point * spread))
    # A longer MTBF (m's p90) gives fewer hours: the band's low end.
    mtbf_only = (
        _hours(_k(planned, high_m, extra_gpu_hours)),
        _hours(_k(planned, low_m, extra_gpu_hours)),
    )
    t_ratio = spread**2
    m_ratio = float(mtbf_only[1] / mtbf_only[0]) if mtbf_only[0] else math.inf
    mtbf_label = (
        "MTBF (ledger bootstrap)"
        if mtbf_sigma is None
        else f"MTBF ({curve.source}: ×/÷ {math.exp(Z90 * mtbf_sigma):.2f} at p10/p90)"
    )
    moved = (
        f"throughput ({throughput_label}): p90/p10 {t_ratio:.2f} alone, against {m_ratio:.2f} "
        f"for the {mtbf_label}"
        if t_ratio >= m_ratio
        else f"{mtbf_label}: p90/p10 {m_ratio:.2f} alone, against {t_ratio:.2f} for the "
        f"throughput ({throughput_label})"
    )
    return Band(
        p10=_hours(p10),
        p50=_hours(p50),
        p90=_hours(p90),
        throughput_sigma=throughput_sigma,
        mtbf_sigma=mtbf_sigma,
        throughput_only=throughput_only,
        mtbf_only=mtbf_only,
        moved_most_by=moved,
        throughput_label=throughput_label,
        mtbf_label=mtbf_label,
    )

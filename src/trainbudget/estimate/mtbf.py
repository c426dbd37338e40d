"""A job's mean time between interruptions as a power law of GPU count: M(n) = M_ref·(n/n_ref)^b.

Independent per-GPU failures give b = −1. Meta's research clusters (Kokolis et al. 2024,
"Revisiting Reliability in Large-Scale Machine Learning Research Clusters", arXiv:2410.21680)
measured a 1,024-GPU job MTTF of 7.9 h and project 1.8 h at 16,384 GPUs: b ≈ −0.53.
The forecast (estimate/), the ledger fit (reliability/) and the plan all speak this one type.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Context, Decimal
from typing import Literal

from trainbudget.base.errors import InputError

_CTX = Context(prec=50)

MtbfSource = Literal["plan", "ledger", "fleet"]


@dataclass(frozen=True)
class MtbfCurve:
    """M(n) in hours for a job of n GPUs; `draws`: bootstrap (reference_hours, exponent) pairs."""

    reference_gpus: int
    reference_hours: Decimal
    exponent: Decimal
    source: MtbfSource
    note: str
    draws: tuple[tuple[Decimal, Decimal], ...] = ()

    def hours_at(self, gpus: int) -> Decimal:
        """The MTBF of one job of `gpus` GPUs, in hours."""
        return _power_law(self.reference_hours, self.exponent, self.reference_gpus, gpus)

    def interval_at(
        self, gpus: int, level: Decimal = Decimal("0.9")
    ) -> tuple[Decimal, Decimal] | None:
        """The central `level` interval of M(gpus) over the bootstrap draws; None without draws."""
        if not self.draws:
            return None
        values = sorted(
            _power_law(hours, exponent, self.reference_gpus, gpus) for hours, exponent in self.draws
        )
        tail = (1 - level) / 2
        low = int(tail * (len(values) - 1))
        high = int((1 - tail) * (len(values) - 1) + Decimal("0.5"))
        return values[low], values[min(high, len(values) - 1)]


def _power_law(
    reference_hours: Decimal, exponent: Decimal, reference_gpus: int, gpus: int
) -> Decimal:
    if gpus < 1:
        raise InputError(f"gpus: must be a positive integer, got {gpus}")
    ratio = _CTX.divide(Decimal(gpus), Decimal(reference_gpus))
    # x^b = e^(b·ln x), to 50 digits.
    return _CTX.multiply(reference_hours, _CTX.exp(_CTX.multiply(exponent, _CTX.ln(ratio))))


def _exponent_through(n1: int, m1: Decimal, n2: int, m2: Decimal) -> Decimal:
    return _CTX.divide(_CTX.ln(_CTX.divide(m2, m1)), _CTX.ln(_CTX.divide(Decimal(n2), Decimal(n1))))


# Kokolis et al. 2024, §IV (Meta RSC-1/RSC-2): 7.9 h MTTF at 1,024 GPUs, 1.8 h projected at 16,384.
FLEET_PRIOR = MtbfCurve(
    reference_gpus=1024,
    reference_hours=Decimal("7.9"),
    exponent=_exponent_through(1024, Decimal("7.9"), 16384, Decimal("1.8")),
    source="fleet",
    note=(
        "prior: Meta research-cluster fleet curve, Kokolis et al. 2024 (arXiv:2410.21680): "
        "7.9 h at 1,024 GPUs, 1.8 h at 16,384"
    ),
)

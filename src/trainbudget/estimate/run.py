"""One training run priced: wall time = FLOPs / (GPUs · peak · MFU), dollars = hours · GPUs · price.

A plain function over numbers so that pilots (measured MFU), reconciliation (calibrated MFU)
and the gates (cheaper alternatives) can all call it. Formula: seed 004, "What to estimate".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from decimal import Decimal
from typing import Any

from trainbudget.base.errors import InputError
from trainbudget.estimate.exact import (
    MAX_FLOPS,
    MAX_GPU_HOURS,
    MAX_GPUS,
    MAX_SECONDS,
    MAX_USD,
    Numeric,
    as_plain,
    bounded,
    div,
    mul,
    non_negative,
    positive,
    to_decimal,
)
from trainbudget.estimate.flops import FORMULAS, training_flops
from trainbudget.estimate.flops_basis import FlopsBasis, flops_basis

MFU_SOURCES: tuple[str, ...] = (
    "user",
    "plan",
    "pilot",
    "calibrated",
    "trace",
    "prior",
    "class-default",
)

# Seed 004: dense transformers 0.3–0.5, MoE 0.15–0.3, CNN-heavy or SNN 0.1–0.2; the default
# is the middle of each range (dense 0.4 is the seed's worked example).
CLASS_DEFAULT_MFU: dict[str, Decimal] = {
    "dense": Decimal("0.4"),
    "moe": Decimal("0.2"),
    "cnn": Decimal("0.15"),
    "snn": Decimal("0.15"),
}
# FP8 training runs about 1.3-1.5x faster than BF16 on the same GPU (Peng et al. 2023, "FP8-LM",
# 1.37x at 175B; NVIDIA Transformer Engine), while the catalog's dense fp8 peak is 2x bf16: an
# MFU quoted against the fp8 peak is the bf16 class default x 1.4 / 2.
FP8_MFU_FACTOR = Decimal("0.7")
# Seed 004's plausible upper end of each class's MFU range on the model-FLOPs basis (bf16).
CLASS_MFU_HIGH: dict[str, Decimal] = {
    "dense": Decimal("0.5"),
    "moe": Decimal("0.3"),
    "cnn": Decimal("0.2"),
    "snn": Decimal("0.2"),
}
MFU_WARN_ABOVE = Decimal("0.7")
SECONDS_PER_HOUR = 3600
HOURS_PER_DAY = 24


@dataclass(frozen=True)
class RunEstimate:
    """A run's cost: FLOPs, wall seconds/hours/days, GPU-hours, dollars, and what produced them."""

    flops: int | Decimal
    gpus: int
    peak_flops_per_second: Decimal
    mfu: Decimal
    mfu_source: str
    price_usd_per_gpu_hour: Decimal
    wall_seconds: Decimal
    wall_hours: Decimal
    wall_days: Decimal
    gpu_hours: Decimal
    dollar_cost: Decimal
    method: str
    formula: str
    warnings: tuple[str, ...] = ()
    flops_basis: str = "model FLOPs 6·N·T"
    flops_terms: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The estimate as a plain dict (numbers stay exact; JSON output converts them)."""
        data = asdict(self)
        # FLOPs exceed 64-bit integers (4.2e21); as a Decimal they stay exact and serialise.
        data["flops"] = Decimal(self.flops)
        data["warnings"] = list(self.warnings)
        data["flops_terms"] = list(self.flops_terms)
        return data


def default_mfu(model_class: str, precision: str = "bf16") -> Decimal:
    """The class-default MFU for `model_class` (dense, moe, cnn, snn) against the `precision`
    peak: seed 004's middle of the range, × FP8_MFU_FACTOR against an fp8 peak."""
    try:
        value = CLASS_DEFAULT_MFU[model_class.lower()]
    except KeyError:
        known = ", ".join(CLASS_DEFAULT_MFU)
        raise InputError(f"model_class: must be one of {known}, got {model_class!r}") from None
    return value * FP8_MFU_FACTOR if precision.lower() == "fp8" else value


def plausible_mfu_high(model_class: str, precision: str = "bf16") -> Decimal:
    """The top of the class's plausible MFU range (model FLOPs) against the `precision` peak."""
    value = CLASS_MFU_HIGH.get(model_class.lower(), CLASS_MFU_HIGH["dense"])
    return value * FP8_MFU_FACTOR if precision.lower() == "fp8" else value


def implied_class(model_class: str | None, method: str) -> str:
    """The class of a class-default MFU: as given, else moe for the moe method, else dense."""
    if model_class:
        return model_class
    return "moe" if method == "moe" else "dense"


def check_mfu(mfu: Numeric) -> tuple[Decimal, tuple[str, ...]]:
    """Validate 0 < MFU ≤ 1; return it with a warning when it looks like peak throughput."""
    value = to_decimal(mfu)
    if not value.is_finite() or value <= 0 or value > 1:
        raise InputError(f"mfu: must be in (0, 1], got {mfu}")
    if value == 1:
        return value, ("mfu is 1.0: that is peak throughput, never reached in training",)
    if value > MFU_WARN_ABOVE:
        return value, (
            f"mfu {value} is above {MFU_WARN_ABOVE}: few training runs sustain that; "
            "measure it with a pilot",
        )
    return value, ()


def estimate_from_flops(
    flops: Numeric,
    gpus: int,
    peak_flops_per_second: Numeric,
    mfu: Numeric,
    price_usd_per_gpu_hour: Numeric,
    *,
    mfu_source: str = "user",
    method: str = "given",
    formula: str = "FLOPs given",
    flops_name: str = "flops",
    basis: FlopsBasis | None = None,
) -> RunEstimate:
    """Price a run whose total FLOPs are known (e.g. from a profiler or another method).

    `flops_name` names the inputs the FLOPs came from in a bound error ("params, tokens").
    Every figure must lie within the sane bounds of estimate.exact (InputError otherwise).
    """
    if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 1:
        raise InputError(f"gpus: must be a positive integer, got {gpus}")
    if gpus > MAX_GPUS:
        raise InputError(f"gpus: must be at most {MAX_GPUS:,} (sane bound), got {gpus:.3E}")
    if mfu_source not in MFU_SOURCES:
        raise InputError(f"mfu_source: must be one of {', '.join(MFU_SOURCES)}, got {mfu_source!r}")
    total = bounded(flops_name, positive("flops", flops), MAX_FLOPS, "FLOPs")
    peak = positive("peak_flops_per_second", peak_flops_per_second)
    price = non_negative("price", price_usd_per_gpu_hour)
    utilisation, warnings = check_mfu(mfu)
    # Each figure is ONE division of exact products, so it is correctly rounded at 50 digits
    # and exact whenever the quotient terminates ($80, not $79.999...).
    per_second = mul(peak, utilisation)
    wall_seconds = div(total, mul(gpus, per_second))
    wall_hours = div(total, mul(gpus, per_second, SECONDS_PER_HOUR))
    gpu_hours = div(total, mul(per_second, SECONDS_PER_HOUR))
    dollar_cost = div(mul(total, price), mul(per_second, SECONDS_PER_HOUR))
    bounded(f"{flops_name}, peak, mfu", gpu_hours, MAX_GPU_HOURS, "GPU-hours")
    bounded(f"{flops_name}, gpus, peak, mfu", wall_seconds, MAX_SECONDS, "wall seconds")
    bounded("price", dollar_cost, MAX_USD, "USD")
    return RunEstimate(
        flops=flops if isinstance(flops, int) else total,
        gpus=gpus,
        peak_flops_per_second=peak,
        mfu=utilisation,
        mfu_source=mfu_source,
        price_usd_per_gpu_hour=price,
        wall_seconds=wall_seconds,
        wall_hours=wall_hours,
        wall_days=div(total, mul(gpus, per_second, SECONDS_PER_HOUR, HOURS_PER_DAY)),
        gpu_hours=gpu_hours,
        dollar_cost=dollar_cost,
        method=method,
        formula=formula,
        warnings=warnings,
        flops_basis="FLOPs given" if basis is None else basis.describe(),
        flops_terms=() if basis is None else basis.terms,
    )


def estimate_run(
    params: Numeric,
    tokens: Numeric,
    gpus: int,
    peak_flops_per_second: Numeric,
    mfu: Numeric,
    price_usd_per_gpu_hour: Numeric,
    *,
    mfu_source: str = "user",
    method: str = "6nt",
    active_params: Numeric | None = None,
    n_layers: int | None = None,
    d_model: int | None = None,
    seq_len: int | None = None,
    terms: tuple[str, ...] = (),
    vocab: int | None = None,
) -> RunEstimate:
    """Price a training run of `params` parameters over `tokens` tokens on `gpus` accelerators.

    peak_flops_per_second is one accelerator's dense peak (FLOP/s, not TFLOP/s); mfu in (0, 1]
    on the FLOPs basis of `method` plus `terms` (estimate/flops_basis.py).
    """
    n = positive("params", params)
    t = to_decimal(tokens)
    if not t.is_finite() or t < 1:
        raise InputError(f"tokens: must be at least 1, got {tokens}")
    active = None if active_params is None else positive("active_params", active_params)
    basis = run_basis(method, terms, n_layers=n_layers, d_model=d_model, seq_len=seq_len,
                      vocab=vocab)  # fmt: skip
    if terms:
        work = active if method == "moe" else n
        if method == "moe" and active is None:
            raise InputError("active_params: required by the moe FLOPs method")
        flops = basis.per_token(as_plain(work)) * as_plain(t)
        return estimate_from_flops(
            flops, gpus, peak_flops_per_second, mfu, price_usd_per_gpu_hour,
            mfu_source=mfu_source, method=method, formula=basis.formula(),
            flops_name=f"params, tokens ({basis.describe()})", basis=basis,
        )  # fmt: skip
    flops = training_flops(
        as_plain(n),
        as_plain(t),
        method,
        active_params=None if active is None else as_plain(active),
        n_layers=n_layers,
        d_model=d_model,
        seq_len=seq_len,
    )
    return estimate_from_flops(
        flops,
        gpus,
        peak_flops_per_second,
        mfu,
        price_usd_per_gpu_hour,
        mfu_source=mfu_source,
        method=method,
        formula=FORMULAS[method],
        flops_name="params, tokens" if method == "6nt" else f"params, tokens ({method} FLOPs)",
        basis=basis,
    )


def run_basis(
    method: str,
    terms: tuple[str, ...] = (),
    *,
    n_layers: int | None = None,
    d_model: int | None = None,
    seq_len: int | None = None,
    vocab: int | None = None,
    where: str = "",
) -> FlopsBasis:
    """The FLOPs basis of a FLOPs method plus terms; attention and recompute methods are terms.

    The terms combine on top of 6nt or moe; with the attention or recompute method they are
    refused (give the terms instead).
    """
    if terms and method in ("attention", "recompute"):
        raise InputError(
            f"{where}terms: give the FLOPs terms or the {method} method, not both "
            f"(the method is the term {method})"
        )
    chosen = tuple(terms) or ((method,) if method in ("attention", "recompute") else ())
    if not terms and method in ("attention", "recompute"):
        return FlopsBasis(chosen, False, n_layers, d_model, seq_len, vocab)
    return flops_basis(
        chosen, moe=method == "moe", n_layers=n_layers, d_model=d_model, seq_len=seq_len,
        vocab=vocab, where=where,
    )  # fmt: skip

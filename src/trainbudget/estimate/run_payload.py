"""One run's `estimate` payload: price the run, choose its MFU, check memory, list assumptions.

Takes parsed values (Decimal, int); the command line reads its options into them. The payload
is the `estimate --json` contract: its first six keys are DESIGN.md's, the rest say where each
figure came from.
"""

from __future__ import annotations

from dataclasses import asdict
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.estimate.catalog import PRECISIONS, Accelerator
from trainbudget.estimate.exact import div, mul
from trainbudget.estimate.memory import training_memory
from trainbudget.estimate.run import default_mfu, estimate_run, implied_class

if TYPE_CHECKING:
    from trainbudget.estimate.mfu_sources import LedgerMfu

_GIB = 1024**3
MEMORY_FIELDS = ("n_layers", "d_model", "heads", "seq_len")


def catalog_peak(accelerator: Accelerator, precision: str) -> tuple[Decimal, str]:
    """One GPU's dense peak FLOP/s at `precision` from the catalog, and where it came from."""
    if precision.lower() not in PRECISIONS:
        raise InputError(f"precision: must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    return accelerator.peak_flops_per_second(precision), f"catalog: {accelerator.source}"


def estimate_payload(
    *,
    params: Decimal,
    tokens: Decimal,
    gpus: int,
    price: Decimal,
    accelerator: Accelerator | None,
    peak_flops_per_second: Decimal,
    peak_source: str,
    precision: str = "bf16",
    mfu: Decimal | None = None,
    model_class: str | None = None,
    method: str = "6nt",
    active_params: Decimal | None = None,
    n_layers: int | None = None,
    d_model: int | None = None,
    seq_len: int | None = None,
    vocab: int | None = None,
    flops_terms: tuple[str, ...] = (),
    heads: int | None = None,
    micro_batch: int | None = None,
    recompute: str = "none",
    zero_stage: int = 0,
    tensor_parallel: int = 1,
    measured: LedgerMfu | None = None,
) -> dict[str, Any]:
    """Price one run (price in $/GPU-hour, peak in FLOP/s); the JSON payload, contract keys first.

    The MFU is `measured` (read from the ledger) if given, else `mfu`, else the class default
    (by model class, the moe method implying moe, and precision); its provenance is the
    payload's `mfu_source` and `mfu_from` (null unless measured). The MFU counts the FLOPs of
    `method` plus `flops_terms` (the payload's `flops_basis`).
    """
    model_class = implied_class(model_class, method)
    if measured is not None:
        if mfu is not None:
            raise InputError("mfu: give either an MFU or one measured in the ledger, not both")
        utilisation, mfu_source = measured.mfu, measured.mfu_source
    elif mfu is None:
        utilisation, mfu_source = default_mfu(model_class, precision), "class-default"
    else:
        utilisation, mfu_source = mfu, "user"

    result = estimate_run(
        params,
        tokens,
        gpus,
        peak_flops_per_second,
        utilisation,
        price,
        mfu_source=mfu_source,
        method=method,
        active_params=active_params,
        n_layers=n_layers,
        d_model=d_model,
        seq_len=seq_len,
        terms=flops_terms,
        vocab=vocab,
    )
    payload: dict[str, Any] = {
        "flops": Decimal(result.flops),
        "wall_seconds": result.wall_seconds,
        "wall_hours": result.wall_hours,
        "wall_days": result.wall_days,
        "gpu_hours": result.gpu_hours,
        "dollar_cost": result.dollar_cost,
        "params": params,
        "tokens": tokens,
        "gpus": gpus,
        "gpu": accelerator.name if accelerator else None,
        "precision": precision.lower(),
        "peak_flops_per_second": peak_flops_per_second,
        "peak_source": peak_source,
        "aggregate_flops_per_second": mul(gpus, peak_flops_per_second, utilisation),
        "mfu": utilisation,
        "mfu_source": mfu_source,
        "mfu_from": None if measured is None else measured.to_payload(),
        "model_class": model_class if mfu_source == "class-default" else None,
        "price_usd_per_gpu_hour": price,
        "method": result.method,
        "formula": result.formula,
        "flops_basis": result.flops_basis,
        "flops_terms": list(result.flops_terms),
        "model_flops_mfu": _model_flops_mfu(result, params, tokens, active_params),
        "memory": None,
        "warnings": list(result.warnings) + ([] if measured is None else measured.warnings),
    }
    if micro_batch is not None:
        shape = {"n_layers": n_layers, "d_model": d_model, "heads": heads, "seq_len": seq_len}
        missing = [name for name in MEMORY_FIELDS if shape[name] is None]
        if missing:
            raise InputError(f"{missing[0]}: required by the memory check (micro_batch)")
        memory = training_memory(
            params,
            n_layers=n_layers,
            d_model=d_model,
            heads=heads,
            seq_len=seq_len,
            micro_batch=micro_batch,
            gpus=gpus,
            tensor_parallel=tensor_parallel,
            zero_stage=zero_stage,
            recompute=recompute,
            capacity_bytes=accelerator.memory_bytes if accelerator else None,
        )
        payload["memory"] = asdict(memory)
        if memory.fits is False:
            payload["warnings"].append(
                f"does not fit: {_gib(memory.total_bytes)} GiB needed per GPU, "
                f"{_gib(memory.capacity_bytes)} GiB on {accelerator.name}"
            )
    return payload


def _model_flops_mfu(
    result: Any, params: Decimal, tokens: Decimal, active_params: Decimal | None
) -> Decimal:
    """The MFU on the plain model-FLOPs basis (6·N·T, or 6·N_active·T for moe)."""
    work = active_params if result.method == "moe" and active_params is not None else params
    return div(mul(result.mfu, 6, work, tokens), Decimal(result.flops))


def _gib(value: Any) -> str:
    return f"{float(value) / _GIB:,.1f}"

"""The `estimate` command's payload and table: parse the options, price the run, show assumptions.

Option values arrive as text and are read as exact Decimals ("7e9", "2.40"); a bad value is
reported with the option's name.
"""

from __future__ import annotations

from dataclasses import asdict
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.errors import InputError
from trainbudget.estimate.catalog import PRECISIONS, Accelerator, get_accelerator
from trainbudget.estimate.exact import mul, parse_number
from trainbudget.estimate.memory import training_memory
from trainbudget.estimate.run import default_mfu, estimate_run

if TYPE_CHECKING:
    from trainbudget.estimate.mfu_sources import LedgerMfu

_GIB = 1024**3


def parse_gpus(text: str) -> int:
    """A positive whole GPU count from option text."""
    value = parse_number("--gpus", text)
    if value is None or value != value.to_integral_value() or value < 1:
        raise InputError(f"--gpus: must be a positive integer, got {text!r}")
    return int(value)


def resolve_peak(
    gpu: str | None, gpu_tflops: str | None, precision: str
) -> tuple[Accelerator | None, Decimal, str]:
    """The accelerator (if named), one GPU's dense peak FLOP/s and where the peak came from."""
    if precision.lower() not in PRECISIONS:
        raise InputError(f"--precision: must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    accelerator = get_accelerator(gpu) if gpu else None
    override = parse_number("--gpu-tflops", gpu_tflops)
    if override is not None:
        if override <= 0:
            raise InputError(f"--gpu-tflops: must be positive, got {gpu_tflops!r}")
        return accelerator, override * 10**12, "--gpu-tflops"
    if accelerator is not None:
        return (
            accelerator,
            accelerator.peak_flops_per_second(precision),
            (f"catalog: {accelerator.source}"),
        )
    raise InputError("--gpu: give a catalog name (e.g. A100-80GB) or --gpu-tflops")


def build_estimate(
    *,
    params: str,
    tokens: str,
    gpus: str,
    price: str,
    gpu: str | None = None,
    gpu_tflops: str | None = None,
    precision: str = "bf16",
    mfu: str | None = None,
    model_class: str = "dense",
    method: str = "6nt",
    active_params: str | None = None,
    n_layers: int | None = None,
    d_model: int | None = None,
    seq_len: int | None = None,
    heads: int | None = None,
    micro_batch: int | None = None,
    recompute: str = "none",
    zero_stage: int = 0,
    tensor_parallel: int = 1,
    measured: LedgerMfu | None = None,
) -> dict[str, Any]:
    """Price one run from command-line text; return the JSON payload (contract keys first).

    `measured` is an MFU read from the ledger (`--mfu-from`); it replaces --mfu and the class
    default, and its provenance is the payload's `mfu_from` (null otherwise).
    """
    n = parse_number("--params", params)
    t = parse_number("--tokens", tokens)
    if n is None or n <= 0:
        raise InputError(f"--params: must be positive, got {params!r}")
    if t is None or t < 1:
        raise InputError(f"--tokens: must be at least 1, got {tokens!r}")
    gpu_count = parse_gpus(gpus)
    usd = parse_number("--price", price)
    if usd is None or usd < 0:
        raise InputError(f"--price: must be zero or more dollars per GPU-hour, got {price!r}")

    accelerator, peak, peak_source = resolve_peak(gpu, gpu_tflops, precision)

    if measured is not None:
        if mfu is not None:
            raise InputError("--mfu-from: give either --mfu or --mfu-from, not both")
        utilisation, mfu_source = measured.mfu, measured.mfu_source
    elif mfu is None:
        utilisation, mfu_source = default_mfu(model_class), "class-default"
    else:
        value = parse_number("--mfu", mfu)
        if value is None or value <= 0 or value > 1:
            raise InputError(f"--mfu: must be in (0, 1], got {mfu!r}")
        utilisation, mfu_source = value, "user"

    result = estimate_run(
        n,
        t,
        gpu_count,
        peak,
        utilisation,
        usd,
        mfu_source=mfu_source,
        method=method,
        active_params=parse_number("--active-params", active_params),
        n_layers=n_layers,
        d_model=d_model,
        seq_len=seq_len,
    )
    payload: dict[str, Any] = {
        "flops": Decimal(result.flops),
        "wall_seconds": result.wall_seconds,
        "wall_hours": result.wall_hours,
        "wall_days": result.wall_days,
        "gpu_hours": result.gpu_hours,
        "dollar_cost": result.dollar_cost,
        "params": n,
        "tokens": t,
        "gpus": gpu_count,
        "gpu": accelerator.name if accelerator else None,
        "precision": precision.lower(),
        "peak_flops_per_second": peak,
        "peak_source": peak_source,
        "aggregate_flops_per_second": mul(gpu_count, peak, utilisation),
        "mfu": utilisation,
        "mfu_source": mfu_source,
        "mfu_from": None if measured is None else measured.to_payload(),
        "model_class": model_class if mfu_source == "class-default" else None,
        "price_usd_per_gpu_hour": usd,
        "method": result.method,
        "formula": result.formula,
        "memory": None,
        "warnings": list(result.warnings) + ([] if measured is None else measured.warnings),
    }
    if micro_batch is not None:
        missing = [
            opt
            for opt, value in (
                ("--n-layers", n_layers),
                ("--d-model", d_model),
                ("--heads", heads),
                ("--seq-len", seq_len),
            )
            if value is None
        ]
        if missing:
            raise InputError(f"{missing[0]}: required by the memory check (--micro-batch)")
        memory = training_memory(
            n,
            n_layers=n_layers,
            d_model=d_model,
            heads=heads,
            seq_len=seq_len,
            micro_batch=micro_batch,
            gpus=gpu_count,
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


def _gib(value: Any) -> str:
    return f"{float(value) / _GIB:,.1f}"


def _mfu_text(payload: dict[str, Any]) -> str:
    """The MFU as given by the user, or a measured one to 4 significant digits (exact: --json)."""
    return f"{float(payload['mfu']):.4g}" if payload.get("mfu_from") else str(payload["mfu"])


def render_estimate(console: Any, payload: dict[str, Any]) -> None:
    """The small table of seed 004 (FLOPs, wall hours, days, GPU-hours, $) and its assumptions."""
    from rich.table import Table

    table = Table(title="training run estimate", show_header=True)
    table.add_column("quantity")
    table.add_column("value", justify="right")
    table.add_row("FLOPs", f"{float(payload['flops']):.4g}")
    table.add_row("wall seconds", f"{float(payload['wall_seconds']):,.0f}")
    table.add_row("wall hours", f"{float(payload['wall_hours']):,.1f}")
    table.add_row("wall days", f"{float(payload['wall_days']):,.1f}")
    table.add_row("GPU-hours", f"{float(payload['gpu_hours']):,.1f}")
    table.add_row("dollars", f"${float(payload['dollar_cost']):,.2f}")
    console.print(table)
    gpu = payload["gpu"] or "GPU"
    console.print(
        f"assumptions: FLOPs = {payload['formula']}; "
        f"{payload['gpus']} × {gpu} at {float(payload['peak_flops_per_second']):.4g} FLOP/s "
        f"({payload['precision']} dense peak, {payload['peak_source']}); "
        f"MFU {_mfu_text(payload)} ({payload['mfu_source']}); "
        f"${payload['price_usd_per_gpu_hour']} per GPU-hour."
    )
    if payload.get("mfu_from"):
        console.print(f"MFU from the ledger: {payload['mfu_from']['note']}")
    console.print(
        "wall time = FLOPs / (GPUs · peak · MFU); dollars = wall hours · GPUs · $/GPU-hour. "
        "Exact values: --json. Estimates are a lower bound on cost."
    )
    memory = payload["memory"]
    if memory:
        verdict = {True: "fits", False: "DOES NOT FIT", None: "no capacity to compare"}
        console.print(
            f"memory per GPU: weights {_gib(memory['weights_bytes'])} + gradients "
            f"{_gib(memory['gradients_bytes'])} + optimizer {_gib(memory['optimizer_bytes'])} + "
            f"activations {_gib(memory['activations_bytes'])} = "
            f"{_gib(memory['total_bytes'])} GiB; {verdict[memory['fits']]}"
            + (
                f" (headroom {_gib(memory['headroom_bytes'])} GiB)"
                if memory["headroom_bytes"] is not None
                else ""
            )
        )

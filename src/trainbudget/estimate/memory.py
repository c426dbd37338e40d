"""Per-GPU training memory: model states (ZeRO / tensor-parallel sharded) plus activations.

Model states follow Rajbhandari et al. 2020 (ZeRO, sec. 3.1 and fig. 1): mixed-precision Adam
holds 2 bytes of fp16/bf16 weights, 2 of gradients and 12 of optimizer state (fp32 master copy,
momentum, variance) per parameter — 16 bytes in all. Activations follow Korthikanti et al. 2022
("Reducing Activation Recomputation in Large Transformer Models", table 2), in bytes per layer.
Pipeline parallelism and framework buffers are not modelled; check with a one-step run.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from trainbudget.base.errors import InputError
from trainbudget.estimate.exact import Numeric, div, mul, to_decimal

RECOMPUTE_MODES = ("none", "selective", "full")


@dataclass(frozen=True)
class StateBytes:
    """Bytes per parameter of each model state; defaults are mixed-precision Adam (16 total)."""

    weights: int = 2
    gradients: int = 2
    optimizer: int = 12


@dataclass(frozen=True)
class MemoryEstimate:
    """Per-GPU bytes by component, the accelerator's capacity, whether it fits and the headroom."""

    weights_bytes: Decimal
    gradients_bytes: Decimal
    optimizer_bytes: Decimal
    activations_bytes: Decimal
    total_bytes: Decimal
    capacity_bytes: int | None
    fits: bool | None
    headroom_bytes: Decimal | None
    zero_stage: int
    data_parallel: int
    tensor_parallel: int
    recompute: str
    activation_formula: str


def model_state_bytes(
    params: Numeric,
    *,
    zero_stage: int = 0,
    data_parallel: int = 1,
    tensor_parallel: int = 1,
    state: StateBytes = StateBytes(),
) -> tuple[Decimal, Decimal, Decimal]:
    """(weights, gradients, optimizer) bytes on one GPU.

    Tensor parallelism splits every state t ways; ZeRO stage 1 shards optimizer state over the
    data-parallel ranks, stage 2 also gradients, stage 3 also weights (ZeRO, sec. 5).
    """
    if zero_stage not in (0, 1, 2, 3):
        raise InputError(f"zero_stage: must be 0, 1, 2 or 3, got {zero_stage}")
    for name, value in (("data_parallel", data_parallel), ("tensor_parallel", tensor_parallel)):
        if value < 1:
            raise InputError(f"{name}: must be a positive integer, got {value}")
    per_rank = div(params, tensor_parallel)
    weights = mul(per_rank, state.weights)
    gradients = mul(per_rank, state.gradients)
    optimizer = mul(per_rank, state.optimizer)
    if zero_stage >= 1:
        optimizer = div(optimizer, data_parallel)
    if zero_stage >= 2:
        gradients = div(gradients, data_parallel)
    if zero_stage >= 3:
        weights = div(weights, data_parallel)
    return weights, gradients, optimizer


def activation_bytes_per_layer(
    seq_len: int,
    micro_batch: int,
    d_model: int,
    heads: int,
    *,
    recompute: str = "none",
    tensor_parallel: int = 1,
    sequence_parallel: bool = False,
) -> tuple[Decimal, str]:
    """Activation bytes of one transformer layer on one GPU, and the formula used.

    Korthikanti et al. 2022, table 2 (16-bit activations; s sequence, b micro-batch, h hidden,
    a heads, t tensor-parallel degree).
    """
    s, b, h, a, t = seq_len, micro_batch, d_model, heads, tensor_parallel
    sbh = Decimal(s * b * h)
    if recompute == "full":
        return mul(2, sbh), "2·s·b·h (full recomputation: only each layer's input is kept)"
    attention = div(5 * a * s, h)
    if recompute == "selective":
        if sequence_parallel:
            return div(mul(34, sbh), t), "34·s·b·h/t (selective recomputation, sequence parallel)"
        return mul(sbh, 10 + div(24, t)), "s·b·h·(10 + 24/t) (selective recomputation)"
    if recompute != "none":
        raise InputError(
            f"recompute: must be one of {', '.join(RECOMPUTE_MODES)}, got {recompute!r}"
        )
    if sequence_parallel:
        return div(mul(sbh, 34 + attention), t), "s·b·h/t·(34 + 5·a·s/h) (sequence parallel)"
    return (
        mul(sbh, 10 + div(24, t) + div(attention, t)),
        "s·b·h·(10 + 24/t + 5·a·s/(h·t)) (no recomputation; t = 1 gives 34 + 5·a·s/h)",
    )


def training_memory(
    params: Numeric,
    *,
    n_layers: int,
    d_model: int,
    heads: int,
    seq_len: int,
    micro_batch: int,
    gpus: int,
    tensor_parallel: int = 1,
    zero_stage: int = 0,
    recompute: str = "none",
    sequence_parallel: bool = False,
    state: StateBytes = StateBytes(),
    capacity_bytes: int | None = None,
) -> MemoryEstimate:
    """Per-GPU training memory, compared with `capacity_bytes` when given.

    The data-parallel degree is gpus / tensor_parallel (no pipeline parallelism).
    """
    for name, value in (
        ("n_layers", n_layers),
        ("d_model", d_model),
        ("heads", heads),
        ("seq_len", seq_len),
        ("micro_batch", micro_batch),
        ("gpus", gpus),
        ("tensor_parallel", tensor_parallel),
    ):
        if value is None or value < 1:
            raise InputError(f"{name}: must be a positive integer, got {value}")
    if gpus % tensor_parallel:
        raise InputError(
            f"tensor_parallel: {tensor_parallel} does not divide the {gpus} GPUs evenly"
        )
    if to_decimal(params) <= 0:
        raise InputError(f"params: must be positive, got {params}")
    data_parallel = gpus // tensor_parallel
    weights, gradients, optimizer = model_state_bytes(
        params,
        zero_stage=zero_stage,
        data_parallel=data_parallel,
        tensor_parallel=tensor_parallel,
        state=state,
    )
    per_layer, formula = activation_bytes_per_layer(
        seq_len,
        micro_batch,
        d_model,
        heads,
        recompute=recompute,
        tensor_parallel=tensor_parallel,
        sequence_parallel=sequence_parallel,
    )
    activations = mul(per_layer, n_layers)
    total = weights + gradients + optimizer + activations
    headroom = None if capacity_bytes is None else capacity_bytes - total
    return MemoryEstimate(
        weights_bytes=weights,
        gradients_bytes=gradients,
        optimizer_bytes=optimizer,
        activations_bytes=activations,
        total_bytes=total,
        capacity_bytes=capacity_bytes,
        fits=None if headroom is None else headroom >= 0,
        headroom_bytes=headroom,
        zero_stage=zero_stage,
        data_parallel=data_parallel,
        tensor_parallel=tensor_parallel,
        recompute=recompute,
        activation_formula=f"{n_layers} layers × {formula}",
    )

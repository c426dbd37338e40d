"""The main run's parallel layout: the most loaded rank's memory and the pipeline bubble.

Layout (Megatron-LM's names): tp tensor, pp pipeline, ep expert parallel; dp = gpus ÷ (tp·pp);
m = global_batch ÷ (micro_batch·dp) micro-batches per step; v virtual stages.

Bubble (Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU Clusters
Using Megatron-LM", sec. 2.2): ((p − 1)/v) ÷ (m + (p − 1)/v) of a step's wall time.

Memory of the most loaded rank, the first pipeline stage (Megatron-LM
megatron/training/theoretical_memory_usage.py, commit d98e8a6; Korthikanti et al. 2022,
"Reducing Activation Recomputation in Large Transformer Models", table 2), in bytes:
  parameters  P = (D/p + E)/t + X/(p·ep)  [+ E/t more untied at p = 1], with E = V·h the
              embedding, X the routed-expert parameters (sharded by ep alone, expert tensor
              parallelism 1), D = N − E·(1 tied, 2 untied) − X the rest; layer norms are
              counted as tensor-sharded (Megatron replicates them: < 0.01 % of P).
  states      2 bytes of bf16 weights, 4 of fp32 gradients, 12 of optimizer (fp32 master
              copy and two Adam moments; Megatron's 18 bytes per parameter); ZeRO stage ≥ 1
              (Megatron's distributed optimizer) divides the optimizer by the data-parallel
              ranks (dp, or gpus ÷ (ep·p) for experts), ≥ 2 the gradients, 3 the weights.
  activations per layer and micro-batch (s sequence, b micro_batch, h d_model, a n_heads):
              none:      sbh·(10 + 24/t + 5as/(ht)),  sequence parallel sbh·(34/t + 5as/(ht))
              selective: sbh·(10 + 24/t),              sequence parallel sbh·34/t
              full:      2·sbh,                        sequence parallel 2·sbh/t
              × n_layers (p micro-batches in flight on the first stage's n_layers/p layers),
              + (8sb + sbh)·p for the embedding's input and dropout (÷ t with sequence
              parallelism), all × (1 + (p − 1)/(p·v)) with v > 1 (interleaving) or × min(1,
              m/p) with v = 1, + 4sbh·(1 + V/h) (÷ t with sequence parallelism) for the output
              layer when p = 1. The MLP is taken as 4h wide (Korthikanti's 34 = 18 + 4·4).
Exact: Fractions throughout, Decimals out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Context, Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError

if TYPE_CHECKING:
    from trainbudget.plan import Plan

_CTX = Context(prec=50)
GIB = 2**30
WEIGHT_BYTES, GRADIENT_BYTES, OPTIMIZER_BYTES = 2, 4, 12


def _dec(value: Fraction) -> Decimal:
    return _CTX.divide(Decimal(value.numerator), Decimal(value.denominator))


def bubble_share(p: int, v: int, m: int | Fraction) -> Fraction:
    """The pipeline bubble's share of a step: ((p − 1)/v) ÷ (m + (p − 1)/v)."""
    idle = Fraction(p - 1, v)
    return idle / (Fraction(m) + idle) if idle else Fraction(0)


@dataclass(frozen=True)
class Shape:
    """What the memory model needs of the model (main.params and main.flops)."""

    params: Fraction
    n_layers: int
    d_model: int
    seq_len: int
    vocab: int = 0
    n_heads: int | None = None
    tied_embeddings: bool = False
    expert_params: Fraction = Fraction(0)


@dataclass(frozen=True)
class Grid:
    """The parallel layout on `gpus` accelerators."""

    gpus: int
    global_batch: int
    tp: int = 1
    pp: int = 1
    ep: int = 1
    micro_batch: int = 1
    virtual_stages: int = 1
    sequence_parallel: bool = False
    recompute: str = "none"
    zero_stage: int = 0

    @property
    def dp(self) -> int:
        return self.gpus // (self.tp * self.pp)

    @property
    def micro_batches(self) -> Fraction:
        return Fraction(self.global_batch, self.micro_batch * self.dp)


def rank_parameters(shape: Shape, grid: Grid) -> tuple[Fraction, Fraction]:
    """(non-expert, expert) parameters held by the most loaded rank (the first stage)."""
    embedding = Fraction(shape.vocab * shape.d_model)
    rest = shape.params - embedding * (1 if shape.tied_embeddings else 2) - shape.expert_params
    if rest < 0:
        raise InputError(
            "main.params: smaller than its embeddings and expert_params; check vocab and d_model"
        )
    dense = (rest / grid.pp + embedding) / grid.tp
    if not shape.tied_embeddings and grid.pp == 1:
        dense += embedding / grid.tp
    return dense, shape.expert_params / (grid.pp * grid.ep)


def state_bytes(shape: Shape, grid: Grid) -> tuple[Fraction, Fraction, Fraction]:
    """(weights, gradients, optimizer) bytes on the most loaded rank under ZeRO."""
    dense, expert = rank_parameters(shape, grid)
    expert_dp = grid.gpus // (grid.ep * grid.pp)

    def sharded(nbytes: int, stage: int) -> Fraction:
        if grid.zero_stage >= stage:
            return nbytes * dense / grid.dp + nbytes * expert / expert_dp
        return nbytes * (dense + expert)

    return sharded(WEIGHT_BYTES, 3), sharded(GRADIENT_BYTES, 2), sharded(OPTIMIZER_BYTES, 1)


def layer_activation_bytes(shape: Shape, grid: Grid) -> Fraction:
    """One layer's activations for one micro-batch (Korthikanti et al. 2022, table 2)."""
    s, b, h, t = shape.seq_len, grid.micro_batch, shape.d_model, grid.tp
    sbh = Fraction(s * b * h)
    if grid.recompute == "full":
        return 2 * sbh / (t if grid.sequence_parallel else 1)
    base = Fraction(34, t) if grid.sequence_parallel else 10 + Fraction(24, t)
    if grid.recompute == "none":
        if shape.n_heads is None:
            raise InputError("main.flops.n_heads: recompute none needs the attention heads")
        base += Fraction(5 * shape.n_heads * s, h * t)
    return sbh * base


def activation_bytes(shape: Shape, grid: Grid) -> Fraction:
    """The first stage's activations for its in-flight micro-batches (module docstring)."""
    s, b, h, p, v = shape.seq_len, grid.micro_batch, shape.d_model, grid.pp, grid.virtual_stages
    split = grid.tp if grid.sequence_parallel else 1
    total = layer_activation_bytes(shape, grid) * shape.n_layers
    total += Fraction((8 * s * b + s * b * h) * p, split)
    if v > 1:
        total *= 1 + Fraction(p - 1, p * v)
    elif p > 1:
        total *= min(Fraction(1), grid.micro_batches / p)
    if p == 1:
        total += Fraction(4 * s * b * h, split) * (1 + Fraction(shape.vocab, h))
    return total


@dataclass(frozen=True)
class Layout:
    """The layout's bubble and most-loaded-rank memory, as campaign --json reports them."""

    bubble_share: Decimal
    micro_batches: Decimal
    data_parallel: int
    weights: Decimal
    gradients: Decimal
    optimizer: Decimal
    activations: Decimal
    total: Decimal
    capacity_bytes: int | None
    fits: bool | None
    warnings: list[str] = field(default_factory=list)

    def memory_payload(self) -> dict[str, Any]:
        return {
            "bytes": self.total,
            "weights": self.weights,
            "gradients": self.gradients,
            "optimizer": self.optimizer,
            "activations": self.activations,
            "fits": self.fits,
            "capacity_bytes": self.capacity_bytes,
        }


def plan_layout(plan: Plan) -> Layout:
    """The layout of `plan.main.parallel` (checked by plan/forecast.py) on `main.gpu`."""
    main, layout = plan.main, plan.main.parallel
    spec = main.flops
    expert = layout.expert_params
    if expert is None and layout.ep > 1:
        expert = main.params - main.active_params  # a lower bound: the routed experts unused
    shape = Shape(
        params=Fraction(main.params),
        n_layers=spec.n_layers,
        d_model=spec.d_model,
        seq_len=spec.seq_len,
        vocab=spec.vocab or 0,
        n_heads=spec.n_heads,
        tied_embeddings=spec.tied_embeddings,
        expert_params=Fraction(expert or 0),
    )
    grid = Grid(
        gpus=main.gpus,
        global_batch=layout.global_batch,
        tp=layout.tp,
        pp=layout.pp,
        ep=layout.ep,
        micro_batch=layout.micro_batch,
        virtual_stages=layout.virtual_stages,
        sequence_parallel=layout.sequence_parallel,
        recompute=layout.recompute,
        zero_stage=layout.zero_stage,
    )
    return layout_of(shape, grid, main.gpu)


def layout_of(shape: Shape, grid: Grid, gpu: str | None, label: str = "main.parallel") -> Layout:
    """Bubble and memory of `grid` for `shape`, checked against `gpu`'s memory if named; the
    warning when it does not fit names the layout as `label` (the plan's key, or the flags)."""
    weights, gradients, optimizer = state_bytes(shape, grid)
    activations = activation_bytes(shape, grid)
    total = weights + gradients + optimizer + activations
    capacity = fits = None
    warnings = []
    if gpu is not None:
        from trainbudget.estimate.catalog import get_accelerator

        capacity = get_accelerator(gpu).memory_bytes
        fits = total <= capacity
        if not fits:
            warnings.append(
                f"{label}: the most loaded rank needs {float(total) / GIB:,.1f} GiB "
                f"(weights {float(weights) / GIB:,.1f}, gradients {float(gradients) / GIB:,.1f}, "
                f"optimizer {float(optimizer) / GIB:,.1f}, activations "
                f"{float(activations) / GIB:,.1f}); {gpu} has {capacity / GIB:,.0f} GiB: "
                "the layout does not fit (raise tp, pp or ep, the ZeRO stage, or recompute)"
            )
    share = bubble_share(grid.pp, grid.virtual_stages, grid.micro_batches)
    return Layout(
        bubble_share=_dec(share),
        micro_batches=_dec(grid.micro_batches),
        data_parallel=grid.dp,
        weights=_dec(weights),
        gradients=_dec(gradients),
        optimizer=_dec(optimizer),
        activations=_dec(activations),
        total=_dec(total),
        capacity_bytes=capacity,
        fits=fits,
        warnings=warnings,
    )

"""One run's `estimate` payload: price the run, choose its MFU, check memory, list assumptions.

Takes parsed values (Decimal, int) as one RunInputs, the run's inputs declared once; the command
line fills it by keyword from its options. The payload is the `estimate --json` contract: its
first six keys are DESIGN.md's, the rest say where each figure came from.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.estimate.catalog import PRECISIONS, Accelerator
from trainbudget.estimate.exact import div, mul
from trainbudget.estimate.memory import training_memory
from trainbudget.estimate.run import estimate_run, implied_class

if TYPE_CHECKING:
    from trainbudget.estimate.mfu_sources import LedgerMfu

_GIB = 1024**3
MEMORY_FIELDS = ("n_layers", "d_model", "heads", "seq_len")
LAYOUT_FIELDS = ("n_layers", "d_model", "seq_len")


def catalog_peak(accelerator: Accelerator, precision: str) -> tuple[Decimal, str]:
    """One GPU's dense peak FLOP/s at `precision` from the catalog, and where it came from."""
    if precision.lower() not in PRECISIONS:
        raise InputError(f"precision: must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    return accelerator.peak_flops_per_second(precision), f"catalog: {accelerator.source}"


@dataclass(frozen=True, kw_only=True)
class RunInputs:
    """One run's shape and price, parsed: parameters, tokens, GPUs, $/GPU-hour, the peak in
    FLOP/s (and where it came from), the MFU or its rule, the FLOPs basis and the memory shape.

    Checked when built, naming the field: an MFU and a measured one, FLOPs terms beside the
    method that is that term, a term or the memory check (`micro_batch`) without its shape.
    """

    params: Decimal
    tokens: Decimal
    gpus: int
    price: Decimal
    accelerator: Accelerator | None
    peak_flops_per_second: Decimal
    peak_source: str
    precision: str = "bf16"
    mfu: Decimal | None = None
    model_class: str | None = None
    method: str = "6nt"
    active_params: Decimal | None = None
    n_layers: int | None = None
    d_model: int | None = None
    seq_len: int | None = None
    vocab: int | None = None
    flops_terms: tuple[str, ...] = ()
    heads: int | None = None
    micro_batch: int | None = None
    recompute: str = "none"
    zero_stage: int = 0
    tensor_parallel: int = 1
    global_batch: int | None = None
    pp: int | None = None
    ep: int | None = None
    virtual_stages: int | None = None
    sequence_parallel: bool = False
    measured: LedgerMfu | None = None

    def __post_init__(self) -> None:
        from trainbudget.estimate.flops_basis import TERM_NEEDS

        if self.measured is not None and self.mfu is not None:
            raise InputError("mfu: give either an MFU or one measured in the ledger, not both")
        if self.flops_terms and self.method in ("attention", "recompute"):
            raise InputError(
                f"flops_terms: give the terms or method {self.method}, not both "
                f"(method {self.method} is the term {self.method})"
            )
        for term in self.flops_terms:
            for name in TERM_NEEDS.get(term, ()):
                if getattr(self, name) is None:
                    raise InputError(f"{name}: required by the {term} term of flops_terms")
        if self.micro_batch is not None:
            missing = [name for name in MEMORY_FIELDS if getattr(self, name) is None]
            if missing:
                raise InputError(f"{missing[0]}: required by the memory check (micro_batch)")
        if self.has_layout:
            self._check_layout()

    @property
    def has_layout(self) -> bool:
        """A parallel layout was given (global_batch, pp, ep, virtual_stages, sequence_parallel)."""
        given = (self.global_batch, self.pp, self.ep, self.virtual_stages)
        return self.sequence_parallel or any(value is not None for value in given)

    def _check_layout(self) -> None:
        """The layout against the GPUs and the shape (as plan/forecast.py checks main.parallel)."""
        if self.global_batch is None:
            raise InputError(
                "global_batch: required by the layout (pp, ep, virtual_stages, sequence_parallel)"
            )
        for name in LAYOUT_FIELDS:
            if getattr(self, name) is None:
                raise InputError(f"{name}: required by the layout's memory (global_batch)")
        if self.recompute == "none" and self.heads is None:
            raise InputError("heads: required by the layout's memory without recomputation")
        if self.recompute not in ("none", "selective", "full"):
            raise InputError(
                f"recompute: must be one of none, selective, full, got {self.recompute!r}"
            )
        tp, pp, ep = self.tensor_parallel, self.pp or 1, self.ep or 1
        if self.gpus % (tp * pp):
            raise InputError(f"pp: {pp} × tp {tp} does not divide the {self.gpus} GPUs")
        dp = self.gpus // (tp * pp)
        if self.global_batch % ((self.micro_batch or 1) * dp):
            raise InputError(
                f"global_batch: {self.global_batch} is not a multiple of the micro-batch × the "
                f"data-parallel ranks = {self.micro_batch or 1} × {dp}"
            )
        if (tp * dp) % ep:
            raise InputError(f"ep: {ep} does not divide tp × the data-parallel ranks = {tp} × {dp}")
        if ep > 1 and self.active_params is None:
            raise InputError("ep: above 1 needs active_params (the experts: params − active)")
        if (self.virtual_stages or 1) > 1 and pp == 1:
            raise InputError("virtual_stages: an interleaved schedule needs pp > 1")
        embeddings = (self.vocab or 0) * (self.d_model or 0) * 2
        if embeddings + self._expert_params() > self.params:
            raise InputError(
                "vocab: the embeddings (2 × vocab × d_model) and the experts exceed the parameters"
            )

    def _expert_params(self) -> Decimal:
        """The routed experts' parameters, bounded below by params − active_params (ep > 1)."""
        if (self.ep or 1) > 1 and self.active_params is not None:
            return self.params - self.active_params
        return Decimal(0)


RUN_FIELDS = tuple(field.name for field in fields(RunInputs))


def estimate_payload(run: RunInputs | None = None, /, **inputs: Any) -> dict[str, Any]:
    """Price one run (price in $/GPU-hour, peak in FLOP/s); the JSON payload, contract keys first.

    The MFU is `measured` (read from the ledger) if given, else `mfu`, else the throughput
    prior's median (by model class, the moe method implying moe, and precision; the payload's
    `throughput_prior` says which; cnn/snn take seed 004's class default); its provenance is the
    payload's `mfu_source` and `mfu_from` (null unless measured). The MFU counts the FLOPs of
    `method` plus `flops_terms` (the payload's `flops_basis`). Given a RunInputs, or its
    fields by keyword.
    """
    run = RunInputs(**inputs) if run is None else run
    params, tokens, gpus, price = run.params, run.tokens, run.gpus, run.price
    accelerator, peak_flops_per_second = run.accelerator, run.peak_flops_per_second
    precision, mfu, measured, method = run.precision, run.mfu, run.measured, run.method
    active_params, n_layers, d_model, seq_len = (
        run.active_params, run.n_layers, run.d_model, run.seq_len,
    )  # fmt: skip
    model_class = implied_class(run.model_class, method)
    assumed_note = None
    if measured is not None:
        utilisation, mfu_source = measured.mfu, measured.mfu_source
    elif mfu is None:  # no --mfu: the throughput prior, named in the payload
        from trainbudget.estimate.throughput_prior import assumed_mfu

        assumed = assumed_mfu(model_class, precision)
        utilisation, mfu_source = assumed.mfu, assumed.source
        assumed_note = assumed.note
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
        terms=run.flops_terms,
        vocab=run.vocab,
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
        "peak_source": run.peak_source,
        "aggregate_flops_per_second": mul(gpus, peak_flops_per_second, utilisation),
        "mfu": utilisation,
        "mfu_source": mfu_source,
        "mfu_from": None if measured is None else measured.to_payload(),
        "model_class": model_class if assumed_note else None,
        "price_usd_per_gpu_hour": price,
        "method": result.method,
        "formula": result.formula,
        "flops_basis": result.flops_basis,
        "flops_terms": list(result.flops_terms),
        "model_flops_mfu": _model_flops_mfu(result, params, tokens, active_params),
        "memory": None,
        "throughput_prior": assumed_note,
        "warnings": list(result.warnings) + ([] if measured is None else measured.warnings),
    }
    if run.micro_batch is not None:
        memory = training_memory(
            params,
            n_layers=n_layers,
            d_model=d_model,
            heads=run.heads,
            seq_len=seq_len,
            micro_batch=run.micro_batch,
            gpus=gpus,
            tensor_parallel=run.tensor_parallel,
            zero_stage=run.zero_stage,
            recompute=run.recompute,
            capacity_bytes=accelerator.memory_bytes if accelerator else None,
        )
        payload["memory"] = asdict(memory)
        if memory.fits is False:
            payload["warnings"].append(
                f"does not fit: {_gib(memory.total_bytes)} GiB needed per GPU, "
                f"{_gib(memory.capacity_bytes)} GiB on {accelerator.name}"
            )
    if run.has_layout:
        _add_layout(payload, run)
    return payload


def _add_layout(payload: dict[str, Any], run: RunInputs) -> None:
    """The most loaded rank's memory and the pipeline bubble of the layout (estimate/parallel.py,
    as `campaign` gives them for main.parallel), and a warning when it does not fit."""
    from fractions import Fraction

    from trainbudget.estimate.parallel import Grid, Shape, layout_of

    shape = Shape(
        params=Fraction(run.params),
        n_layers=run.n_layers,
        d_model=run.d_model,
        seq_len=run.seq_len,
        vocab=run.vocab or 0,
        n_heads=run.heads,
        expert_params=Fraction(run._expert_params()),
    )
    grid = Grid(
        gpus=run.gpus,
        global_batch=run.global_batch,
        tp=run.tensor_parallel,
        pp=run.pp or 1,
        ep=run.ep or 1,
        micro_batch=run.micro_batch or 1,
        virtual_stages=run.virtual_stages or 1,
        sequence_parallel=run.sequence_parallel,
        recompute=run.recompute,
        zero_stage=run.zero_stage,
    )
    gpu = run.accelerator.name if run.accelerator else None
    layout = layout_of(shape, grid, gpu, label="layout (--tp --pp --ep)")
    payload["pipeline_bubble_share"] = layout.bubble_share
    payload["pipeline_micro_batches"] = layout.micro_batches
    payload["memory_most_loaded_rank"] = layout.memory_payload()
    payload["warnings"].extend(layout.warnings)


def _model_flops_mfu(
    result: Any, params: Decimal, tokens: Decimal, active_params: Decimal | None
) -> Decimal:
    """The MFU on the plain model-FLOPs basis (6·N·T, or 6·N_active·T for moe)."""
    work = active_params if result.method == "moe" and active_params is not None else params
    return div(mul(result.mfu, 6, work, tokens), Decimal(result.flops))


def _gib(value: Any) -> str:
    return f"{float(value) / _GIB:,.1f}"

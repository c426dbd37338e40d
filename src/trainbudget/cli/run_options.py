"""The options that shape and price one run (`estimate`, `decide`), read into the estimate.

Every flag is parsed here, by the one parser of cli/options.py, so an error names the flag;
the payload itself is the estimate stage's (estimate/run_payload.py).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.cli import options
from trainbudget.estimate.catalog import PRECISIONS, Accelerator, get_accelerator
from trainbudget.estimate.exact import mul
from trainbudget.estimate.run_payload import catalog_peak, estimate_payload

if TYPE_CHECKING:
    from trainbudget.estimate.mfu_sources import LedgerMfu


def resolve_peak(
    gpu: str | None, gpu_tflops: str | None, precision: str
) -> tuple[Accelerator | None, Decimal, str]:
    """The accelerator (if named), one GPU's dense peak FLOP/s and where the peak came from."""
    if precision.lower() not in PRECISIONS:
        raise InputError(f"--precision: must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    accelerator = get_accelerator(gpu) if gpu else None
    override = options.positive("--gpu-tflops", gpu_tflops)
    if override is not None:
        return accelerator, mul(override, 10**12), "--gpu-tflops"
    if accelerator is None:
        raise InputError("--gpu: give a catalog name (e.g. A100-80GB) or --gpu-tflops")
    peak, source = catalog_peak(accelerator, precision)
    return accelerator, peak, source


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
    model_class: str | None = None,
    method: str = "6nt",
    active_params: str | None = None,
    n_layers: int | None = None,
    d_model: int | None = None,
    seq_len: int | None = None,
    vocab: int | None = None,
    flops_terms: str | None = None,
    heads: int | None = None,
    micro_batch: int | None = None,
    recompute: str = "none",
    zero_stage: int = 0,
    tensor_parallel: int = 1,
    measured: LedgerMfu | None = None,
) -> dict[str, Any]:
    """Price one run from command-line text; the `estimate --json` payload.

    `measured` is an MFU read from the ledger (`--mfu-from`); it replaces --mfu and the class
    default.
    """
    n = options.positive("--params", params)
    t = options.at_least("--tokens", tokens, 1)
    gpu_count = options.count("--gpus", gpus, minimum=1)
    usd = options.amount("--price", price, "dollars per GPU-hour")
    accelerator, peak, peak_source = resolve_peak(gpu, gpu_tflops, precision)
    if measured is not None and mfu is not None:
        raise InputError("--mfu-from: give either --mfu or --mfu-from, not both")
    terms = _terms(flops_terms)
    if terms and method in ("attention", "recompute"):
        raise InputError(
            f"--flops-terms: give the terms or --method {method}, not both "
            f"(--method {method} is the term {method})"
        )
    _check_term_shapes(
        terms, {"n_layers": n_layers, "d_model": d_model, "seq_len": seq_len, "vocab": vocab}
    )
    if micro_batch is not None:
        shape = {"n_layers": n_layers, "d_model": d_model, "heads": heads, "seq_len": seq_len}
        missing = [name for name, value in shape.items() if value is None]
        if missing:
            flag = "--" + missing[0].replace("_", "-")
            raise InputError(f"{flag}: required by the memory check (--micro-batch)")
    return estimate_payload(
        params=n,
        tokens=t,
        gpus=gpu_count,
        price=usd,
        accelerator=accelerator,
        peak_flops_per_second=peak,
        peak_source=peak_source,
        precision=precision,
        mfu=options.fraction("--mfu", mfu),
        model_class=model_class,
        method=method,
        active_params=options.positive("--active-params", active_params),
        n_layers=n_layers,
        d_model=d_model,
        seq_len=seq_len,
        vocab=vocab,
        flops_terms=terms,
        heads=heads,
        micro_batch=micro_batch,
        recompute=recompute,
        zero_stage=zero_stage,
        tensor_parallel=tensor_parallel,
        measured=measured,
    )


def _terms(text: str | None) -> tuple[str, ...]:
    """--flops-terms as terms; an error names the flag."""
    from trainbudget.estimate.flops_basis import FLOPS_TERMS, parse_terms

    terms = parse_terms(text)
    for term in terms:
        if term not in FLOPS_TERMS:
            raise InputError(
                f"--flops-terms: must be a comma list of {', '.join(FLOPS_TERMS)}, got {text!r}"
            )
    return terms


def _check_term_shapes(terms: tuple[str, ...], shape: dict[str, int | None]) -> None:
    from trainbudget.estimate.flops_basis import TERM_NEEDS

    for term in terms:
        for name in TERM_NEEDS[term]:
            if shape[name] is None:
                flag = "--" + name.replace("_", "-")
                raise InputError(f"{flag}: required by the {term} term of --flops-terms")

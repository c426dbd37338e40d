"""The options that shape and price one run (`estimate`, `decide`), read into the estimate.

The run's inputs are declared once, by the estimate stage (estimate/run_payload.py, RunInputs);
here each option given as text is read by the one parser of cli/options.py, so an error names
the flag, and RunInputs is filled by keyword from the command's options. RunInputs' own checks
name its fields; they are said here with the flags' names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.cli import options
from trainbudget.estimate.catalog import PRECISIONS, Accelerator, get_accelerator
from trainbudget.estimate.exact import mul
from trainbudget.estimate.run_payload import RUN_FIELDS, RunInputs, catalog_peak, estimate_payload

if TYPE_CHECKING:
    from trainbudget.estimate.mfu_sources import LedgerMfu

# The fields RunInputs' checks name (not `recompute`, also a value of --method), said as flags.
_CHECKED = ("mfu", "method", "flops_terms", "micro_batch", "n_layers", "d_model", "seq_len",
            "vocab", "heads", "active_params", "global_batch", "pp", "ep", "virtual_stages",
            "sequence_parallel")  # fmt: skip
_FIELD = re.compile(r"\b(" + "|".join(_CHECKED) + r")\b")


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


# The run's options given as text, each read by its parser; the others pass as click read them.
_PARSERS: dict[str, Callable[[Any], Any]] = {
    "params": lambda text: options.positive("--params", text),
    "tokens": lambda text: options.at_least("--tokens", text, 1),
    "gpus": lambda text: options.count("--gpus", text, minimum=1),
    "price": lambda text: options.amount("--price", text, "dollars per GPU-hour"),
    "mfu": lambda text: options.fraction("--mfu", text),
    "active_params": lambda text: options.positive("--active-params", text),
    "flops_terms": _terms,
    "global_batch": lambda text: options.count("--global-batch", text, minimum=1),
    "pp": lambda text: options.count("--pp", text, minimum=1),
    "ep": lambda text: options.count("--ep", text, minimum=1),
    "virtual_stages": lambda text: options.count("--virtual-stages", text, minimum=1),
}


def build_estimate(given: Mapping[str, Any], measured: LedgerMfu | None = None) -> dict[str, Any]:
    """Price one run from its command-line options, by parameter name (a command's
    `ctx.params`: `params`, `tokens`, `gpus`, `price`, `gpu`, `gpu_tflops`, `precision`, and
    any of RunInputs' other fields); the `estimate --json` payload.

    `measured` is an MFU read from the ledger (`--mfu-from`); it replaces --mfu and the class
    default.
    """
    values = {name: given[name] for name in RUN_FIELDS if given.get(name) is not None}
    for name, parse in _PARSERS.items():
        if name in given:
            values[name] = parse(given[name])
    values = {name: value for name, value in values.items() if value is not None}
    accelerator, peak, source = resolve_peak(
        given.get("gpu"), given.get("gpu_tflops"), given.get("precision") or "bf16"
    )
    if measured is not None and "mfu" in values:
        raise InputError("--mfu-from: give either --mfu or --mfu-from, not both")
    try:
        run = RunInputs(
            **values, accelerator=accelerator, peak_flops_per_second=peak, peak_source=source,
            measured=measured,
        )  # fmt: skip
    except InputError as exc:
        flagged = _FIELD.sub(lambda m: "--" + m.group(1).replace("_", "-"), str(exc))
        raise InputError(flagged) from None
    return estimate_payload(run)

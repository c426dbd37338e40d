"""Training FLOPs for a run: 6·N·T by default, and the variants a user must choose explicitly.

Every method returns an exact number (int or Decimal) of floating-point operations.
"""

from __future__ import annotations

from decimal import Decimal

from trainbudget.base.errors import InputError

FLOPS_METHODS: tuple[str, ...] = ("6nt", "attention", "recompute", "moe")

FORMULAS = {
    # Kaplan et al. 2020, "Scaling Laws for Neural Language Models", section 2.1: 2N forward
    # plus 4N backward FLOPs per token, attention ignored.
    "6nt": "6·N·T (Kaplan et al. 2020, sec. 2.1)",
    # Chowdhery et al. 2022, "PaLM", appendix B: per token 6N + 12·L·H·Q·S, with H·Q = d_model.
    "attention": "(6·N + 12·n_layers·d_model·seq_len)·T (PaLM, Chowdhery et al. 2022, app. B)",
    # Full activation recomputation repeats the forward pass: 2N more per token.
    "recompute": "8·N·T (6·N·T plus one recomputed forward pass, 2·N·T)",
    # Mixture of experts: only the routed (active) parameters do work for a token.
    "moe": "6·N_active·T (6·N·T over the active parameters)",
}

Number = int | Decimal


def training_flops(
    params: Number,
    tokens: Number,
    method: str = "6nt",
    *,
    active_params: Number | None = None,
    n_layers: int | None = None,
    d_model: int | None = None,
    seq_len: int | None = None,
) -> Number:
    """Total training FLOPs for `params` parameters over `tokens` tokens by `method`.

    `attention` needs n_layers, d_model and seq_len; `moe` needs active_params.
    """
    if method == "6nt":
        return 6 * params * tokens
    if method == "recompute":
        return 8 * params * tokens
    if method == "moe":
        if active_params is None:
            raise InputError("active_params: required by the moe FLOPs method")
        if active_params > params:
            raise InputError(f"active_params: {active_params} exceeds the total params {params}")
        return 6 * active_params * tokens
    if method == "attention":
        missing = [
            name
            for name, value in (("n_layers", n_layers), ("d_model", d_model), ("seq_len", seq_len))
            if value is None
        ]
        if missing:
            raise InputError(f"{missing[0]}: required by the attention FLOPs method")
        return (6 * params + 12 * n_layers * d_model * seq_len) * tokens
    raise InputError(f"flops_method: must be one of {', '.join(FLOPS_METHODS)}, got {method!r}")

"""What a FLOP/s figure counts: 6·N·T plus the terms recompute, attention and logits, per token.

Per token, fwd + bwd (N the parameters, or the active ones of a MoE; l layers, h d_model,
s sequence length, V vocabulary):
  6·N                      Kaplan et al. 2020, "Scaling Laws for Neural Language Models", 2.1
  + 12·l·h·s   attention   Chowdhery et al. 2022, "PaLM", appendix B (12·L·H·Q·T)
  + 2·N (+ 4·l·h·s with attention)  recompute: full activation recomputation repeats the
                           forward pass (Korthikanti et al. 2022, "Reducing Activation
                           Recomputation in Large Transformer Models", sec. 5; the logits are
                           not recomputed)
  + 6·V·h      logits      the output projection, for an N that excludes the (un)embedding;
                           nothing with tied embeddings (N holds the shared matrix once, and
                           6·N already counts its output projection)
With n_heads and head_dim, h in the attention terms is n_heads·head_dim (the query width;
the score and value products use every query head, so n_kv_heads does not change them).
With N = 12·l·h² these give, per iteration of B sequences, Korthikanti's model FLOPs
72·B·s·l·h²·(1 + s/6h + V/12lh) and, with recompute, Narayanan et al. 2021 ("Efficient
Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", eq. 3)
96·B·s·l·h²·(1 + s/6h + V/16lh). Recomputation is what makes a figure hardware FLOPs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from trainbudget.base.errors import InputError
from trainbudget.base.vocabulary import FLOPS_TERM_NEEDS as TERM_NEEDS
from trainbudget.base.vocabulary import FLOPS_TERMS

# FLOPS_TERMS and TERM_NEEDS (each term's shape) are the plan's vocabulary (base/vocabulary.py).


Number = int | Decimal


@dataclass(frozen=True)
class FlopsBasis:
    """The terms counted on top of 6·N per token, with the model shape they need."""

    terms: tuple[str, ...] = ()
    moe: bool = False
    n_layers: int | None = None
    d_model: int | None = None
    seq_len: int | None = None
    vocab: int | None = None
    # n_heads × head_dim when the plan gives them (GQA/MQA/MLA or PaLM's 48 × 256 heads need
    # not equal d_model); the attention FLOPs are 12·l·(n_heads·head_dim)·s.
    attention_width: int | None = None
    # The output projection shares the input embedding's matrix, which N already counts once:
    # its 6·V·h is inside 6·N, so the logits term adds nothing more.
    tied_embeddings: bool = False

    @property
    def hardware(self) -> bool:
        """True when the count includes recomputed work (hardware, not model, FLOPs)."""
        return "recompute" in self.terms

    def describe(self) -> str:
        """The basis in words: `model FLOPs 6·N·T`, `hardware FLOPs: 6·N·T + recompute`."""
        base = "6·N_active·T" if self.moe else "6·N·T"
        if not self.terms:
            return f"model FLOPs {base}"
        kind = "hardware FLOPs" if self.hardware else "model FLOPs"
        terms = [
            "logits (in N: tied embeddings)" if t == "logits" and self.tied_embeddings else t
            for t in self.terms
        ]
        return f"{kind}: {base} + {' + '.join(terms)}"

    def formula(self) -> str:
        """The per-token sum as a formula over T (l layers, h d_model, s seq_len, V vocab)."""
        base = "6·N_active" if self.moe else "6·N"
        if not self.terms:
            return f"{base}·T (Kaplan et al. 2020, sec. 2.1)"
        parts = [base]
        if "attention" in self.terms:
            parts.append("12·l·h·s")
        if "recompute" in self.terms:
            parts.append("2·N" + (" + 4·l·h·s" if "attention" in self.terms else ""))
        if "logits" in self.terms:
            parts.append("6·V·h")
        return f"({' + '.join(parts)})·T (docs/forecast.md, FLOPs basis)"

    def per_token(self, params: Number, seq_len: int | None = None) -> Number:
        """Training FLOPs per token for `params` (active) parameters; `seq_len` overrides."""
        s = seq_len or self.seq_len
        width = self.attention_width or self.d_model
        flops = 6 * params
        if "attention" in self.terms:
            flops += 12 * self.n_layers * width * s
        if "recompute" in self.terms:
            flops += 2 * params
            if "attention" in self.terms:
                flops += 4 * self.n_layers * width * s
        if "logits" in self.terms and not self.tied_embeddings:
            flops += 6 * self.vocab * self.d_model
        return flops

    def model_per_token(self, params: Number) -> Number:
        """Model FLOPs per token on the plain 6·N basis (what an MFU is usually quoted on)."""
        return 6 * params


def flops_basis(
    terms: Iterable[str],
    *,
    moe: bool = False,
    n_layers: int | None = None,
    d_model: int | None = None,
    seq_len: int | None = None,
    vocab: int | None = None,
    where: str = "",
) -> FlopsBasis:
    """A checked basis: known, distinct terms, each with its shape; `where` prefixes a field."""
    chosen = tuple(terms)
    for term in chosen:
        if term not in FLOPS_TERMS:
            raise InputError(f"{where}terms: must be among {', '.join(FLOPS_TERMS)}, got {term!r}")
    if len(set(chosen)) != len(chosen):
        raise InputError(f"{where}terms: a term is listed twice: {', '.join(chosen)}")
    shape = {"n_layers": n_layers, "d_model": d_model, "seq_len": seq_len, "vocab": vocab}
    for term in chosen:
        for name in TERM_NEEDS[term]:
            value = shape[name]
            if value is None:
                raise InputError(f"{where}{name}: required by the {term} FLOPs term")
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{where}{name}: must be a positive integer, got {value!r}")
    ordered = tuple(t for t in FLOPS_TERMS if t in chosen)
    return FlopsBasis(ordered, moe, n_layers, d_model, seq_len, vocab)


def parse_terms(text: str | None) -> tuple[str, ...]:
    """`recompute,attention` (a command-line list) as terms; empty or None is none."""
    if not text:
        return ()
    return tuple(part.strip().lower() for part in text.split(",") if part.strip())

"""FLOPs terms on top of 6·N·T against the published per-iteration formulas."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.estimate.flops_basis import flops_basis
from trainbudget.estimate.run import default_mfu, estimate_run, implied_class

shapes = st.tuples(
    st.integers(min_value=1, max_value=200),  # l layers
    st.integers(min_value=64, max_value=32768),  # h d_model
    st.integers(min_value=128, max_value=131072),  # s sequence
    st.integers(min_value=1000, max_value=300000),  # V vocabulary
    st.integers(min_value=1, max_value=4096),  # B sequences per iteration
)


@given(shapes)
def test_terms_reproduce_korthikanti_and_narayanan(shape: tuple[int, int, int, int, int]) -> None:
    layers, h, s, vocab, batch = shape
    n = 12 * layers * h * h  # transformer-layer parameters, no embeddings
    kw = {"n_layers": layers, "d_model": h, "seq_len": s, "vocab": vocab}
    model = flops_basis(["attention", "logits"], **kw).per_token(n) * batch * s
    hardware = flops_basis(["recompute", "attention", "logits"], **kw).per_token(n) * batch * s
    base = batch * s * layers * h * h
    # Korthikanti et al. 2022: model FLOPs 72·B·s·l·h²·(1 + s/6h + V/12lh).
    assert model == 72 * base * (1 + Fraction(s, 6 * h) + Fraction(vocab, 12 * layers * h))
    # Narayanan et al. 2021, eq. 3 (full recomputation): 96·B·s·l·h²·(1 + s/6h + V/16lh).
    assert hardware == 96 * base * (1 + Fraction(s, 6 * h) + Fraction(vocab, 16 * layers * h))


def test_basis_is_said_in_words() -> None:
    assert flops_basis([]).describe() == "model FLOPs 6·N·T"
    both = flops_basis(["attention", "recompute"], n_layers=2, d_model=8, seq_len=16)
    assert both.describe() == "hardware FLOPs: 6·N·T + recompute + attention"
    assert flops_basis([], moe=True).describe() == "model FLOPs 6·N_active·T"


@pytest.mark.parametrize(
    ("terms", "shape", "field"),
    [
        (["attention"], {"n_layers": 2, "d_model": 8}, "seq_len"),
        (["logits"], {"d_model": 8}, "vocab"),
        (["flash"], {}, "terms"),
        (["recompute", "recompute"], {}, "terms"),
    ],
)
def test_terms_need_their_shape(terms: list[str], shape: dict, field: str) -> None:
    with pytest.raises(InputError, match=rf"^{field}:"):
        flops_basis(terms, **shape)


def test_estimate_run_combines_terms_and_keeps_methods() -> None:
    run = estimate_run(
        7 * 10**9, 10**11, 8, 312 * 10**12, "0.4", 1,
        terms=("recompute", "attention"), n_layers=32, d_model=4096, seq_len=4096,
    )  # fmt: skip
    assert run.flops == (8 * 7 * 10**9 + 16 * 32 * 4096 * 4096) * 10**11
    assert run.flops_basis == "hardware FLOPs: 6·N·T + recompute + attention"
    with pytest.raises(InputError, match=r"^terms: give the FLOPs terms or the recompute"):
        estimate_run(7e9, 1e11, 8, 312e12, "0.4", 1, method="recompute", terms=("attention",),
                     n_layers=1, d_model=1, seq_len=1)  # fmt: skip


def test_class_defaults_by_architecture_and_precision() -> None:
    assert default_mfu("dense") == default_mfu("dense", "bf16") == Decimal("0.4")
    # FP8 reaches about 1.4× BF16 throughput against a 2× peak: 0.4 · 1.4 / 2.
    assert default_mfu("dense", "fp8") == Decimal("0.4") * Decimal("1.4") / 2
    assert default_mfu(implied_class(None, "moe")) == Decimal("0.2")
    assert implied_class(None, "6nt") == "dense" and implied_class("cnn", "moe") == "cnn"

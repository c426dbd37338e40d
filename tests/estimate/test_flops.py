"""Training FLOPs: 6·N·T and the explicit variants, against their formulas and published runs."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.estimate.flops import training_flops


def test_seed_7b_100b_tokens_is_4_2e21() -> None:
    assert training_flops(7 * 10**9, 10**11) == 42 * 10**20


def test_recompute_adds_one_forward_pass() -> None:
    n, t = 1_300_000_000, 26 * 10**10
    assert training_flops(n, t, "recompute") - training_flops(n, t) == 2 * n * t


def test_attention_term_follows_palm_appendix_b() -> None:
    # PaLM 540B (Chowdhery et al. 2022, app. B): L = 118, d_model = 18432, seq 2048; the
    # attention term per token is 12·L·d·s.
    n, layers, d, s = 540 * 10**9, 118, 18432, 2048
    per_token = training_flops(n, 1, "attention", n_layers=layers, d_model=d, seq_len=s)
    assert per_token == 6 * n + 12 * 118 * 18432 * 2048
    # The attention share PaLM reports as small next to 6N: a few percent at this size.
    assert 0.01 < (per_token - 6 * n) / per_token < 0.06


def test_moe_counts_active_parameters_only() -> None:
    # Mixtral-like: 46.7B total, 12.9B active per token.
    flops = training_flops(Decimal("46.7e9"), 10**12, "moe", active_params=Decimal("12.9e9"))
    assert flops == 6 * Decimal("12.9e9") * 10**12


@pytest.mark.parametrize(
    ("method", "kwargs", "field"),
    [
        ("moe", {}, "active_params"),
        ("attention", {"n_layers": 2, "d_model": 8}, "seq_len"),
        ("attention", {}, "n_layers"),
        ("bogus", {}, "flops_method"),
    ],
)
def test_variants_need_their_inputs(method: str, kwargs: dict, field: str) -> None:
    with pytest.raises(InputError, match=rf"^{field}:"):
        training_flops(10**9, 10**9, method, **kwargs)


def test_active_params_cannot_exceed_total() -> None:
    with pytest.raises(InputError, match=r"^active_params: .* exceeds"):
        training_flops(10, 10, "moe", active_params=11)


sizes = st.integers(min_value=1, max_value=10**13)


@given(n=sizes, t=sizes, extra=st.integers(min_value=1, max_value=10**6))
def test_flops_monotone_in_n_and_t(n: int, t: int, extra: int) -> None:
    base = training_flops(n, t)
    assert training_flops(n + extra, t) > base
    assert training_flops(n, t + extra) > base
    assert base == 6 * n * t

"""Reading option text as exact numbers: round trips, and errors that name the option."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.errors import InputError
from trainbudget.estimate.run_report import build_estimate, parse_gpus, parse_number


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_any_decimal_text_reads_back_exactly(value: Decimal) -> None:
    assert parse_number("--price", str(value)) == value


@given(st.integers(min_value=1, max_value=10**6))
def test_whole_gpu_counts_in_any_spelling(gpus: int) -> None:
    assert parse_gpus(str(gpus)) == gpus
    assert parse_gpus(f"{gpus}.0") == gpus
    assert parse_gpus(f"{gpus:_}") == gpus


@pytest.mark.parametrize("text", ["abc", "1e", "", "nan", "inf"])
def test_non_numbers_name_the_option(text: str) -> None:
    with pytest.raises(InputError, match=r"^--mfu: must be a"):
        parse_number("--mfu", text)


def test_exact_decimal_price_reaches_the_dollars() -> None:
    payload = build_estimate(
        params="1e9", tokens="1e9", gpus="1", price="2.40", gpu_tflops="100", mfu="0.5"
    )
    # 6e18 FLOPs / 5e13 FLOP/s = 120,000 s = 100/3 h; · $2.40 = $80 exactly.
    assert payload["dollar_cost"] == 80
    assert payload["mfu_source"] == "user"

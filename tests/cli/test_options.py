"""The one parser of number options: exact Decimals, and every error names the flag."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.cli import options

FLAG = "--x"
PARSERS = {
    "number": lambda text: options.number(FLAG, text),
    "amount": lambda text: options.amount(FLAG, text),
    "positive": lambda text: options.positive(FLAG, text),
    "count": lambda text: options.count(FLAG, text, minimum=1),
    "fraction": lambda text: options.fraction(FLAG, text),
    "size": lambda text: options.size(FLAG, text, "GB"),
    "duration": lambda text: options.duration(FLAG, text),
    "tflops": lambda text: options.tflops(FLAG, text),
}
# Text a user may type: digits, signs, exponents, separators, words, and anything at all.
NUMBERISH = st.text(alphabet="0123456789+-.eE_, naifINFxy", max_size=12)
TEXT = st.one_of(NUMBERISH, st.text(max_size=12), st.decimals().map(str))


def _read(text: str) -> Decimal | None:
    """What the text says as a Decimal, read independently of the parser (None: no number)."""
    try:
        value = Decimal(text.strip().replace("_", ""))
    except (InvalidOperation, ValueError):
        return None
    return value if value.is_finite() else None


@pytest.mark.parametrize("kind", sorted(PARSERS))
@given(text=TEXT)
def test_any_text_is_its_exact_number_or_an_error_naming_the_flag(kind: str, text: str) -> None:
    try:
        value = PARSERS[kind](text)
    except InputError as error:
        assert str(error).startswith(f"{FLAG}: must be ")
        assert "\n" not in str(error)
        return
    expected = _read(text)
    assert expected is not None
    assert value == expected
    if kind == "count":
        assert isinstance(value, int) and value >= 1
    if kind == "tflops":
        assert isinstance(value, Fraction) and value > 0


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_any_decimal_text_reads_back_exactly(value: Decimal) -> None:
    parsed = options.number("--price", str(value))
    assert parsed == value and str(parsed) == str(value)


@given(st.decimals(allow_nan=False, allow_infinity=False, places=6, max_value=10**9))
def test_amounts_are_exact_and_negatives_are_refused(value: Decimal) -> None:
    if value < 0:
        with pytest.raises(InputError, match=r"^--x: must be zero or more"):
            options.amount("--x", str(value))
    else:
        assert options.amount("--x", str(value)) == value


@given(st.integers(min_value=1, max_value=10**6))
def test_whole_counts_in_any_spelling(gpus: int) -> None:
    for text in (str(gpus), f"{gpus}.0", f"{gpus:_}", f"{gpus}e0"):
        assert options.count("--gpus", text, minimum=1) == gpus


@pytest.mark.parametrize("text", ["nan", "NaN", "inf", "-Infinity", "", "1,5", "two", "1e"])
def test_non_numbers_are_refused_naming_the_flag(text: str) -> None:
    with pytest.raises(InputError, match=r"^--mfu: must be a"):
        options.number("--mfu", text)


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [
        (lambda t: options.count("--gpus", t, minimum=1), "2.5", "--gpus: must be a positive"),
        (lambda t: options.count("--gpus", t, minimum=1), "0", "--gpus: must be a positive"),
        (lambda t: options.fraction("--mfu", t), "0", r"--mfu: must be in \(0, 1\]"),
        (lambda t: options.fraction("--mfu", t), "1.5", r"--mfu: must be in \(0, 1\]"),
        (lambda t: options.fraction("--p", t, include_one=False), "1", r"--p: must be in \(0, 1\)"),
        (lambda t: options.positive("--params", t), "0", "--params: must be positive"),
        (lambda t: options.positive("--params", t), "lots", "--params: must be a positive number"),
        (lambda t: options.at_least("--tokens", t, 1), "0.5", "--tokens: must be at least 1"),
        (lambda t: options.size("--gb", t, "GB"), "-1", "--gb: must be zero or more GB"),
        (lambda t: options.duration("--h", t), "-1", "--h: must be zero or more hours"),
        (lambda t: options.number("--n", t), "1e999999999", "--n: must be a number within"),
    ],
)
def test_out_of_range_values_say_what_was_expected(parse, text: str, message: str) -> None:
    with pytest.raises(InputError, match=rf"^{message}"):
        parse(text)


def test_bounds_are_inclusive_where_the_name_says_so() -> None:
    assert options.fraction("--mfu", "1") == 1
    assert options.amount("--h", "0") == 0
    assert options.at_least("--tokens", "1", 1) == 1
    assert options.count("--k", "0") == 0
    assert options.number("--n", None) is None
    assert options.tflops("--t", "312.5") == Fraction(625, 2)

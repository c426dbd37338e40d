"""Exact numbers in --json: Decimal digits kept, Fractions exact where finite, no silent null."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.output import FRACTION_DIGITS, dumps, fraction_to_decimal


def _exact(data: bytes):
    return json.loads(data, parse_float=Decimal)


def test_21_gpu_seconds_are_not_rounded_to_six_places() -> None:
    hours = Decimal(21) / 3600  # 0.005833... at 28 significant digits
    text = dumps({"gpu_hours": hours})
    assert text == b'{"gpu_hours":0.005833333333333333333333333333}'
    assert _exact(text)["gpu_hours"] == hours
    assert _exact(text)["gpu_hours"] != Decimal("0.005833")


def test_fractions_exact_when_finite_else_fifty_digits() -> None:
    assert _exact(dumps({"x": Fraction(-7, 40)}))["x"] == Decimal("-0.175")
    third = _exact(dumps({"x": Fraction(1, 3)}))["x"]
    assert third == Decimal("0." + "3" * FRACTION_DIGITS)
    assert abs(Fraction(third) - Fraction(1, 3)) < Fraction(1, 10**FRACTION_DIGITS)


def test_big_integers_are_exact_and_non_finite_is_refused() -> None:
    assert dumps({"flops": 2 * 10**36}) == b'{"flops":2' + b"0" * 36 + b"}"
    assert orjson.loads(dumps([2**64 - 1, -(2**63)])) == [2**64 - 1, -(2**63)]
    for bad in (float("inf"), float("nan"), Decimal("Infinity"), Decimal("NaN")):
        with pytest.raises(ValueError, match="not a finite number"):
            dumps({"x": [bad]})


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_any_finite_decimal_round_trips(value: Decimal) -> None:
    back = _exact(dumps({"v": value}))["v"]
    assert Decimal(back) == value


@given(st.fractions(max_denominator=10**6))
def test_fraction_decimal_is_exact_for_2_and_5_denominators(value: Fraction) -> None:
    as_decimal = fraction_to_decimal(value)
    d = value.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1:
        assert Fraction(as_decimal) == value
    else:
        assert abs(Fraction(as_decimal) - value) <= abs(value) / 10 ** (FRACTION_DIGITS - 1)


def test_json_numbers_are_valid_json_for_strict_parsers() -> None:
    text = dumps({"a": Decimal("7E+9"), "b": Decimal("0E-12"), "c": Decimal("-0.00")})
    assert json.loads(text) == {"a": 7e9, "b": 0.0, "c": -0.0}

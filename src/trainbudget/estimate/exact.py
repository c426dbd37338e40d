"""Exact arithmetic helpers: numbers in as int/Decimal/str, products exact, quotients to 50 digits.

Decimal keeps a user's 2.40 exactly 2.40; a quotient such as 4.2e21 / 9.984e14 does not
terminate, so it is carried to 50 significant digits (far beyond any displayed figure).
"""

from __future__ import annotations

from decimal import Context, Decimal, InvalidOperation
from fractions import Fraction

from trainbudget.errors import InputError

_CONTEXT = Context(prec=50)
# Products are kept exact (their digits add up); only quotients are rounded, to 50 digits.
_PRODUCT = Context(prec=200)

Numeric = int | Decimal | Fraction | float | str


def to_decimal(value: Numeric) -> Decimal:
    """`value` as a Decimal; a float goes through its shortest repr, so 0.4 stays 0.4."""
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, Fraction):
        return _CONTEXT.divide(Decimal(value.numerator), Decimal(value.denominator))
    if isinstance(value, float):
        return Decimal(repr(value))
    return Decimal(value)


def div(numerator: Numeric, denominator: Numeric) -> Decimal:
    """numerator / denominator to 50 significant digits."""
    return _CONTEXT.divide(to_decimal(numerator), to_decimal(denominator))


def mul(*factors: Numeric) -> Decimal:
    """The product of `factors`, exact up to 200 significant digits (far beyond our inputs)."""
    product = Decimal(1)
    for factor in factors:
        product = _PRODUCT.multiply(product, to_decimal(factor))
    return product


def as_plain(value: Decimal) -> int | Decimal:
    """An integral Decimal as int (6 not 6E+0), else the Decimal unchanged."""
    if value == value.to_integral_value():
        return int(value)
    return value


def parse_number(option: str, text: str | None) -> Decimal | None:
    """Option text ("7e9", "2.40", "1_000") as an exact Decimal, or InputError naming `option`."""
    if text is None:
        return None
    try:
        value = Decimal(text.strip().replace("_", ""))
    except InvalidOperation:
        raise InputError(f"{option}: must be a number, got {text!r}") from None
    if not value.is_finite():
        raise InputError(f"{option}: must be a finite number, got {text!r}")
    return value


def positive(name: str, value: Numeric) -> Decimal:
    """`value` as a Decimal; InputError naming `name` unless finite and above zero."""
    number = to_decimal(value)
    if not number.is_finite() or number <= 0:
        raise InputError(f"{name}: must be positive, got {value}")
    return number


def non_negative(name: str, value: Numeric) -> Decimal:
    """`value` as a Decimal; InputError naming `name` unless finite and zero or more."""
    number = to_decimal(value)
    if not number.is_finite() or number < 0:
        raise InputError(f"{name}: must be zero or more, got {value}")
    return number

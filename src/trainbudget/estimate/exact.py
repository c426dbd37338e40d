"""Exact arithmetic helpers: numbers in as int/Decimal/str, products exact, quotients to 50 digits.

Decimal keeps a user's 2.40 exactly 2.40; a quotient such as 4.2e21 / 9.984e14 does not
terminate, so it is carried to 50 significant digits (far beyond any displayed figure).
"""

from __future__ import annotations

from decimal import Context, Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from trainbudget.base.errors import InputError
from trainbudget.base.limits import MAX_GPU_HOURS as MAX_GPU_HOURS  # re-exported: the one table
from trainbudget.base.limits import MAX_GPUS as MAX_GPUS
from trainbudget.base.limits import MAX_USD as MAX_USD

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
    return Decimal(value if isinstance(value, str) else str(value))


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


def finite(name: str, value: Any) -> Decimal:
    """`value` as an exact Decimal; InputError naming `name` if it is no number, NaN or infinite."""
    if isinstance(value, bool):  # a YAML `true` is no number, though Python counts it as 1
        raise InputError(f"{name}: must be a number, got {value!r}")
    try:
        number = to_decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        raise InputError(f"{name}: must be a number, got {value!r}") from None
    if not number.is_finite():
        raise InputError(f"{name}: must be a finite number, got {value}")
    return number


def positive(name: str, value: Any) -> Decimal:
    """`value` as an exact Decimal; InputError naming `name` unless finite and above zero."""
    number = finite(name, value)
    if number <= 0:
        raise InputError(f"{name}: must be positive, got {value}")
    return number


def non_negative(name: str, value: Any) -> Decimal:
    """`value` as an exact Decimal; InputError naming `name` unless finite and zero or more."""
    number = finite(name, value)
    if number < 0:
        raise InputError(f"{name}: must be zero or more, got {value}")
    return number


def optional_non_negative(name: str, value: Any) -> Decimal | None:
    """Like `non_negative`, passing None through (a limit that is not set)."""
    return None if value is None else non_negative(name, value)


# Sane magnitudes (docs/estimate.md, "Bounds"): far beyond any real campaign, yet small enough
# that every figure stays a finite double in any JSON reader and fits the ledger's
# DECIMAL(38, 6) columns. A result beyond them is an input error naming the fields behind it.
# GPUs, GPU-hours and dollars are the gates' bounds too: one table, in trainbudget/base/limits.py.
MAX_FLOPS = Decimal("1e40")  # the largest published runs are ~5e26 FLOPs
MAX_SECONDS = Decimal("1e16")  # 300 million years of wall time
MAX_GB_MONTHS = Decimal("1e15")


def bounded(name: str, value: Decimal, bound: Decimal, unit: str) -> Decimal:
    """`value` unless its magnitude is above `bound`; InputError naming `name` (the inputs)."""
    if abs(value) > bound:
        raise InputError(
            f"{name}: gives {value:.3E} {unit}, beyond the sane bound of {bound:.0E} {unit}; "
            "check the magnitudes"
        )
    return value

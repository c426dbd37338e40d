"""JSON bytes with exact numbers (ledger columns and --json), and rounding for display.

A Decimal is written with its exact digits as a JSON number (orjson.Fragment), so 0.0058333…
GPU-hours stay what was computed and `json.loads(text, parse_float=Decimal)` gives the same
Decimal back. A Fraction is written as its exact decimal when it has one (1/8 → 0.125), else
as a Decimal of 50 significant digits (1/3 → 0.333…3, 50 threes). Integers beyond 64 bits are
written exactly too. A non-finite number (NaN, ±Infinity) is refused, never written as null.
Printing to the terminal is the command line's (trainbudget.cli.output).
"""

from __future__ import annotations

import math
import sys
from datetime import date, datetime
from decimal import Context, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import orjson

# Significant digits of a Fraction that has no finite decimal (as in estimate.exact).
FRACTION_DIGITS = 50
_FRACTION_CONTEXT = Context(prec=FRACTION_DIGITS)


def exact_decimal_text(value: Decimal | Fraction) -> str:
    """The JSON number text of `value`: a Decimal's own digits, a Fraction's exact decimal."""
    if isinstance(value, Fraction):
        value = fraction_to_decimal(value)
    if not value.is_finite():
        raise ValueError(f"not a finite number: {value}")
    return str(value)


def fraction_to_decimal(value: Fraction) -> Decimal:
    """`value` exactly when its denominator is 2^a·5^b, else to FRACTION_DIGITS digits."""
    denominator = value.denominator
    twos = fives = 0
    while denominator % 2 == 0:
        denominator //= 2
        twos += 1
    while denominator % 5 == 0:
        denominator //= 5
        fives += 1
    if denominator == 1:
        places = max(twos, fives)
        scaled = value.numerator * (10**places) // value.denominator
        return Decimal(f"{scaled}E-{places}")  # from text: exact at any length
    return _FRACTION_CONTEXT.divide(Decimal(value.numerator), Decimal(value.denominator))


def _to_jsonable(value: Any) -> Any:
    # Exact numbers (Decimal, Fraction) become JSON numbers only here, at the edge.
    if isinstance(value, Decimal | Fraction):
        return orjson.Fragment(exact_decimal_text(value))
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, date | datetime):
        return value.isoformat()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _check_numbers(value: Any, where: str = "$") -> Any:
    """`value` with Decimals, Fractions and integers beyond 64 bits as exact JSON fragments;
    ValueError on NaN or an infinity (orjson's `default` could only raise a TypeError)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{where}: not a finite number: {value}")
        return value
    if isinstance(value, Decimal | Fraction):
        return orjson.Fragment(exact_decimal_text(value))  # ValueError if not finite
    if isinstance(value, int) and not isinstance(value, bool):
        return orjson.Fragment(str(value)) if not _INT64_MIN <= value <= _UINT64_MAX else value
    if isinstance(value, dict):
        return {k: _check_numbers(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_check_numbers(v, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


_INT64_MIN = -(2**63)
_UINT64_MAX = 2**64 - 1


def dumps(payload: Any, *, indent: bool = False) -> bytes:
    """Serialise to JSON bytes; Decimal and Fraction as exact numbers, paths as strings.

    ValueError if the payload holds NaN or an infinity (orjson would write null).
    """
    option = orjson.OPT_NON_STR_KEYS
    # OPT_SERIALIZE_NUMPY makes orjson import numpy (~0.25 s); a numpy value can only exist
    # if numpy is already loaded, so ask for it only then (keeps `estimate --json` quick).
    if "numpy" in sys.modules:
        option |= orjson.OPT_SERIALIZE_NUMPY
    if indent:
        option |= orjson.OPT_INDENT_2
    return orjson.dumps(_check_numbers(payload), default=_to_jsonable, option=option)


def fmt_number(value: Any, places: int = 2) -> str:
    """Round for display only: thousands separators, `places` decimals, trailing zeros kept."""
    return f"{float(value):,.{places}f}"

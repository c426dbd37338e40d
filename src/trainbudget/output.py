"""JSON bytes with exact numbers (ledger columns and --json), and rounding for display.

Printing to the terminal is the command line's (trainbudget.cli.output).
"""

from __future__ import annotations

import sys
from datetime import date, datetime
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import orjson


def _to_jsonable(value: Any) -> Any:
    # Exact numbers (Decimal, Fraction) become JSON numbers only here, at the edge.
    if isinstance(value, Decimal | Fraction):
        return float(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, date | datetime):
        return value.isoformat()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def dumps(payload: Any, *, indent: bool = False) -> bytes:
    """Serialise to JSON bytes; Decimal and Fraction as numbers, paths as strings."""
    option = orjson.OPT_NON_STR_KEYS
    # OPT_SERIALIZE_NUMPY makes orjson import numpy (~0.25 s); a numpy value can only exist
    # if numpy is already loaded, so ask for it only then (keeps `estimate --json` quick).
    if "numpy" in sys.modules:
        option |= orjson.OPT_SERIALIZE_NUMPY
    if indent:
        option |= orjson.OPT_INDENT_2
    return orjson.dumps(payload, default=_to_jsonable, option=option)


def fmt_number(value: Any, places: int = 2) -> str:
    """Round for display only: thousands separators, `places` decimals, trailing zeros kept."""
    return f"{float(value):,.{places}f}"

"""Printing results: one JSON object on stdout with --json, else rich tables; notes on stderr."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from datetime import date, datetime
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console

stderr_console = Console(stderr=True, highlight=False)


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


def emit(payload: dict[str, Any], as_json: bool, render: Callable[[Console], None]) -> None:
    """Print `payload` as one JSON object (and nothing else on stdout) or render it for people."""
    if as_json:
        sys.stdout.buffer.write(dumps(payload) + b"\n")
        sys.stdout.flush()
    else:
        render(Console(highlight=False))


def working(message: str) -> AbstractContextManager[Any]:
    """A spinner on stderr while long work runs; silent when stderr is not a terminal."""
    if not stderr_console.is_terminal:
        return nullcontext()
    return stderr_console.status(message, spinner="dots")


def warn(message: str) -> None:
    """A warning for the user, always on stderr so --json output stays clean."""
    stderr_console.print(f"[yellow]warning:[/yellow] {message}", soft_wrap=True)


def fmt_number(value: Any, places: int = 2) -> str:
    """Round for display only: thousands separators, `places` decimals, trailing zeros kept."""
    return f"{float(value):,.{places}f}"

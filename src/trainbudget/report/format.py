"""Display formatting for people: units, thousands separators, integers bare, plurals right.

Plain functions of one value returning text (display only; exact values stay in the model and
in --json). The HTML and markdown reports use them; the terminal renderers (cli/render) can
import them too, so a GiB or a millisecond reads the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

BYTES_PER_GIB = 2**30
US_PER_MS = 1000
US_PER_S = 1_000_000

Formatter = Callable[[Any], str]


def plural(count: int | Decimal, word: str, many: str | None = None) -> str:
    """`1 attempt`, `2 attempts`, `1,024 GPUs`: the count with separators and the right form."""
    form = word if count == 1 else (many or _plural_of(word))
    return f"{number(count)} {form}"


def _plural_of(word: str) -> str:
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def number(value: Any, places: int = 2) -> str:
    """Thousands separators; an integral value without decimals, others to `places`."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, Decimal | Fraction | float) and _integral(value, places):
        return f"{round(float(value)):,}"
    return f"{float(value):,.{places}f}"


def _integral(value: Decimal | Fraction | float, places: int) -> bool:
    """Whether `value` shows as a whole number at `places` decimals (so 2.000001 is 2)."""
    return abs(float(value) - round(float(value))) < 0.5 * 10**-places


def decimals(places: int) -> Formatter:
    """A formatter to `places` decimals (integral values bare)."""
    return lambda value: number(value, places)


def gpu_hours(value: Any) -> str:
    """GPU-hours for a table cell: two decimals, integral values bare."""
    return number(value, 2)


def usd(value: Any) -> str:
    """Dollars, always to the cent: `$1,570.93`, `-$3.60`, `$5.00`."""
    if value is None:
        return ""
    text = f"{abs(float(value)):,.2f}"
    return f"-${text}" if value < 0 else f"${text}"


def percent(fraction: Any, places: int = 1) -> str:
    """A fraction (0.4531) as a percentage (`45.3 %`)."""
    return "" if fraction is None else f"{number(100 * float(fraction), places)} %"


def percent_value(value: Any, places: int = 2) -> str:
    """A value already in percent (1.87) shown with its sign (`1.87 %`)."""
    return "" if value is None else f"{number(value, places)} %"


def gib(size_bytes: Any, places: int = 2) -> str:
    """Bytes in GiB (2^30 bytes), as the CLI prints memory: 61,200,000,000 → `57.00 GiB`."""
    if size_bytes is None:
        return ""
    return f"{float(size_bytes) / BYTES_PER_GIB:,.{places}f} GiB"


def duration_us(value_us: Any) -> str:
    """A trace time in microseconds as ms under a second (`730.2 ms`), else s (`38.30 s`)."""
    if value_us is None:
        return ""
    us = float(value_us)
    if abs(us) < US_PER_S:
        return f"{us / US_PER_MS:,.1f} ms"
    return f"{us / US_PER_S:,.2f} s"


def yes_no(value: Any) -> str:
    """A boolean as `yes` / `no` (None: empty)."""
    return "" if value is None else ("yes" if value else "no")


def significant(digits: int) -> Formatter:
    """A formatter to `digits` significant figures (fitted parameters, FLOPs)."""
    return lambda value: "" if value is None else f"{float(value):.{digits}g}"


def interval(low: Any, high: Any, digits: int = 4) -> str:
    """An interval to `digits` significant figures: `2.475 to 2.586`."""
    return f"{float(low):.{digits}g} to {float(high):.{digits}g}"


@dataclass(frozen=True)
class Column:
    """A table column: the record key, its header in words with the unit, how cells show."""

    key: str
    header: str
    fmt: Formatter | None = None

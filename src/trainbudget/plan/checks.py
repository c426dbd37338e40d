"""The value checks a plan field takes (plan/fields.py's `spec(check)`): each returns the value
checked (a Decimal from any finite number, a list of checked items, a nested section) or raises
`Invalid` with the sentence the plan has always reported for it.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from trainbudget.base.limits import MAX_NAME_CHARS
from trainbudget.plan.fields import Check, Invalid, Location


def _check_bounds(value: Any, found: Any, loc: Location, gt: Any, ge: Any, le: Any) -> None:
    if le is not None and not value <= le:
        raise Invalid(loc, f"must be at most {le}, got {found}")
    if ge is not None and not value >= ge:
        raise Invalid(loc, f"must be at least {ge}, got {found}")
    if gt is not None and not value > gt:
        noun = "a positive integer" if isinstance(value, int) else "positive"
        raise Invalid(loc, f"must be {noun}, got {found}" if gt == 0 else
                           f"must be greater than {gt}, got {found}")  # fmt: skip


def integer(gt: int | None = None, ge: int | None = None) -> Check:
    """A strict integer (true, 8.0 and "8" are not 8), with bounds."""

    def check(value: Any, loc: Location) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise Invalid(loc, f"must be an integer, got {value!r}")
        _check_bounds(value, value, loc, gt, ge, None)
        return value

    return check


def decimal(gt: Any = None, ge: Any = None, le: Any = None) -> Check:
    """A finite Decimal from a number or its text, with bounds."""

    def check(value: Any, loc: Location) -> Decimal:
        number = to_decimal(value)
        if number is None:
            raise Invalid(loc, f"must be a number, got {value!r}")
        if not number.is_finite():
            raise Invalid(loc, f"input should be a finite number, got {value!r}")
        _check_bounds(number, value, loc, gt, ge, le)
        return number

    return check


def to_decimal(value: Any) -> Decimal | None:
    """`value` (a number, not a bool, or its text) as a Decimal; None if it is not one."""
    if isinstance(value, Decimal | float | str | int) and not isinstance(value, bool):
        try:
            return Decimal(str(value) if isinstance(value, float) else value)
        except (InvalidOperation, ValueError):
            return None
    return None


def text(
    min_length: int | None = None,
    max_length: int | None = None,
    pattern: str | None = None,
    pattern_message: str = "",
) -> Check:
    """A string (UTF-8 bytes decoded), with length bounds and a whole-string pattern."""
    compiled = re.compile(pattern) if pattern is not None else None

    def check(value: Any, loc: Location) -> str:
        found = value
        if isinstance(value, bytes | bytearray):
            try:
                value = bytes(value).decode("utf-8")
            except UnicodeDecodeError:
                raise Invalid(loc, "input should be a valid string, unable to parse raw data "
                                   f"as a unicode string, got {found!r}") from None  # fmt: skip
        if not isinstance(value, str):
            raise Invalid(loc, f"input should be a valid string, got {found!r}")
        if min_length is not None and len(value) < min_length:
            unit = "character" if min_length == 1 else "characters"
            raise Invalid(loc, f"string should have at least {min_length} {unit}, got {found!r}")
        if max_length is not None and len(value) > max_length:
            unit = "character" if max_length == 1 else "characters"
            shown = f"{found!r}" if len(value) <= 80 else f"{len(value):,} characters"
            raise Invalid(loc, f"string should have at most {max_length:,} {unit}, got {shown}")
        if compiled is not None and compiled.fullmatch(value) is None:
            raise Invalid(loc, f"{pattern_message}, got {found!r}")
        return value

    return check


_FALSE_WORDS = {"0", "off", "f", "false", "n", "no"}
_TRUE_WORDS = {"1", "on", "t", "true", "y", "yes"}


def boolean() -> Check:
    """A bool; also 0/1 and the words true/false, yes/no, on/off, t/f, y/n (any case)."""

    def check(value: Any, loc: Location) -> bool:
        if isinstance(value, bool):
            return value
        word = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if isinstance(word, str):
            if word.lower() in _FALSE_WORDS:
                return False
            if word.lower() in _TRUE_WORDS:
                return True
        elif isinstance(value, int | float | Decimal) and _is_whole(value):
            if value in (0, 1):
                return bool(value)
        else:
            raise Invalid(loc, f"input should be a valid boolean, got {value!r}")
        raise Invalid(loc, f"input should be a valid boolean, unable to interpret input, "
                           f"got {value!r}")  # fmt: skip

    return check


def _is_whole(value: float | Decimal) -> bool:
    """An integer that fits 64 bits (pydantic read bools through an i64)."""
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return False
    if isinstance(value, Decimal) and not (value.is_finite() and value == int(value)):
        return False
    return -(2**63) <= value < 2**63


def choice(*choices: str) -> Check:
    """One of the given strings."""
    quoted = [repr(item) for item in choices]
    expected = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"

    def check(value: Any, loc: Location) -> str:
        if not isinstance(value, str) or value not in choices:
            raise Invalid(loc, f"must be one of {expected}, got {value!r}")
        return value

    return check


def optional(inner: Check) -> Check:
    """None, or a value `inner` accepts."""

    def check(value: Any, loc: Location) -> Any:
        return None if value is None else inner(value, loc)

    return check


def list_of(inner: Check, min_length: int | None = None) -> Check:
    """A list (a YAML sequence or set) whose items `inner` accepts, at least `min_length` long."""

    def check(value: Any, loc: Location) -> list[Any]:
        if not isinstance(value, list | tuple | set | frozenset):
            raise Invalid(loc, f"input should be a valid list, got {value!r}")
        items = [inner(item, (*loc, index)) for index, item in enumerate(value)]
        if min_length is not None and len(items) < min_length:
            unit = "item" if min_length == 1 else "items"
            raise Invalid(loc, f"list should have at least {min_length} {unit} after "
                               f"validation, not {len(items)}, got {value!r}")  # fmt: skip
        return items

    return check


def nested(cls: Any) -> Check:
    """A section inside a section."""
    return cls.validate


# The checks most fields take, named once for every section.
POSITIVE_INT = integer(gt=0)
NON_NEGATIVE_INT = integer(ge=0)
POSITIVE_DECIMAL = decimal(gt=0)
NON_NEGATIVE_DECIMAL = decimal(ge=0)
FRACTION_01 = decimal(gt=0, le=1)
TEXT = text(max_length=MAX_NAME_CHARS)  # a name that lands (pilots[].name, …): capped

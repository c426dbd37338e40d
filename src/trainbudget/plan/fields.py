"""A small declarative validator for the plan's sections: frozen classes, one check a field.

A section is `@section class X(Section)` whose fields are `spec(check, ...)`; `X.validate(data)`
checks a mapping field by field in declaration order, then refuses unknown keys, then runs the
class's `check()` hook, raising `Invalid(location, sentence)` at the first problem. The
sentences (and which problem comes first) are those the plan reported when its models were
pydantic's, so messages kept in tests and docs hold. Decimals are dumped as text.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar, TypeVar

Location = tuple[Any, ...]
Check = Callable[[Any, Location], Any]
# A field's own rule after its value is checked: (value, the fields before it) -> problem or None.
After = Callable[[Any, dict[str, Any]], str | None]


class Invalid(Exception):
    """A plan value refused at `loc` (keys and list indexes), with a plain `message`."""

    def __init__(self, loc: Location, message: str) -> None:
        super().__init__(f"{'.'.join(map(str, loc))}: {message}")
        self.loc, self.message = loc, message


_REQUIRED = object()


class _Spec:
    __slots__ = ("after", "check", "default", "factory")

    def __init__(self, check: Check, default: Any, factory: Any, after: After | None) -> None:
        self.check, self.default, self.factory, self.after = check, default, factory, after


class Section:
    """Base of the plan's sections: validated from a mapping, frozen, dumped to dicts and JSON.

    A plain slotted class rather than a dataclass: building 24 dataclasses costs ~20 ms of
    start-up; these are built without generating code.
    """

    __slots__ = ()
    _specs: ClassVar[tuple[tuple[str, _Spec], ...]] = ()

    def __init__(self, **values: Any) -> None:
        for name, item in self._specs:
            if name in values:
                value = values.pop(name)
            elif item.factory is not None:
                value = item.factory()
            elif item.default is _REQUIRED:
                raise TypeError(f"{type(self).__name__}: {name} is required")
            else:
                value = item.default
            object.__setattr__(self, name, value)
        if values:
            raise TypeError(f"{type(self).__name__}: unknown {', '.join(values)}")

    @classmethod
    def validate(cls, data: Any, loc: Location = ()) -> Any:
        """An instance from `data` (a mapping of the section's keys); Invalid if it is not one."""
        if isinstance(data, cls):
            return data
        if not isinstance(data, dict):
            raise Invalid(loc, f"input should be a valid dictionary or instance of "
                               f"{cls.__name__}, got {data!r}")  # fmt: skip
        values: dict[str, Any] = {}
        for name, item in cls._specs:
            if name in data:
                values[name] = item.check(data[name], (*loc, name))
                problem = item.after(values[name], values) if item.after is not None else None
                if problem is not None:
                    raise Invalid((*loc, name), problem)
            elif item.default is _REQUIRED and item.factory is None:
                raise Invalid((*loc, name), "required, but missing")
        for key in data:
            if not isinstance(key, str):  # located as pydantic's did: an int, else its repr
                where = int(key) if isinstance(key, int) else repr(key)
                raise Invalid((*loc, where), f"keys should be strings, got {key!r}")
            if key not in values:
                known = ", ".join(keys_of(cls))
                raise Invalid((*loc, key), f"unknown key (check the spelling; the keys here "
                                           f"are: {known}; see docs/plan.md)")  # fmt: skip
        made = cls(**values)
        problem = made.check()
        if problem is not None:
            raise Invalid(loc, problem)
        return made

    @classmethod
    def from_json(cls, text: str | bytes) -> Any:
        """An instance from JSON written by to_json() (Decimals as text)."""
        return cls.validate(json.loads(text, parse_float=Decimal))

    def check(self) -> str | None:
        """The problem between this section's fields, or None (overridden by sections)."""
        return None

    def as_dict(self) -> dict[str, Any]:
        """The fields as a dict in declaration order, sections as dicts, values as they are."""
        return {name: _plain(getattr(self, name)) for name, _ in self._specs}

    def to_json(self) -> str:
        """Compact JSON in declaration order, Decimals as text (what the ledger stores)."""
        return json.dumps(self.as_dict(), default=_decimal_text, ensure_ascii=False,
                          separators=(",", ":"))  # fmt: skip

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name, _ in self._specs)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name, _ in self._specs)
        return f"{type(self).__name__}({shown})"

    def __setattr__(self, name: str, *_: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot change {name}")

    __delattr__ = __setattr__

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self._values()))


def _rebuild(cls: type[Section], values: tuple[Any, ...]) -> Section:
    return cls(**dict(zip(keys_of(cls), values, strict=True)))


def keys_of(cls: type[Section]) -> tuple[str, ...]:
    """The keys a section accepts, in declaration order."""
    return tuple(name for name, _ in cls._specs)


_S = TypeVar("_S", bound=type[Section])


def section(cls: _S) -> _S:
    """Make `cls` a frozen, slotted section whose `spec(...)` attributes are its fields."""
    namespace = {k: v for k, v in vars(cls).items() if k not in ("__dict__", "__weakref__")}
    specs = tuple((k, v) for k, v in namespace.items() if isinstance(v, _Spec))
    for name, _ in specs:
        del namespace[name]
    namespace["__slots__"] = tuple(name for name, _ in specs)
    namespace["_specs"] = specs
    return type(cls)(cls.__name__, cls.__bases__, namespace)  # type: ignore[return-value]


def spec(
    check: Check,
    default: Any = _REQUIRED,
    factory: Callable[[], Any] | None = None,
    after: After | None = None,
) -> Any:
    """A section field checked by `check`; required unless it has a default or factory.

    `after(value, the fields before it)` is the field's own rule, e.g. against earlier fields.
    """
    return _Spec(check, default, factory, after)


def _plain(value: Any) -> Any:
    if isinstance(value, Section):
        return value.as_dict()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _decimal_text(value: Any) -> str:
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


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
        number = _as_decimal(value)
        if number is None:
            raise Invalid(loc, f"must be a number, got {value!r}")
        if not number.is_finite():
            raise Invalid(loc, f"input should be a finite number, got {value!r}")
        _check_bounds(number, value, loc, gt, ge, le)
        return number

    return check


def _as_decimal(value: Any) -> Decimal | None:
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
            raise Invalid(loc, f"string should have at most {max_length} {unit}, got {found!r}")
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

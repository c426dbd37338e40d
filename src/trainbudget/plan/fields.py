"""A small declarative validator for the plan's sections: frozen classes, one check a field.

A section is `@section class X(Section)` whose fields are `spec(check, ...)` (the checks are
in plan/checks.py); `X.validate(data)` checks a mapping field by field in declaration order,
then refuses unknown keys, then runs the class's `check()` hook, raising `Invalid(location,
sentence)` at the first problem. The sentences (and which problem comes first) are those the
plan reported when its models were pydantic's, so messages kept in tests and docs hold.
Decimals are dumped as text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
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
    __slots__ = ("after", "check", "default", "factory", "omit_default")

    def __init__(
        self, check: Check, default: Any, factory: Any, after: After | None, omit_default: bool
    ) -> None:
        self.check, self.default, self.factory, self.after = check, default, factory, after
        self.omit_default = omit_default


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
        if isinstance(problem, tuple):  # (the key at fault, the sentence): its own line
            key, sentence = problem
            raise Invalid((*loc, key), sentence)
        if problem is not None:
            raise Invalid(loc, problem)
        return made

    @classmethod
    def from_json(cls, text: str | bytes) -> Any:
        """An instance from JSON written by to_json() (Decimals as text)."""
        return cls.validate(json.loads(text, parse_float=Decimal))

    def check(self) -> str | tuple[str, str] | None:
        """The problem between this section's fields, or None (overridden by sections); a
        (key, sentence) pair locates it at that key's line."""
        return None

    def as_dict(self) -> dict[str, Any]:
        """The fields as a dict in declaration order, sections as dicts, values as they are;
        a field made with `omit_default` is left out while it holds its default (so plans
        stored before the field existed dump the same bytes)."""
        return {
            name: _plain(getattr(self, name))
            for name, item in self._specs
            if not (item.omit_default and getattr(self, name) == item.default)
        }

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
    omit_default: bool = False,
) -> Any:
    """A section field checked by `check`; required unless it has a default or factory.

    `after(value, the fields before it)` is the field's own rule, e.g. against earlier fields;
    `omit_default` leaves the field out of as_dict()/to_json() while it holds its default.
    """
    return _Spec(check, default, factory, after, omit_default)


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

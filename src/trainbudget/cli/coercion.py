"""Option values read without pydantic: a start-up fix for typer ≥ 0.2x (typer._coercion).

That typer builds a pydantic TypeAdapter for every option it parses, which imports pydantic
(about 0.2 s) on every command. Our options are text, whole numbers, paths and flags (numbers
are parsed by cli/options.py), so `install()` reads those directly and leaves every other
annotation to typer. Older typers (on click) never import pydantic and are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

_SIMPLE = (str, int, bool, Path)
# pydantic's lax bool words, which typer accepts for a flag's value (an environment variable).
_BOOLS = {
    **dict.fromkeys(("1", "true", "t", "yes", "y", "on"), True),
    **dict.fromkeys(("0", "false", "f", "no", "n", "off", ""), False),
}


def install() -> None:
    """Route simple annotations (str, int, Path, lists of them) around pydantic."""
    try:
        from typer import core
        from typer._coercion import RuntimeParam
        from typer._param_types import coerce_cli_path
    except ImportError:  # a typer on click: nothing to fix
        return
    if getattr(core.build_runtime_param, "_trainbudget", False):
        return
    typer_build = core.build_runtime_param

    @dataclass(frozen=True)
    class SimpleParam(RuntimeParam):
        """str, int (no typer min/max), bool, Path (typer's checks) or a list of one of them."""

        item: type

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if isinstance(value, list | tuple):
                return [self._one(item, param, ctx) for item in value]
            return self._one(value, param, ctx)

        def _one(self, value: Any, param: Any, ctx: Any) -> Any:
            from typer._click.exceptions import BadParameter

            if self.item is str:
                return value if isinstance(value, str) else str(value)
            if self.item is bool:
                if isinstance(value, bool):
                    return value
                try:
                    return _BOOLS[str(value).strip().lower()]
                except KeyError:
                    raise BadParameter(
                        f"{value!r} is not true or false.", ctx=ctx, param=param
                    ) from None
            if self.item is int:
                if isinstance(value, int) and not isinstance(value, bool):
                    return value
                try:
                    return int(str(value).strip().replace("_", ""))
                except ValueError:
                    raise BadParameter(
                        f"{value!r} is not a whole number.", ctx=ctx, param=param
                    ) from None
            if isinstance(value, Path):
                return value
            checked = coerce_cli_path(
                value, self.parameter_info, path_type=None, param=param, ctx=ctx
            )
            return Path(checked)

    def build_runtime_param(descriptor: Any) -> Any:
        item = _simple_item(descriptor)
        if item is None:
            return typer_build(descriptor)
        return SimpleParam(
            annotation=descriptor.annotation, parameter_info=descriptor.parameter_info, item=item
        )

    build_runtime_param._trainbudget = True  # type: ignore[attr-defined]
    core.build_runtime_param = build_runtime_param


def _simple_item(descriptor: Any) -> type | None:
    """The element type when the annotation is one of ours (str, int, bool, Path, a list)."""
    info = descriptor.parameter_info
    if descriptor.file_annotation is not None or info.parser is not None:
        return None
    annotation = descriptor.annotation
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation)
    if annotation not in _SIMPLE:
        return None
    if annotation is int and (info.min is not None or info.max is not None or info.clamp):
        return None
    return annotation

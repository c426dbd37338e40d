"""How every command's help reads: metavars in words, flags without a type, examples last.

`apply_conventions(app)` gives each registered command the HelpCommand class and its examples
(cli/examples.py) as the epilog, so a command added later follows the same rules (docs/cli.md,
"Conventions for a command's help").
"""

from __future__ import annotations

import re
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup
from typer.models import DefaultPlaceholder

from trainbudget.cli.examples import EXAMPLES

# What a value option without its own metavar shows, by the Python type typer read.
_FALLBACK = {"Path": "PATH", "int": "N", "str": "TEXT", "float": "X"}


def _word_metavars(params: list[Any]) -> list[Any]:
    """Flags show no type (not `<bool>`); a value option without a metavar gets a word."""
    for param in params:
        if getattr(param, "param_type_name", "") == "argument":
            # An argument's metavar is its name in the usage line; no `<path>` type beside it.
            param.display_type_rich = _no_type
        if getattr(param, "is_flag", False) or getattr(param, "count", False):
            param.metavar = ""
        elif param.metavar is None:
            annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
            name = getattr(annotation, "__name__", "")
            param.metavar = _FALLBACK.get(name, "VALUE")
    return params


def _fill_gpu_names(params: list[Any]) -> None:
    """Put the catalog's accelerator names into the help that asks for them (help time only)."""
    from trainbudget.cli.options import GPU_NAMES

    wanting = [p for p in params if GPU_NAMES in (getattr(p, "help", None) or "")]
    if not wanting:
        return
    from trainbudget.estimate.catalog import list_accelerators

    names = ", ".join(accelerator.name for accelerator in list_accelerators())
    for param in wanting:
        param.help = param.help.replace(GPU_NAMES, names)


def _no_type(ctx: Any) -> None:
    return None


def _plain_usage(pieces: list[str]) -> list[str]:
    """`{PLAN}` → `PLAN`: a required argument needs no braces in the usage line."""
    return [re.sub(r"\{([^{}]*)\}", r"\1", piece) for piece in pieces]


class HelpCommand(TyperCommand):
    """A typer command whose help follows the conventions above."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _word_metavars(super().get_params(ctx))

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return _plain_usage(super().collect_usage_pieces(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _fill_gpu_names(self.get_params(ctx))
        super().format_help(ctx, formatter)


class HelpGroup(TyperGroup):
    """A typer group (the app, `ledger`) whose own options follow the conventions."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _word_metavars(super().get_params(ctx))


def apply_conventions(app: typer.Typer, prefix: str = "") -> None:
    """Every command of `app` (and of its sub-apps): HelpCommand and its examples as epilog."""
    for info in app.registered_commands:
        name = info.name or (info.callback.__name__.replace("_", "-") if info.callback else "")
        if info.cls is None or info.cls is TyperCommand:
            info.cls = HelpCommand
        if info.epilog is None and f"{prefix}{name}" in EXAMPLES:
            info.epilog = examples_epilog(EXAMPLES[f"{prefix}{name}"])
    for group in app.registered_groups:
        path = f"{prefix}{group.name}"
        if _unset(group.cls):
            group.cls = HelpGroup
        if _unset(group.epilog) and path in EXAMPLES:
            group.epilog = examples_epilog(EXAMPLES[path])
        if group.typer_instance is not None:
            apply_conventions(group.typer_instance, f"{path} ")


def _unset(value: Any) -> bool:
    return value is None or isinstance(value, DefaultPlaceholder)


def examples_epilog(lines: list[str]) -> str:
    """The help's last section: `Examples:` and one `$ trainbudget …` line per example."""
    body = "\n".join("  $ " + line.replace("[", "\\[") for line in lines)
    return f"[bold]Examples:[/bold]\n{body}"

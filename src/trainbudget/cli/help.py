"""How every command's help reads, and the group that imports a command only when it runs.

Every command is declared with `@command(...)` (HelpCommand): metavars in words, flags without
a type, the catalog's GPU names filled in, its examples (cli/examples.py, by command path) last.
The app is a LazyGroup: it knows each command by the module that declares it and imports that
module when the command is invoked or its help is shown (click's documented way of lazily
loading subcommands: a `click.Group` whose `list_commands` / `get_command` do the import).
Conventions: docs/cli.md, "Conventions for a command's help".
"""

from __future__ import annotations

import difflib
import functools
import importlib
from typing import Any

import click

# What a value option without its own metavar shows, by its click type's name.
_FALLBACK = {"path": "PATH", "whole number": "N", "integer": "N", "text": "TEXT", "float": "X"}


def _word_metavars(params: list[Any]) -> list[Any]:
    """A value option without a metavar gets a word, never a type (`<path>`, `INTEGER`)."""
    for param in params:
        if isinstance(param, click.Option) and not param.is_flag and param.metavar is None:
            param.metavar = _FALLBACK.get(param.type.name, "VALUE")
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


def _first_paragraph(text: str | None) -> str:
    """The first paragraph of a help text on one line: the command list's short help."""
    if not text:
        return ""
    import inspect

    paragraph = inspect.cleandoc(text).split("\n\n", 1)[0]
    return " ".join(paragraph.split())


def _format_examples(ctx: click.Context, formatter: click.HelpFormatter) -> None:
    """The help's last section: `Examples:` and one `$ trainbudget …` line per example."""
    from trainbudget.cli.examples import EXAMPLES

    path = " ".join(ctx.command_path.split()[1:])
    lines = EXAMPLES.get(path)
    if not lines:
        return
    formatter.write_paragraph()
    formatter.write_text("Examples:")
    indent = " " * (formatter.current_indent + 2)
    for example in lines:
        # Continuation lines keep their own leading spaces (they align under the command).
        first, *rest = example.splitlines()
        formatter.write(f"{indent}$ {first}\n")
        for line in rest:
            formatter.write(f"{indent}{line}\n")


class HelpCommand(click.Command):
    """A click command whose help follows the conventions above."""

    def get_params(self, ctx: click.Context) -> list[Any]:
        return _word_metavars(super().get_params(ctx))

    def get_short_help_str(self, limit: int = 45) -> str:
        return self.short_help or _first_paragraph(self.help)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _fill_gpu_names(self.get_params(ctx))
        super().format_help(ctx, formatter)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        _format_examples(ctx, formatter)


class HelpGroup(click.Group):
    """A group (`ledger`) whose own options and commands follow the conventions."""

    command_class = HelpCommand

    def get_params(self, ctx: click.Context) -> list[Any]:
        return _word_metavars(super().get_params(ctx))

    def get_short_help_str(self, limit: int = 45) -> str:
        return self.short_help or _first_paragraph(self.help)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)  # in the order they were declared, not sorted

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        _format_examples(ctx, formatter)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        """An unknown command is one line that suggests the nearest name."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise click.UsageError(f"No such command {name!r}.{hint}", ctx)
        return super().resolve_command(ctx, args)


class LazyGroup(HelpGroup):
    """A group that knows its commands as "module:attribute" and imports one when it is needed:
    a run of `trainbudget estimate` imports the estimate command's module only."""

    def __init__(self, *args: Any, lazy_commands: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands = lazy_commands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*self.commands, *(name for name in self.lazy_commands if name not in self.commands)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy_commands:
            module, attribute = self.lazy_commands[cmd_name].split(":")
            loaded = getattr(importlib.import_module(module), attribute)
            if not isinstance(loaded, click.Command):
                raise TypeError(f"{self.lazy_commands[cmd_name]} is not a click command")
            self.add_command(loaded, cmd_name)
        return self.commands.get(cmd_name)


# Every command of the app is declared with these (the help conventions come with them).
command = functools.partial(click.command, cls=HelpCommand)
group = functools.partial(click.group, cls=HelpGroup)

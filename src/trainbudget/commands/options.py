"""Options shared by every command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else there.")
]
LedgerOption = Annotated[
    Path | None,
    typer.Option(
        "--ledger",
        help="DuckDB ledger file (default: $TRAINBUDGET_LEDGER, else ./trainbudget.duckdb).",
        show_default=False,
    ),
]


def ledger_path(ctx: typer.Context, option: Path | None) -> Path | None:
    """The command's --ledger if given, else the global one given before the command."""
    if option is not None:
        return option
    root = ctx.find_root()
    return (root.obj or {}).get("ledger") if root else None

"""Terminal layout shared by the renderers: whole paths, tables that fit without cutting.

rich shrinks a table wider than the terminal by wrapping and then cutting cells ("278.…");
`fit_table` drops empty columns, then the least important ones, until every cell fits whole.
Numbers are never cut, paths never split (COLUMNS=80, piped: tests/cli/test_terminal.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.table import Table

# Cells that say "no value": a column of only these is hidden.
_BLANK = {"", "-", "–", "—"}


def print_path(console: Any, path: str | Path, label: str | None = None) -> None:
    """`label` then the path whole on its own line (never wrapped or split)."""
    if label:
        console.print(label, highlight=False)
    console.print(str(path), soft_wrap=True, highlight=False, markup=False, emoji=False)


def number_column(table: Table, header: str) -> None:
    """A right-aligned column whose cells never wrap: a number is shown whole or not at all."""
    table.add_column(header, justify="right", no_wrap=True)


def fit_table(console: Any, table: Table, drop_order: Sequence[str] = ()) -> list[str]:
    """Hide empty columns, then drop columns in `drop_order` (least important first) while the
    table is wider than the console; return the headers dropped for width (say so below it)."""
    for column in list(table.columns):
        if all(str(cell).strip() in _BLANK for cell in column._cells):
            _remove(table, str(column.header))
    dropped = []
    for header in drop_order:
        if _min_width(console, table) <= console.width:
            break
        if _remove(table, header):
            dropped.append(header)
    return dropped


def print_table(console: Any, table: Table, drop_order: Sequence[str] = ()) -> None:
    """Print `table` fitted to the console, and a note naming any column left out for width."""
    dropped = fit_table(console, table, drop_order)
    console.print(table)
    if dropped:
        console.print(
            f"[dim]not shown at this width: {', '.join(dropped)} (widen the terminal or --json)"
            "[/dim]",
            highlight=False,
        )


def _min_width(console: Any, table: Table) -> int:
    """The narrowest the table can print with no cell cut: no-wrap columns at their widest
    cell, the others at their longest word, plus rich's padding and borders."""
    natural = [_widest(column, str.splitlines) for column in table.columns]
    needed = [
        _widest(column, str.splitlines) if column.no_wrap else _widest(column, str.split)
        for column in table.columns
    ]
    overhead = table.__rich_measure__(console, console.options).maximum - sum(natural)
    return overhead + sum(needed)


def _widest(column: Any, pieces: Any) -> int:
    texts = [str(column.header), *(str(cell) for cell in column._cells)]
    return max((cell_len(piece) for text in texts for piece in pieces(text)), default=0)


def _remove(table: Table, header: str) -> bool:
    for index, column in enumerate(table.columns):
        if str(column.header) == header:
            del table.columns[index]
            for later in table.columns[index:]:
                later._index -= 1
            return True
    return False

"""The catalog on the terminal: one row per accelerator, numbers never cut.

At 80 columns every column fits; on a narrower terminal the least-used columns are dropped
(int8 first, then fp32, fp16, tf32) and a line says which, rather than truncating a figure.
Sources are long sentences: they go under the table with --sources, never into a column.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.markup import escape
from rich.measure import Measurement
from rich.padding import Padding
from rich.table import Table

# Column keys in display order, and the order in which they are dropped when space is short.
COLUMNS = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8")
DROP_ORDER = ("int8", "fp32", "fp16", "tf32")
_NAME_HEADER, _MEMORY_HEADER = "accelerator", "GiB"


def render_gpus(console: Any, payload: dict[str, Any], *, sources: bool = False) -> None:
    """The catalog table, a line on any dropped column, and the source notes if asked for."""
    rows = [_cells(entry) for entry in payload["accelerators"]]
    shown = fitting_columns(console, rows)
    console.print(_table(rows, shown))
    dropped = [key for key in COLUMNS if key not in shown]
    if dropped:
        console.print(f"({', '.join(dropped)} left out at this width; --json has every column)")
    console.print("— : no dense peak published for that precision (asking for it is an error)")
    if sources:
        for entry in payload["accelerators"]:
            console.print(f"[bold]{escape(entry['name'])}[/bold]")
            console.print(Padding(escape(entry["source"]), (0, 0, 0, 2), expand=False))


def fitting_columns(console: Any, rows: list[dict[str, str]]) -> tuple[str, ...]:
    """The precision columns whose table fits the console with every cell whole."""
    shown = list(COLUMNS)
    for key in DROP_ORDER:
        if _width(console, _table(rows, shown)) <= console.width:
            break
        shown.remove(key)
    return tuple(shown)


def _width(console: Any, table: Table) -> int:
    """The table's natural width, measured as if the console were unlimited."""
    return Measurement.get(console, console.options.update_width(10_000), table).maximum


def _table(rows: list[dict[str, str]], shown: list[str]) -> Table:
    table = Table(
        title="Dense peak TFLOP/s (int8: TOPS)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
    )
    table.add_column(_NAME_HEADER, no_wrap=True)
    table.add_column(_MEMORY_HEADER, justify="right", no_wrap=True)
    for key in shown:
        table.add_column(key, justify="right", no_wrap=True)
    for cells in rows:
        table.add_row(cells["name"], cells["memory"], *(cells[key] for key in shown))
    return table


def _cells(entry: dict[str, Any]) -> dict[str, str]:
    peaks = {**entry["peak_tflops"], **entry["peak_tops"]}
    cells = {"name": entry["name"], "memory": _number(entry["memory_gib"])}
    cells.update({key: _number(peaks[key]) if key in peaks else "—" for key in COLUMNS})
    return cells


def _number(value: Any) -> str:
    """A catalog figure as the datasheet prints it: 989.4, 2500, 186 (no thousands commas)."""
    text = f"{float(value):f}".rstrip("0").rstrip(".")
    return text or "0"

"""The main run's goodput on the terminal: ETTR and badput by cause per week (rounded here)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

CAUSE_COLUMNS = (
    "restart", "recomputation", "lost_progress", "invalid_result", "checkpoint_writes",
    "unverified",
)  # fmt: skip


def _n(value: Any, places: int = 2) -> str:
    return "-" if value is None else f"{float(value):,.{places}f}"


def render_goodput(console: Console, goodput: dict[str, Any]) -> None:
    """One row per week and the total: ETTR, allocated, badput GPU-hours by cause, queue wait."""
    if not goodput["weeks"]:
        console.print("Goodput: no main-run jobs (work class main) reviewed.")
        return
    title = f"Goodput of the main run ({goodput['campaign'] or 'all'}), GPU-hours"
    table = Table(title=title)
    for column in ("week", "ETTR", "allocated", *CAUSE_COLUMNS, "queue wait h"):
        table.add_column(column.replace("_", " "), justify="left" if column == "week" else "right")
    for row in (*goodput["weeks"], goodput["total"]):
        badput = row["badput_gpu_hours"]
        table.add_row(
            row["week"], _n(row["ettr"], 3), _n(row["allocated_gpu_hours"]),
            *(_n(badput[c]) for c in CAUSE_COLUMNS), _n(row["queue_wait_hours"]),
        )  # fmt: skip
    console.print(table)

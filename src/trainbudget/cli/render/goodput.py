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


def render_goodput(console: Console, goodput: dict[str, Any], last_weeks: int = 6) -> None:
    """ETTR, allocated, badput GPU-hours by cause and queue wait: a column per week (the last
    `last_weeks`; the JSON has them all) and one for the campaign total."""
    if not goodput["weeks"]:
        console.print("Goodput: no main-run jobs (work class main) reviewed.")
        return
    columns = [*goodput["weeks"][-last_weeks:], goodput["total"]]
    table = Table(title=f"Goodput of the main run ({goodput['campaign'] or 'all'}), GPU-hours")
    table.add_column("")
    for row in columns:
        table.add_column(row["week"], justify="right")
    table.add_row("ETTR", *(_n(r["ettr"], 3) for r in columns))
    table.add_row("allocated", *(_n(r["allocated_gpu_hours"]) for r in columns))
    for cause in CAUSE_COLUMNS:
        table.add_row(cause.replace("_", " "), *(_n(r["badput_gpu_hours"][cause]) for r in columns))
    table.add_row("queue wait (h, beside)", *(_n(r["queue_wait_hours"]) for r in columns))
    console.print(table)

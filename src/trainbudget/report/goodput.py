"""The weekly report's goodput section: the main run's ETTR and badput by cause, per week."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trainbudget.reconcile.goodput import goodput_payload
from trainbudget.report import format as fmt
from trainbudget.report.format import Column
from trainbudget.report.model import Table

if TYPE_CHECKING:
    from trainbudget.reconcile.review import Review

GOODPUT_TITLE = "Goodput of the main run by week"
MAIN_RUN = "main-class jobs and the retry jobs of their experiment"
NOTE = (
    f"The main run: {MAIN_RUN}, to the end of the reviewed week; the same jobs give f, ETTR "
    "and goodput. ETTR (Kokolis et al. 2024) = Productive ÷ Allocated GPU-hours. "
    "Useful = Productive + Checkpoint writes. "
    "Each cause is a part of one class: restart + recomputation = recovery, lost progress + "
    "invalid result = lost, checkpoint writes are inside useful; queue wait is beside the "
    "allocation, not in ETTR (docs/goodput.md)."
)


COLUMNS = [
    Column("week", "Week"),
    Column("ettr", "ETTR", fmt.decimals(3)),
    Column("allocated_gpu_hours", "Allocated GPU-hours", fmt.gpu_hours),
    Column("useful_gpu_hours", "Useful", fmt.gpu_hours),
    Column("productive_gpu_hours", "Productive", fmt.gpu_hours),
    Column("restart_gpu_hours", "Restart", fmt.gpu_hours),
    Column("recomputation_gpu_hours", "Recomputation", fmt.gpu_hours),
    Column("lost_progress_gpu_hours", "Lost progress", fmt.gpu_hours),
    Column("invalid_result_gpu_hours", "Invalid result", fmt.gpu_hours),
    Column("checkpoint_writes_gpu_hours", "Checkpoint writes", fmt.gpu_hours),
    Column("unverified_gpu_hours", "Unverified", fmt.gpu_hours),
    Column("queue_wait_hours", "Queue wait (hours)", fmt.gpu_hours),
]

AUDIT_COLUMNS = [
    Column("line", "Line"),
    Column("forecast", "Forecast", fmt.significant(3)),
    Column("actual", "Measured", fmt.significant(3)),
    Column("actual_over_forecast", "Measured ÷ forecast", fmt.decimals(2)),
    Column("basis", "Compared as"),
]


def goodput_section(review: Review, campaign: str) -> tuple[list[str], list[Table]]:
    """A summary line and the table: one row per week, then the campaign total."""
    payload = goodput_payload(review.goodput, campaign)
    if not payload["weeks"]:
        return [f"Goodput: no main-run jobs ({MAIN_RUN}) reviewed."], []
    total = payload["total"]
    badput = total["badput_gpu_hours"]
    line = (
        f"Main run to date: ETTR {float(total['ettr'] or 0):.3f}; badput GPU-hours: restart "
        f"{float(badput['restart']):,.2f}, recomputation {float(badput['recomputation']):,.2f}, "
        f"lost progress {float(badput['lost_progress']):,.2f}, checkpoint writes "
        f"{float(badput['checkpoint_writes']):,.2f}; queue wait "
        f"{float(total['queue_wait_hours']):,.2f} h beside it."
    )
    rows = [
        {
            "week": r["week"],
            "ettr": r["ettr"],
            "allocated_gpu_hours": r["allocated_gpu_hours"],
            "useful_gpu_hours": r["productive_gpu_hours"]
            + r["badput_gpu_hours"]["checkpoint_writes"],
            "productive_gpu_hours": r["productive_gpu_hours"],
            **{f"{c}_gpu_hours": v for c, v in r["badput_gpu_hours"].items()},
            "queue_wait_hours": r["queue_wait_hours"],
        }
        for r in (*payload["weeks"], total)
    ]
    tables = [Table.of(GOODPUT_TITLE, rows, COLUMNS, NOTE)]
    if review.forecast_audit:
        tables.append(
            Table.of(
                "The main-run forecast against what was measured",
                [{**row, "line": row["line"].replace("_", " ")} for row in review.forecast_audit],
                AUDIT_COLUMNS,
                "Overhead lines as shares of the main run's GPU-hours (a campaign in progress "
                "has spent part of its allocation); ETTR and MTBF directly (docs/goodput.md).",
            )
        )
    return [line], tables

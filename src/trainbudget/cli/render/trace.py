"""The trace stage on the terminal: per-rank GPU time, steps, FLOPs and MFU (milliseconds)."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from trainbudget.base.exact_json import fmt_number
from trainbudget.cli.render.text import number_column, print_table


def _fmt(value: float | None, places: int = 1) -> str:
    return "—" if value is None else fmt_number(value, places)


def render_trace(console: Any, payload: dict[str, Any]) -> None:
    """GPU time per rank, the slowest rank's step times, FLOPs and MFU against the peak."""
    mode = ", HTA-compatible" if payload["hta_compatible"] else ""
    table = Table(title=f"GPU time per rank (ms{mode})")
    columns = ("rank", "busy", "idle", "idle %", "compute", "comm", "memory", "overlap %")
    for column in (*columns, "peak GiB", "TFLOP/s"):
        number_column(table, column)
    for r in payload["ranks"]:
        cats = r["gpu_kernel_us_by_category"]
        peak = r["memory_peak_bytes"]
        table.add_row(
            str(r["rank"]),
            *(_fmt(r[k] / 1000, 2) for k in ("gpu_busy_us", "gpu_idle_us")),
            _fmt(r["idle_pct"], 2),
            *(_fmt(cats[k] / 1000, 2) for k in ("computation", "communication", "memory")),
            _fmt(r["comm_comp_overlap_pct"], 2),
            "—" if peak is None else _fmt(peak / 2**30, 2),
            _fmt(r["achieved_tflops_per_second"], 2),
        )
    print_table(console, table, ("memory", "TFLOP/s", "peak GiB", "idle", "comm", "compute"))
    if payload["steps"]:
        steps = ", ".join(
            f"#{s['step']} {_fmt(s['duration_us'] / 1000, 2)} (rank {s['slowest_rank']})"
            for s in payload["steps"]
        )
        console.print(f"step ms, slowest rank: {steps}")
    basis = f"{payload['flops_basis']} FLOPs"
    console.print(f"FLOPs from recorded shapes ({basis}): {payload['flops']:,}")
    devices = payload["memory_peak_bytes_by_device"]
    if devices:
        peaks = ", ".join(f"{k} {_fmt(v / 2**30, 3)}" for k, v in sorted(devices.items()))
        console.print(f"memory peak GiB by device: {peaks}")
    if payload["mfu"] is not None:
        peak_tflops = _fmt(payload["peak_tflops_per_second"], 1)
        console.print(
            f"MFU ({basis}) vs {payload['gpu']} {payload['precision']} "
            f"({peak_tflops} TFLOP/s dense): {_fmt(100 * payload['mfu'], 2)} %"
        )

"""The pilot stage on the terminal: per-shape statistics and the measured MFU."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from trainbudget.base.exact_json import fmt_number
from trainbudget.cli.render.text import number_column, print_table


def render_pilot(console: Any, payload: dict[str, Any]) -> None:
    """Per-shape step statistics, the mix throughput, MFU, memory headroom and checkpoints."""
    table = Table(title=f"pilot: {payload['steps']:,} steps in {payload['runs']} run(s)")
    table.add_column("seq x batch on GPUs", no_wrap=True)
    for name in ("steps", "median s", "p95 s", "max s", "tokens/s", "peak GiB", "MFU", "mix"):
        number_column(table, name)
    for b in payload["buckets"]:
        shape = f"{b['seq_len']}x{b['batch_size']} on {b['gpus']}" + (
            " *" if b["worst_case"] else ""
        )
        memory = b["peak_memory_bytes"]
        table.add_row(
            shape,
            f"{b['steps']:,}",
            fmt_number(b["median_step_seconds"], 3),
            fmt_number(b["p95_step_seconds"], 3),
            fmt_number(b["max_step_seconds"], 3),
            fmt_number(b["tokens_per_second"], 0),
            "–" if memory is None else fmt_number(memory / 2**30, 1),
            "–" if b["mfu"] is None else f"{float(b['mfu']):.1%}",
            f"{float(b['mix_fraction']):.0%}",
        )
    print_table(console, table, ("max s", "p95 s", "steps"))
    if any(b["worst_case"] for b in payload["buckets"]):
        console.print("* the worst-case shape of the declared mix")
    mix = payload["shape_mix"]["source"]
    console.print(
        f"throughput over the {mix} mix: "
        f"{fmt_number(payload['tokens_per_gpu_second'], 1)} tokens per GPU-second"
    )
    if payload["mfu"] is not None:
        console.print(
            f"measured MFU {float(payload['mfu']):.1%} against {payload['gpu']} "
            f"{payload['precision']} peak (mfu_source: pilot)"
        )
    if payload["memory_headroom_bytes"] is not None:
        console.print(
            f"smallest memory headroom: {fmt_number(payload['memory_headroom_bytes'] / 2**30, 1)}"
            f" GiB of {fmt_number(payload['memory_bytes'] / 2**30, 0)} GiB"
        )
    checkpoint = payload["checkpoint"]
    if checkpoint:
        size = checkpoint["max_bytes"]
        console.print(
            f"checkpoints: {checkpoint['writes']} write(s), median "
            f"{fmt_number(checkpoint['median_seconds'], 2)} s"
            + ("" if size is None else f", largest {fmt_number(size / 2**30, 2)} GiB")
        )
    if payload["projected_gpu_hours"] is not None:
        console.print(
            f"projected: {fmt_number(payload['projected_gpu_hours'], 1)} GPU-hours for "
            f"{fmt_number(payload['train_tokens'], 0)} training tokens"
        )
    rejected = len(payload["rejected_rows"])
    if rejected:
        console.print(f"{rejected} row(s) rejected and quarantined (see warnings above)")

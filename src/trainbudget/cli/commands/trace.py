"""`trainbudget trace PATH…`: summarize PyTorch Profiler traces per rank and step, and land them."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any

import typer

from trainbudget.cli.options import GpuTflopsOption, JsonOption, LedgerOption, ledger_path


def trace(
    ctx: typer.Context,
    paths: Annotated[
        list[Path],
        typer.Argument(help="Rank trace files (.json or .json.gz) or folders of them."),
    ],
    hta_compatible: Annotated[
        bool,
        typer.Option(
            "--hta-compatible",
            help="HTA's selection and rounding: drop the last ProfilerStep, whole µs.",
        ),
    ] = False,
    gpu: Annotated[
        str | None,
        typer.Option("--gpu", help="Catalog accelerator (e.g. A100-80GB) to report MFU against."),
    ] = None,
    gpu_tflops: GpuTflopsOption = None,
    precision: Annotated[
        str | None,
        typer.Option(
            "--precision",
            help="Peak for MFU: fp32, tf32, bf16, fp16, fp8 (default: the traced ops' dtype).",
        ),
    ] = None,
    max_json_bytes: Annotated[
        int | None,
        typer.Option(
            "--max-json-bytes",
            min=1,
            help="Refuse a trace that decompresses past this many bytes (default 8 GiB).",
        ),
    ] = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", min=1, help="Worker processes (default: one per core).")
    ] = None,
    no_ledger: Annotated[
        bool, typer.Option("--no-ledger", help="Summarize only; write nothing to the ledger.")
    ] = False,
    ledger: LedgerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Summarize profiler traces: GPU busy/idle, kernel categories, overlap, steps, memory, MFU."""
    from trainbudget.output import emit, warn, working
    from trainbudget.trace.combine import Peak, assign_ranks, combine_ranks, dominant_precision
    from trainbudget.trace.ranks import summarize_files, trace_files

    files = trace_files(paths)
    if gpu_tflops is not None:
        _tflops("--gpu-tflops", gpu_tflops)
    accelerator = None
    if gpu is not None and gpu_tflops is None:
        from trainbudget.estimate.catalog import get_accelerator

        accelerator = get_accelerator(gpu)  # a wrong name or precision fails before any work
        if precision is not None:
            accelerator.peak_flops_per_second(precision)
    with working(f"summarizing {len(files)} trace file(s)…"):
        summaries = summarize_files(
            files, hta_compatible=hta_compatible, max_json_bytes=max_json_bytes, jobs=jobs
        )
    peak = None
    chosen = (precision or dominant_precision(summaries) or "bf16").lower()
    if gpu_tflops is not None:
        peak = Peak(gpu or "custom", chosen, _tflops("--gpu-tflops", gpu_tflops) * 10**12)
    elif accelerator is not None:
        peak = Peak(accelerator.name, chosen, Fraction(accelerator.peak_flops_per_second(chosen)))
    payload, warnings = combine_ranks(summaries, hta_compatible=hta_compatible, peak=peak)
    if not no_ledger:
        from trainbudget.ledger import Ledger
        from trainbudget.trace.land import land_summaries

        ranks, _ = assign_ranks(summaries)
        with Ledger.open(ledger_path(ctx, ledger)) as book:
            payload["landed"] = land_summaries(
                book, summaries, ranks, hta_compatible=hta_compatible
            )
    for message in dict.fromkeys(warnings):
        warn(message)
    emit(payload, as_json, lambda console: _render(console, payload))


def _tflops(option: str, text: str) -> Fraction:
    from trainbudget.errors import InputError

    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise InputError(f"{option}: expected a number of TFLOP/s, got {text!r}") from None
    if value <= 0:
        raise InputError(f"{option}: must be positive, got {text!r}")
    return value


def _fmt(value: float | None, places: int = 1) -> str:
    from trainbudget.output import fmt_number

    return "—" if value is None else fmt_number(value, places)


def _render(console: Any, payload: dict[str, Any]) -> None:
    from rich.table import Table

    mode = ", HTA-compatible" if payload["hta_compatible"] else ""
    table = Table(title=f"GPU time per rank (ms{mode})")
    columns = ("rank", "busy", "idle", "idle %", "compute", "comm", "memory", "overlap %")
    for column in (*columns, "peak GiB", "TFLOP/s"):
        table.add_column(column, justify="right")
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
    console.print(table)
    if payload["steps"]:
        steps = ", ".join(
            f"#{s['step']} {_fmt(s['duration_us'] / 1000, 2)} (rank {s['slowest_rank']})"
            for s in payload["steps"]
        )
        console.print(f"step ms, slowest rank: {steps}")
    console.print(f"FLOPs from recorded shapes: {payload['flops']:,}")
    if payload["mfu"] is not None:
        peak_tflops = _fmt(payload["peak_tflops_per_second"], 1)
        console.print(
            f"MFU vs {payload['gpu']} {payload['precision']} ({peak_tflops} TFLOP/s dense): "
            f"{_fmt(100 * payload['mfu'], 2)} %"
        )

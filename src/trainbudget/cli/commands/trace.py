"""`trainbudget trace PATH…`: summarize PyTorch Profiler traces per rank and step, and land them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from trainbudget.cli import options as parse
from trainbudget.cli.options import (
    GPU_HELP,
    GpuTflopsOption,
    JsonOption,
    LedgerOption,
    NoLedgerOption,
    ledger_path,
    whole_option,
)
from trainbudget.cli.output import Progress, emit, warn


def trace(
    ctx: typer.Context,
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Rank trace files (.json or .json.gz) or folders of them.", metavar="PATH..."
        ),
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
        typer.Option("--gpu", help=GPU_HELP + " MFU is reported against it.", metavar="GPU"),
    ] = None,
    gpu_tflops: GpuTflopsOption = None,
    precision: Annotated[
        str | None,
        typer.Option(
            "--precision",
            help="Peak for MFU: fp32, tf32, bf16, fp16, fp8 (default: the traced ops' dtype).",
            metavar="PRECISION",
        ),
    ] = None,
    max_json_bytes: Annotated[
        int | None,
        whole_option(
            "--max-json-bytes",
            "Refuse a trace that decompresses past this many bytes (default 2 GiB).",
            "BYTES",
            minimum=1,
        ),
    ] = None,
    jobs: Annotated[
        int | None,
        whole_option("--jobs", "Worker processes (default: one per core).", minimum=1),
    ] = None,
    no_ledger: NoLedgerOption = False,
    ledger: LedgerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Summarize profiler traces: GPU busy/idle, kernel categories, overlap, steps, memory, MFU."""
    from trainbudget.trace.combine import assign_ranks, choose_peak, combine_ranks
    from trainbudget.trace.ranks import summarize_files, trace_files

    files = trace_files(paths)
    tflops = parse.tflops("--gpu-tflops", gpu_tflops)
    accelerator = None
    if gpu is not None and tflops is None:
        from trainbudget.estimate.catalog import get_accelerator

        accelerator = get_accelerator(gpu)  # a wrong name or precision fails before any work
        if precision is not None:
            accelerator.peak_flops_per_second(precision)
    with Progress(f"summarizing {len(files)} trace files", len(files)) as bar:
        summaries = summarize_files(
            files,
            hta_compatible=hta_compatible,
            max_json_bytes=max_json_bytes,
            jobs=jobs,
            on_file=bar.advance,
        )
    peak = choose_peak(
        summaries, accelerator=accelerator, tflops=tflops, gpu=gpu, precision=precision
    )
    payload, warnings = combine_ranks(summaries, hta_compatible=hta_compatible, peak=peak)
    if no_ledger:
        _show(payload, warnings, as_json)
        return
    from trainbudget.ledger import Ledger
    from trainbudget.trace.land import land_summaries

    ranks, _ = assign_ranks(summaries)
    with Ledger.open(ledger_path(ctx, ledger)) as book, book.transaction():
        payload["landed"] = land_summaries(book, summaries, ranks, hta_compatible=hta_compatible)
    # Landed and the ledger closed, then printed (cli/output.py: commit, then print).
    _show(payload, warnings, as_json, committed=True)


def _show(
    payload: dict[str, Any], warnings: list[str], as_json: bool, committed: bool = False
) -> None:
    from trainbudget.cli.render.trace import render_trace

    for message in dict.fromkeys(warnings):
        warn(message)
    emit(payload, as_json, lambda console: render_trace(console, payload), committed=committed)

"""`trainbudget trace PATH…`: summarize PyTorch Profiler traces per rank and step, and land them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from trainbudget.cli import options as parse
from trainbudget.cli.decisions import in_ledger
from trainbudget.cli.help import command
from trainbudget.cli.options import (
    flag_option,
    gpu_option,
    gpu_tflops_option,
    json_option,
    ledger_option,
    no_ledger_option,
    path_argument,
    text_option,
    whole_option,
)
from trainbudget.cli.output import Progress, emit, warn


@command("trace")
@path_argument(
    "paths", "Rank trace files (.json or .json.gz) or folders of them.", "PATH...", many=True
)
@flag_option(
    "--hta-compatible", "HTA's selection and rounding: drop the last ProfilerStep, whole µs."
)
@gpu_option(" MFU is reported against it.")
@gpu_tflops_option
@text_option(
    "--precision",
    "Peak for MFU: fp32, tf32, bf16, fp16, fp8 (default: the traced ops' dtype).",
    "PRECISION",
)
@whole_option(
    "--max-json-bytes",
    "Refuse a trace that decompresses past this many bytes (default 2 GiB).",
    "BYTES",
    minimum=1,
)
@whole_option("--jobs", "Worker processes (default: one per core).", minimum=1)
@no_ledger_option
@ledger_option
@json_option
@click.pass_context
def trace(
    ctx: click.Context,
    paths: tuple[Path, ...],
    hta_compatible: bool,
    gpu: str | None,
    gpu_tflops: str | None,
    precision: str | None,
    max_json_bytes: int | None,
    jobs: int | None,
    no_ledger: bool,
    ledger: str | None,
    as_json: bool,
) -> None:
    """Summarize profiler traces: GPU busy/idle, kernel categories, overlap, steps, memory, MFU."""
    from trainbudget.trace.combine import assign_ranks, choose_peak, combine_ranks
    from trainbudget.trace.ranks import summarize_files, trace_files

    files = trace_files(list(paths))
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

    def land(book: Any) -> None:
        from trainbudget.trace.land import land_summaries

        ranks, _ = assign_ranks(summaries)
        payload["landed"] = land_summaries(book, summaries, ranks, hta_compatible=hta_compatible)

    _, committed = in_ledger(
        ctx, ledger, no_ledger=no_ledger, work=lambda book: None if book is None else land(book)
    )
    # Landed and the ledger closed, then printed (cli/output.py: commit, then print).
    _show(payload, warnings, as_json, committed=committed)


def _show(
    payload: dict[str, Any], warnings: list[str], as_json: bool, committed: bool = False
) -> None:
    from trainbudget.cli.render.trace import render_trace

    for message in dict.fromkeys(warnings):
        warn(message)
    emit(payload, as_json, lambda console: render_trace(console, payload), committed=committed)

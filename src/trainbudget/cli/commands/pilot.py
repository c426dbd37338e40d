"""`trainbudget pilot STEPLOG…`: per-shape pilot statistics and a measured MFU, landed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from trainbudget.cli import options as parse
from trainbudget.cli.decisions import in_ledger
from trainbudget.cli.help import command
from trainbudget.cli.options import (
    gpu_option,
    json_option,
    ledger_option,
    no_ledger_option,
    path_argument,
    text_option,
    value_option,
    whole_option,
)
from trainbudget.cli.output import emit, warn


@command("pilot")
@path_argument(
    "steplogs",
    "Step logs: .csv, .parquet or .jsonl (columns in docs/pilot.md).",
    "STEPLOG...",
    many=True,
)
@value_option("--params", "Parameter count N, e.g. 7e9 (for MFU = 6·N·tokens/s/peak).", "N")
@gpu_option(" Its peak and memory.")
@text_option(
    "--precision",
    "Peak to measure MFU against: fp32, tf32, bf16, fp16 or fp8.",
    "PRECISION",
    default="bf16",
)
@click.option(
    "--shape-mix",
    multiple=True,
    metavar="SHAPE=FRACTION",
    help="Training token mix, repeated: SEQ_LEN[xBATCH]=FRACTION (2048=0.9 8192=0.1).",
)
@whole_option("--warmup-steps", "Leave out each run's first N steps.", minimum=0, default=0)
@value_option("--train-tokens", "Training tokens of the real run: project its GPU-hours.", "TOKENS")
@no_ledger_option
@ledger_option
@json_option
@click.pass_context
def pilot(
    ctx: click.Context,
    steplogs: tuple[Path, ...],
    params: str | None,
    gpu: str | None,
    precision: str,
    shape_mix: tuple[str, ...],
    warmup_steps: int,
    train_tokens: str | None,
    no_ledger: bool,
    ledger: str | None,
    as_json: bool,
) -> None:
    """Summarize pilot step logs per shape; measure MFU; land steps and statistics."""
    from trainbudget.pilot.land import land_pilot
    from trainbudget.pilot.mix import parse_shape_mix
    from trainbudget.pilot.summary import PilotOptions

    accelerator = None
    if gpu is not None:
        from trainbudget.estimate.catalog import get_accelerator

        accelerator = get_accelerator(gpu)
        accelerator.peak_flops_per_second(precision)  # an unknown precision fails early
    options = PilotOptions(
        params=parse.positive("--params", params),
        gpu=gpu,
        precision=precision.lower(),
        shape_mix=parse_shape_mix(list(shape_mix)),
        warmup_steps=warmup_steps,
        train_tokens=parse.positive("--train-tokens", train_tokens),
    )
    result, committed = in_ledger(
        ctx,
        ledger,
        no_ledger=no_ledger,
        work=lambda book: land_pilot(book, list(steplogs), options, accelerator),
    )
    # Landed and the ledger closed, then printed (cli/output.py: commit, then print).
    _report(result, params, gpu, as_json, committed=committed)


def _report(
    result: Any, params: str | None, gpu: str | None, as_json: bool, committed: bool = False
) -> None:
    """Warnings on stderr, then the pilot payload or its table."""
    from trainbudget.cli.render.pilot import render_pilot

    payload = result.to_payload()
    for log in result.logs:
        if log.rejected:
            first = log.rejected[0]
            warn(
                f"{log.path}: {len(log.rejected)} row(s) rejected and quarantined; "
                f"first: line {first.line}: {first.reason}"
            )
    for note in result.summary.warnings:
        warn(note)
    if params is not None and gpu is None:
        warn("--params without --gpu: MFU needs the accelerator's peak; pass --gpu NAME")
    emit(payload, as_json, lambda console: render_pilot(console, payload), committed=committed)

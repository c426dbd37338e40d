"""`trainbudget pilot STEPLOG…`: per-shape pilot statistics and a measured MFU, landed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from trainbudget.cli import options as parse
from trainbudget.cli.options import (
    GPU_HELP,
    JsonOption,
    LedgerOption,
    NoLedgerOption,
    ledger_path,
    value_option,
    whole_option,
)
from trainbudget.cli.output import emit, warn


def pilot(
    ctx: typer.Context,
    steplogs: Annotated[
        list[Path],
        typer.Argument(
            help="Step logs: .csv, .parquet or .jsonl (columns in docs/pilot.md).",
            metavar="STEPLOG...",
        ),
    ],
    params: Annotated[
        str | None,
        value_option("--params", "Parameter count N, e.g. 7e9 (for MFU = 6·N·tokens/s/peak).", "N"),
    ] = None,
    gpu: Annotated[
        str | None,
        typer.Option("--gpu", help=GPU_HELP + " Its peak and memory.", metavar="GPU"),
    ] = None,
    precision: Annotated[
        str,
        typer.Option(
            "--precision",
            help="Peak to measure MFU against: fp32, tf32, bf16, fp16 or fp8.",
            metavar="PRECISION",
        ),
    ] = "bf16",
    shape_mix: Annotated[
        list[str] | None,
        typer.Option(
            "--shape-mix",
            help="Training token mix, repeated: SEQ_LEN[xBATCH]=FRACTION (2048=0.9 8192=0.1).",
            metavar="SHAPE=FRACTION",
        ),
    ] = None,
    warmup_steps: Annotated[
        int, whole_option("--warmup-steps", "Leave out each run's first N steps.", minimum=0)
    ] = 0,
    train_tokens: Annotated[
        str | None,
        value_option(
            "--train-tokens", "Training tokens of the real run: project its GPU-hours.", "TOKENS"
        ),
    ] = None,
    no_ledger: NoLedgerOption = False,
    ledger: LedgerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Summarize pilot step logs per shape; measure MFU; land steps and statistics."""
    from trainbudget.ledger import Ledger
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
        shape_mix=parse_shape_mix(shape_mix or []),
        warmup_steps=warmup_steps,
        train_tokens=parse.positive("--train-tokens", train_tokens),
    )
    if no_ledger:
        _report(land_pilot(None, steplogs, options, accelerator), params, gpu, as_json)
    else:
        with Ledger.open(ledger_path(ctx, ledger)) as book, book.transaction():
            result = land_pilot(book, steplogs, options, accelerator)
        # Landed and the ledger closed, then printed (cli/output.py: commit, then print).
        _report(result, params, gpu, as_json, committed=True)


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

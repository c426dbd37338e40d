"""`trainbudget pilot STEPLOG…`: per-shape pilot statistics and a measured MFU, landed."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated, Any

import typer

from trainbudget.cli.options import JsonOption, LedgerOption, ledger_path


def pilot(
    ctx: typer.Context,
    steplogs: Annotated[
        list[Path],
        typer.Argument(help="Step logs: .csv, .parquet or .jsonl (columns in docs/pilot.md)."),
    ],
    params: Annotated[
        str | None,
        typer.Option("--params", help="Model parameters N (e.g. 7e9), for MFU = 6·N·tokens/…"),
    ] = None,
    gpu: Annotated[
        str | None,
        typer.Option("--gpu", help="Catalog accelerator (e.g. H100-SXM): peak FLOP/s, memory."),
    ] = None,
    precision: Annotated[
        str, typer.Option("--precision", help="Peak to measure MFU against: bf16, fp16, fp8…")
    ] = "bf16",
    shape_mix: Annotated[
        list[str] | None,
        typer.Option(
            "--shape-mix",
            help="Training token mix, repeated: SEQ_LEN[xBATCH]=FRACTION (2048=0.9 8192=0.1).",
        ),
    ] = None,
    warmup_steps: Annotated[
        int, typer.Option("--warmup-steps", min=0, help="Leave out each run's first K steps.")
    ] = 0,
    train_tokens: Annotated[
        str | None,
        typer.Option("--train-tokens", help="Tokens of the real run: project its GPU-hours."),
    ] = None,
    no_ledger: Annotated[
        bool, typer.Option("--no-ledger", help="Summarize only; write nothing to the ledger.")
    ] = False,
    ledger: LedgerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Summarize pilot step logs per shape; measure MFU; land steps and statistics."""
    from trainbudget.ledger import Ledger
    from trainbudget.output import emit, warn
    from trainbudget.pilot.land import land_pilot
    from trainbudget.pilot.mix import parse_shape_mix
    from trainbudget.pilot.summary import PilotOptions

    accelerator = None
    if gpu is not None:
        from trainbudget.estimate.catalog import get_accelerator

        accelerator = get_accelerator(gpu)
        accelerator.peak_flops_per_second(precision)  # an unknown precision fails early
    options = PilotOptions(
        params=_positive("--params", params),
        gpu=gpu,
        precision=precision.lower(),
        shape_mix=parse_shape_mix(shape_mix or []),
        warmup_steps=warmup_steps,
        train_tokens=_positive("--train-tokens", train_tokens),
    )
    if no_ledger:
        result = land_pilot(None, steplogs, options, accelerator)
    else:
        with Ledger.open(ledger_path(ctx, ledger)) as book:
            result = land_pilot(book, steplogs, options, accelerator)
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
    emit(payload, as_json, lambda console: _render(console, payload))


def _positive(option: str, text: str | None) -> Decimal | None:
    """A positive number from the command line (7e9, 7000000000, 1.2e12)."""
    if text is None:
        return None
    try:
        value = Decimal(text.replace("_", "").replace(",", ""))
    except InvalidOperation:
        value = None
    if value is None or not value.is_finite() or value <= 0:
        from trainbudget.errors import InputError

        raise InputError(f"{option}: must be a positive number, got {text!r}")
    return value


def _render(console: Any, payload: dict[str, Any]) -> None:
    from rich.table import Table

    from trainbudget.output import fmt_number

    table = Table(title=f"pilot: {payload['steps']:,} steps in {payload['runs']} run(s)")
    for name in (
        "seq x batch on GPUs",
        "steps",
        "median s",
        "p95 s",
        "max s",
        "tokens/s",
        "peak GiB",
    ):
        table.add_column(name, justify="right" if name != "seq x batch on GPUs" else "left")
    table.add_column("MFU", justify="right")
    table.add_column("mix", justify="right")
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
    console.print(table)
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

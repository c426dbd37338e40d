"""`trainbudget estimate` (one run) and `trainbudget campaign PLAN.yaml` (a whole campaign).

`estimate` is the quick path: it imports only the estimator and writes to the ledger only when
given `--run-id` (then it opens DuckDB). `campaign` reads a plan file and prices every line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from trainbudget.base.errors import InputError
from trainbudget.cli.decisions import in_ledger
from trainbudget.cli.help import command
from trainbudget.cli.options import (
    compose,
    flag_option,
    gpu_option,
    gpu_tflops_option,
    json_option,
    ledger_option,
    ledger_path,
    mfu_option,
    path_argument,
    precision_option,
    run_options,
    text_option,
    value_option,
    whole_option,
)
from trainbudget.cli.output import emit, lazy, warn

# Where a measured MFU comes from (`estimate` and `campaign`).
mfu_from_options = compose(
    text_option(
        "--mfu-from",
        "Take the MFU from the ledger: calibrated, pilot or trace (see docs/estimate.md).",
        "SOURCE",
    ),
    text_option(
        "--work-class",
        "Work class of the calibration (--mfu-from calibrated).",
        "CLASS",
        default="main",
    ),
    text_option(
        "--cluster", "Cluster of the calibration; needed when several are calibrated.", "NAME"
    ),
)


@command("estimate")
@run_options(required=True)
@gpu_option()
@gpu_tflops_option
@precision_option
@mfu_option
@text_option(
    "--model-class",
    "dense, moe, cnn or snn (the prior's kind); dense, or moe with --method moe.",
    "CLASS",
)
@text_option("--method", "FLOPs method: 6nt, attention, recompute or moe.", "METHOD", default="6nt")
@text_option(
    "--flops-terms",
    "FLOPs counted on top of 6·N·T, a comma list of recompute, attention, logits.",
    "TERMS",
)
@whole_option("--vocab", "Vocabulary size (logits term).")
@value_option("--active-params", "Active parameter count N (moe method).", "N")
@whole_option("--n-layers", "Transformer layers.", minimum=1)
@whole_option("--d-model", "Hidden size.", minimum=1)
@whole_option("--seq-len", "Sequence length, tokens.", minimum=1)
@whole_option("--heads", "Attention heads (memory).", minimum=1)
@whole_option("--micro-batch", "Per-GPU micro-batch: adds the memory check.", minimum=1)
@text_option(
    "--recompute", "Activation recomputation: none, selective, full.", "MODE", default="none"
)
@whole_option("--zero-stage", "ZeRO stage 0-3.", "STAGE", minimum=0, maximum=3, default=0)
@whole_option("--tp", "Tensor-parallel degree.", minimum=1, default=1, name="tensor_parallel")
@value_option(
    "--global-batch",
    "Sequences per optimizer step: adds the layout's most loaded rank and bubble.",
    "N",
)
@value_option("--pp", "Pipeline-parallel degree (the layout; default 1).", "N")
@value_option("--ep", "Expert-parallel degree (the layout; default 1).", "N")
@value_option("--virtual-stages", "Interleaved pipeline stages per rank (default 1).", "V")
@flag_option("--sequence-parallel", "Megatron sequence parallelism (the layout).")
@text_option("--run-id", "Land this estimate in the ledger under this run id.", "ID")
@mfu_from_options
@ledger_option
@json_option
@click.pass_context
def estimate(
    ctx: click.Context,
    params: str,
    tokens: str,
    gpus: str,
    price: str,
    gpu: str | None,
    gpu_tflops: str | None,
    precision: str,
    mfu: str | None,
    model_class: str | None,
    method: str,
    flops_terms: str | None,
    vocab: int | None,
    active_params: str | None,
    n_layers: int | None,
    d_model: int | None,
    seq_len: int | None,
    heads: int | None,
    micro_batch: int | None,
    recompute: str,
    zero_stage: int,
    tensor_parallel: int,
    global_batch: str | None,
    pp: str | None,
    ep: str | None,
    virtual_stages: str | None,
    sequence_parallel: bool,
    run_id: str | None,
    mfu_from: str | None,
    work_class: str,
    cluster: str | None,
    ledger: str | None,
    as_json: bool,
) -> None:
    """Estimate one run: FLOPs, wall time, GPU-hours and dollars (and memory with --micro-batch,
    the most loaded rank and the pipeline bubble with --global-batch)."""
    from trainbudget.cli.run_options import build_estimate, resolve_peak

    measured = None
    if mfu_from is not None:
        _check_mfu_from(mfu_from)
        if mfu is not None:
            raise InputError("--mfu-from: give either --mfu or --mfu-from, not both")
        from trainbudget.estimate.mfu_sources import read_mfu

        accelerator, peak, _ = resolve_peak(gpu, gpu_tflops, precision)
        measured = read_mfu(
            ledger_path(ctx, ledger),
            mfu_from,
            gpu=accelerator.name if accelerator else None,
            precision=precision,
            peak_flops_per_second=peak,
            work_class=work_class,
            cluster=cluster,
        )
    payload = build_estimate(ctx.params, measured=measured)
    if mfu is None and measured is None:
        _offer(ledger_path(ctx, ledger), payload["gpu"], work_class)
    if run_id is not None:
        from trainbudget.estimate.record import record_estimate

        if not run_id.strip():
            raise InputError("--run-id: must not be empty")
        payload["ledger"] = str(record_estimate(ledger_path(ctx, ledger), run_id, payload))
    for message in payload["warnings"]:
        warn(message)
    emit(payload, as_json, lambda console: _render_estimate(console, payload))


@command("campaign")
@path_argument("plan_file", "Campaign plan YAML.", "PLAN")
@flag_option("--record", "Land the plan and its campaign lines in the ledger.")
@mfu_from_options
@ledger_option
@json_option
@click.pass_context
def campaign(
    ctx: click.Context,
    plan_file: Path,
    record: bool,
    mfu_from: str | None,
    work_class: str,
    cluster: str | None,
    ledger: str | None,
    as_json: bool,
) -> None:
    """Price a campaign plan: lines by work class, totals, storage, sensitivity, ceiling."""
    render_campaign = lazy("trainbudget.cli.render.estimate", "render_campaign")
    from trainbudget.estimate.campaign_payload import campaign_payload
    from trainbudget.estimate.mfu_rule import MfuChoice, estimate_campaign
    from trainbudget.plan import load_plan

    if mfu_from is not None:
        _check_mfu_from(mfu_from)
    plan = load_plan(plan_file)
    measured = None
    if mfu_from is not None:
        from trainbudget.estimate.campaign import main_peak
        from trainbudget.estimate.mfu_sources import read_mfu

        measured = read_mfu(
            ledger_path(ctx, ledger),
            mfu_from,
            gpu=plan.main.gpu,
            precision=plan.main.precision,
            peak_flops_per_second=main_peak(plan) if mfu_from == "trace" else None,
            work_class=work_class,
            cluster=cluster,
        )
    from trainbudget.reliability import plan_ledger_curve_at

    curve = plan_ledger_curve_at(ledger_path(ctx, ledger), plan, cluster)
    # Measured: it re-derives the main run; else the plan prices itself (the rule's "plan").
    choice = (
        MfuChoice(None, "plan")
        if measured is None
        else MfuChoice(measured.mfu, measured.mfu_source)
    )
    result = estimate_campaign(plan, choice, curve)
    payload = campaign_payload(result)
    payload["mfu_from"] = None if measured is None else measured.to_payload()
    payload["warnings"] += [] if measured is None else measured.warnings
    assumed = ("prior", "class-default")
    if measured is None and result.main is not None and result.main.mfu_source in assumed:
        _offer(ledger_path(ctx, ledger), plan.main.gpu, work_class)
    for message in payload["warnings"]:
        warn(message)

    def land(book: Any) -> None:
        from trainbudget.estimate.record import land_campaign

        payload["lines_landed"] = land_campaign(book, plan_file, payload)
        payload["ledger"] = str(book.path)

    _, committed = in_ledger(
        ctx, ledger, no_ledger=not record, work=lambda book: None if book is None else land(book)
    )
    # Recorded and the ledger closed, then printed (cli/output.py: commit, then print).
    emit(payload, as_json, lambda console: render_campaign(console, payload), committed=committed)


def _render_estimate(console: Any, payload: dict[str, Any]) -> None:
    from trainbudget.cli.render.estimate import render_estimate  # rich.table: not for --json

    render_estimate(console, payload)


def _check_mfu_from(kind: str) -> None:
    from trainbudget.estimate.mfu_sources import MFU_FROM

    if kind not in MFU_FROM:
        raise InputError(f"--mfu-from: must be one of {', '.join(MFU_FROM)}, got {kind!r}")


def _offer(ledger_file: Path | None, gpu: str | None, work_class: str) -> None:
    """With an explicit --ledger and no MFU given, say on stderr which measured MFUs it holds."""
    if ledger_file is None:
        return
    from trainbudget.base.errors import LedgerBusyError
    from trainbudget.estimate.mfu_sources import offers

    try:
        measured = offers(ledger_file, gpu=gpu, work_class=work_class)
    except LedgerBusyError:
        # The offer is a courtesy, not worth a failure or a wait: say it was skipped.
        warn(
            f"ledger {ledger_file} is in use by another process: its measured MFUs were not "
            "looked up (the throughput prior's MFU is used)"
        )
        return
    found = [_offer_flags(offer) for offer in measured]
    if found:
        warn(
            f"the MFU is the throughput prior's, but ledger {ledger_file} has measured ones; "
            f"to use one, pass: {'; or '.join(found)}"
        )


def _offer_flags(offer: dict[str, Any]) -> str:
    """One measured MFU the ledger holds, as the options that select it."""
    if offer["mfu_from"] == "calibrated":
        return (
            f"--mfu-from calibrated --work-class {offer['work_class']} --cluster "
            f"{offer['cluster']} (MFU {offer['mfu']:.3g} from {offer['runs']} run(s))"
        )
    if offer["mfu_from"] == "pilot":
        return f"--mfu-from pilot (MFU {offer['mfu']:.3g} on {offer['gpu']})"
    return "--mfu-from trace (the newest landed profiler trace)"

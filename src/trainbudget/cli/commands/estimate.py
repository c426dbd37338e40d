"""`trainbudget estimate` (one run) and `trainbudget campaign PLAN.yaml` (a whole campaign).

`estimate` is the quick path: it imports only the estimator and writes to the ledger only when
given `--run-id` (then it opens DuckDB). `campaign` reads a plan file and prices every line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from trainbudget.base.errors import InputError
from trainbudget.cli.options import (
    GpuOption,
    GpusOption,
    GpuTflopsOption,
    JsonOption,
    LedgerOption,
    MfuOption,
    ParamsOption,
    PrecisionOption,
    PriceOption,
    TokensOption,
    ledger_path,
    value_option,
    whole_option,
)
from trainbudget.cli.output import emit, lazy, warn

MfuFromOption = Annotated[
    str | None,
    typer.Option(
        "--mfu-from",
        help="Take the MFU from the ledger: calibrated, pilot or trace (see docs/estimate.md).",
        metavar="SOURCE",
        show_default=False,
    ),
]
WorkClassOption = Annotated[
    str,
    typer.Option(
        "--work-class",
        help="Work class of the calibration (--mfu-from calibrated).",
        metavar="CLASS",
    ),
]
ClusterOption = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        help="Cluster of the calibration; needed when several are calibrated.",
        metavar="NAME",
    ),
]


def estimate(
    ctx: typer.Context,
    params: ParamsOption,
    tokens: TokensOption,
    gpus: GpusOption,
    price: PriceOption,
    gpu: GpuOption = None,
    gpu_tflops: GpuTflopsOption = None,
    precision: PrecisionOption = "bf16",
    mfu: MfuOption = None,
    model_class: Annotated[
        str | None,
        typer.Option(
            "--model-class",
            help="dense, moe, cnn or snn (class-default MFU); dense, or moe with --method moe.",
            show_default=False,
        ),
    ] = None,
    method: Annotated[
        str,
        typer.Option(
            "--method", help="FLOPs method: 6nt, attention, recompute or moe.", metavar="METHOD"
        ),
    ] = "6nt",
    flops_terms: Annotated[
        str | None,
        typer.Option(
            "--flops-terms",
            help="FLOPs counted on top of 6·N·T, a comma list of recompute, attention, logits.",
            metavar="TERMS",
            show_default=False,
        ),
    ] = None,
    vocab: Annotated[
        int | None, typer.Option("--vocab", help="Vocabulary size (logits term).", metavar="N")
    ] = None,
    active_params: Annotated[
        str | None, value_option("--active-params", "Active parameter count N (moe method).", "N")
    ] = None,
    n_layers: Annotated[
        int | None, whole_option("--n-layers", "Transformer layers.", minimum=1)
    ] = None,
    d_model: Annotated[int | None, whole_option("--d-model", "Hidden size.", minimum=1)] = None,
    seq_len: Annotated[
        int | None, whole_option("--seq-len", "Sequence length, tokens.", minimum=1)
    ] = None,
    heads: Annotated[
        int | None, whole_option("--heads", "Attention heads (memory).", minimum=1)
    ] = None,
    micro_batch: Annotated[
        int | None,
        whole_option("--micro-batch", "Per-GPU micro-batch: adds the memory check.", minimum=1),
    ] = None,
    recompute: Annotated[
        str,
        typer.Option(
            "--recompute",
            help="Activation recomputation: none, selective, full.",
            metavar="MODE",
        ),
    ] = "none",
    zero_stage: Annotated[
        int, whole_option("--zero-stage", "ZeRO stage 0-3.", "STAGE", minimum=0, maximum=3)
    ] = 0,
    tensor_parallel: Annotated[int, whole_option("--tp", "Tensor-parallel degree.", minimum=1)] = 1,
    run_id: Annotated[
        str | None,
        typer.Option(
            "--run-id", help="Land this estimate in the ledger under this run id.", metavar="ID"
        ),
    ] = None,
    mfu_from: MfuFromOption = None,
    work_class: WorkClassOption = "main",
    cluster: ClusterOption = None,
    ledger: LedgerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Estimate one run: FLOPs, wall time, GPU-hours and dollars (and memory with --micro-batch)."""
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
    payload = build_estimate(
        params=params,
        tokens=tokens,
        gpus=gpus,
        price=price,
        gpu=gpu,
        gpu_tflops=gpu_tflops,
        precision=precision,
        mfu=mfu,
        model_class=model_class,
        method=method,
        active_params=active_params,
        n_layers=n_layers,
        d_model=d_model,
        seq_len=seq_len,
        vocab=vocab,
        flops_terms=flops_terms,
        heads=heads,
        micro_batch=micro_batch,
        recompute=recompute,
        zero_stage=zero_stage,
        tensor_parallel=tensor_parallel,
        measured=measured,
    )
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


def _ledger_mtbf(path: Path | None, plan, cluster: str | None):
    """The ledger's fitted MTBF(n) when the plan says `mtbf: ledger` (read-only), else None."""
    if plan.reliability is None or plan.reliability.mtbf != "ledger":
        return None
    from trainbudget.base.errors import InputError
    from trainbudget.estimate.forecast import LEDGER_MISSING
    from trainbudget.ledger import Ledger, ledger_exists, resolve_ledger_path
    from trainbudget.reliability import plan_ledger_curve

    if not ledger_exists(path):
        raise InputError(f"{LEDGER_MISSING}; no ledger at {resolve_ledger_path(path)}")
    with Ledger.open_existing(path) as book:
        return plan_ledger_curve(book, plan, cluster)


def campaign(
    ctx: typer.Context,
    plan_file: Annotated[
        Path, typer.Argument(help="Campaign plan YAML.", metavar="PLAN", show_default=False)
    ],
    record: Annotated[
        bool, typer.Option("--record", help="Land the plan and its campaign lines in the ledger.")
    ] = False,
    mfu_from: MfuFromOption = None,
    work_class: WorkClassOption = "main",
    cluster: ClusterOption = None,
    ledger: LedgerOption = None,
    as_json: JsonOption = False,
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
    curve = _ledger_mtbf(ledger_path(ctx, ledger), plan, cluster)
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
    if measured is None and result.main is not None and result.main.mfu_source == "class-default":
        _offer(ledger_path(ctx, ledger), plan.main.gpu, work_class)
    for message in payload["warnings"]:
        warn(message)
    if not record:
        emit(payload, as_json, lambda console: render_campaign(console, payload))
        return
    from trainbudget.estimate.record import land_campaign
    from trainbudget.ledger import Ledger

    with Ledger.open(ledger_path(ctx, ledger)) as book, book.transaction():
        payload["lines_landed"] = land_campaign(book, plan_file, payload)
        payload["ledger"] = str(book.path)
    # Recorded and the ledger closed, then printed (cli/output.py: commit, then print).
    emit(payload, as_json, lambda console: render_campaign(console, payload), committed=True)


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
            "looked up (the class default is used)"
        )
        return
    found = [_offer_flags(offer) for offer in measured]
    if found:
        warn(
            f"the MFU is the class default, but ledger {ledger_file} has measured ones; "
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

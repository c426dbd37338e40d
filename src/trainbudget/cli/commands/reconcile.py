"""`trainbudget reconcile`: land scheduler records (and the optional joins), reconcile a week."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from trainbudget.cli.options import (
    JsonOption,
    LedgerOption,
    WaitOption,
    apply_wait,
    ledger_path,
    whole_option,
)
from trainbudget.cli.output import emit, emit_with_array, warn, working

FileList = Annotated[
    list[Path] | None,
    typer.Option(
        "--sacct",
        help="sacct export: --parsable2/--parsable text (any delimiter) or --json. Repeatable.",
        metavar="FILE",
    ),
]


def reconcile(
    ctx: typer.Context,
    sacct: FileList = None,
    registry: Annotated[
        Path | None, typer.Option(help="Experiment registry (CSV or YAML).", metavar="FILE")
    ] = None,
    progress: Annotated[
        Path | None, typer.Option(help="Application progress events (JSONL).", metavar="FILE")
    ] = None,
    manifest: Annotated[
        Path | None, typer.Option(help="Artifact manifest (CSV or JSONL).", metavar="FILE")
    ] = None,
    plan: Annotated[
        Path | None,
        typer.Option(help="Campaign plan YAML (default: the newest landed).", metavar="PLAN"),
    ] = None,
    week: Annotated[
        str | None,
        typer.Option(help="ISO week to review, e.g. 2026-W48 (default: all).", metavar="WEEK"),
    ] = None,
    cluster_tz: Annotated[
        str, typer.Option(help="Time zone sacct printed its times in.", metavar="TZ")
    ] = "UTC",
    cluster: Annotated[
        str,
        typer.Option(help="Cluster name for exports without a Cluster field.", metavar="NAME"),
    ] = "default",
    sacct_delimiter: Annotated[
        str | None, typer.Option(help="sacct --delimiter (default: detected).", metavar="CHAR")
    ] = None,
    sacct_fields: Annotated[
        str | None,
        typer.Option(
            "--sacct-fields",
            "--sacct-format",
            help=(
                "The columns of a headerless export: sacct field names, comma-separated, as "
                "given to sacct --format. Needed unless every row reads in the default order "
                "(JobID JobIDRaw JobName Account Partition State ExitCode Elapsed ElapsedRaw "
                "Submit Start End AllocTRES ReqTRES NNodes AllocCPUS TRESUsageInTot), and a "
                "file read in that order never replaces landed rows."
            ),
            metavar="FIELDS",
        ),
    ] = None,
    live: Annotated[
        bool, typer.Option("--live", help="Run sacct here (a login node) for the week.")
    ] = False,
    clock_tolerance_seconds: Annotated[
        int,
        whole_option(
            "--clock-tolerance-seconds",
            "Scheduler vs application clock gap that flags a job.",
            "SECONDS",
            minimum=0,
        ),
    ] = 300,
    no_ledger: Annotated[
        bool,
        typer.Option(
            "--no-ledger",
            help="Reconcile in a scratch ledger that is deleted afterwards (give --plan).",
        ),
    ] = False,
    ledger: LedgerOption = None,
    wait: WaitOption = None,
    as_json: JsonOption = False,
) -> None:
    """Reconcile allocated GPU-hours: useful / recovery / lost / unverified, plan, diagnosis."""
    import tempfile

    from trainbudget.cli.render.reconcile import render_reconcile
    from trainbudget.ledger import Ledger
    from trainbudget.reconcile.report import reconcile_payload
    from trainbudget.weekly import WeeklyInputs, reconcile

    apply_wait(wait)
    inputs = WeeklyInputs(
        sacct=list(sacct or []),
        registry=registry,
        progress=progress,
        manifest=manifest,
        plan=plan,
        week=week,
        cluster_tz=cluster_tz,
        cluster=cluster,
        sacct_delimiter=sacct_delimiter,
        sacct_fields=[f.strip() for f in sacct_fields.split(",")] if sacct_fields else None,
        live=live,
        clock_tolerance_s=clock_tolerance_seconds,
    )
    with tempfile.TemporaryDirectory(prefix="trainbudget-reconcile-") as tmp:
        jobs_path = Path(tmp) / "jobs.json"
        # Commit, then print: the landing and review commit and the ledger closes before a
        # line is written, so a closed pipe or a slow reader neither undoes nor holds it.
        book_path = Path(tmp) / "scratch.duckdb" if no_ledger else ledger_path(ctx, ledger)
        with Ledger.open(book_path) as book, working("landing and reconciling…"):
            result = reconcile(book, inputs, jobs_path if as_json else None)
            payload = reconcile_payload(result)
        for message in result.warnings:
            warn(message)
        if as_json:
            emit_with_array(payload, "jobs", jobs_path, sys.stdout.buffer, committed=True)
        else:
            top_jobs = result.review.top_jobs
            emit(payload, False, lambda console: render_reconcile(console, payload, top_jobs),
                 committed=True)  # fmt: skip

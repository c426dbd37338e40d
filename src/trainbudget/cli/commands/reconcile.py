"""`trainbudget reconcile`: land scheduler records (and the optional joins), reconcile a week."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from trainbudget.cli.help import command
from trainbudget.cli.options import (
    apply_wait,
    cluster_tz_option,
    flag_option,
    json_option,
    ledger_option,
    ledger_path,
    path_option,
    text_option,
    wait_option,
    whole_option,
)
from trainbudget.cli.output import emit, emit_with_array, warn, working


@command("reconcile")
@path_option(
    "--sacct",
    "sacct export: --parsable2/--parsable text (any delimiter) or --json. Repeatable.",
    multiple=True,
)
@path_option("--registry", "Experiment registry (CSV or YAML).")
@path_option("--progress", "Application progress events (JSONL).")
@path_option("--manifest", "Artifact manifest (CSV or JSONL).")
@path_option("--plan", "Campaign plan YAML (default: the newest landed).", "PLAN")
@text_option(
    "--week",
    "ISO week to review, e.g. 2026-W48 (default: the weeks this run's --sacct files cover, "
    "else the newest landed export's).",
    "WEEK",
)
@cluster_tz_option
@text_option(
    "--cluster", "Cluster name for exports without a Cluster field.", "NAME", default="default"
)
@text_option("--sacct-delimiter", "sacct --delimiter (default: detected).", "CHAR")
@click.option(
    "--sacct-fields",
    "--sacct-format",
    "sacct_fields",
    metavar="FIELDS",
    help=(
        "The columns of a headerless export: sacct field names, comma-separated, as "
        "given to sacct --format. Needed unless every row reads in the default order "
        "(JobID JobIDRaw JobName Account Partition State ExitCode Elapsed ElapsedRaw "
        "Submit Start End AllocTRES ReqTRES NNodes AllocCPUS TRESUsageInTot), and a "
        "file read in that order never replaces landed rows."
    ),
)
@flag_option("--live", "Run sacct here (a login node) for the week.")
@whole_option(
    "--clock-tolerance-seconds",
    "Scheduler vs application clock gap that flags a job.",
    "SECONDS",
    minimum=0,
    default=300,
)
@flag_option(
    "--no-ledger", "Reconcile in a scratch ledger that is deleted afterwards (give --plan)."
)
@path_option(
    "--jobs",
    "Write every reviewed job to this file (.parquet, .csv or .jsonl) instead of inline; "
    "--json then has jobs_file and job_count.",
    "PATH",
)
@ledger_option
@wait_option
@json_option
@click.pass_context
def reconcile(
    ctx: click.Context,
    sacct: tuple[Path, ...],
    registry: Path | None,
    progress: Path | None,
    manifest: Path | None,
    plan: Path | None,
    week: str | None,
    cluster_tz: str,
    cluster: str,
    sacct_delimiter: str | None,
    sacct_fields: str | None,
    live: bool,
    clock_tolerance_seconds: int,
    no_ledger: bool,
    jobs: Path | None,
    ledger: str | None,
    wait: str | None,
    as_json: bool,
) -> None:
    """Reconcile allocated GPU-hours: useful / recovery / lost / unverified, plan, diagnosis."""
    import tempfile

    from trainbudget.ledger import Ledger
    from trainbudget.reconcile.report import reconcile_payload
    from trainbudget.reconcile.review import jobs_file_format, write_jobs_file
    from trainbudget.weekly import WeeklyInputs, reconcile

    apply_wait(wait)
    if jobs is not None:
        jobs_file_format(jobs)  # refused before anything is landed
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
        with Ledger.open(book_path) as book:
            with working("landing and reconciling…"):
                inline = as_json and jobs is None
                result = reconcile(book, inputs, jobs_path if inline else None)
                payload = reconcile_payload(result)
            if jobs is not None:
                # After the commit: the file is written whole (temp + rename) or not at all.
                with working("writing the jobs…"):
                    count = write_jobs_file(book, result.review, jobs)
                payload |= {"jobs_file": str(jobs), "job_count": count}
        for message in result.warnings:
            warn(message)
        _print(payload, result, as_json, jobs_path if inline else None)


def _print(payload: dict[str, Any], result: Any, as_json: bool, array: Path | None) -> None:
    """The JSON object (with the jobs array streamed in from `array` when given) or the table,
    printed after the commit (a closed pipe then ends quietly)."""
    from trainbudget.cli.render.reconcile import render_reconcile

    if array is not None:
        emit_with_array(payload, "jobs", array, sys.stdout.buffer, committed=True)
    else:
        top_jobs = result.review.top_jobs
        emit(
            payload,
            as_json,
            lambda console: render_reconcile(console, payload, top_jobs),
            committed=True,
        )

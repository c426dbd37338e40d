"""`trainbudget prelaunch PLAN --pilot-log F …`: the pre-launch procedure without Prefect.

The same steps as the prelaunch-estimate flow (trainbudget.prelaunch), in this process: the
report folder and summary.json are the flow's, and the decisions land in the ledger alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trainbudget.cli import options as parse
from trainbudget.cli.options import (
    JsonOption,
    LedgerOption,
    ledger_path,
    value_option,
    whole_option,
)
from trainbudget.cli.output import emit, warn, working


def prelaunch(
    ctx: typer.Context,
    plan: Annotated[Path, typer.Argument(help="Campaign plan YAML.", metavar="PLAN")],
    pilot_log: Annotated[
        list[Path],
        typer.Option(
            "--pilot-log",
            help="Pilot step log (CSV, Parquet, JSONL). Repeatable.",
            metavar="FILE",
            show_default=False,
        ),
    ],
    trace: Annotated[
        list[Path] | None,
        typer.Option(
            "--trace",
            help="Profiler trace file or folder of rank traces. Repeatable.",
            metavar="PATH",
        ),
    ] = None,
    ablations: Annotated[
        Path | None,
        typer.Option("--ablations", help="Ablations CSV for the scaling fit.", metavar="FILE"),
    ] = None,
    baseline_loss: Annotated[
        str | None,
        value_option("--baseline-loss", "Loss of the model to beat (with --ablations).", "LOSS"),
    ] = None,
    gain: Annotated[
        str | None,
        value_option(
            "--gain",
            "Predicted gain, instead of --ablations.",
            "GAIN",
        ),
    ] = None,
    gain_uncertainty: Annotated[
        str,
        value_option(
            "--gain-uncertainty",
            "± uncertainty of --gain.",
            "GAIN",
        ),
    ] = "0",
    gain_source: Annotated[
        str, typer.Option("--gain-source", help="Where --gain comes from.", metavar="TEXT")
    ] = "given",
    min_gain: Annotated[
        str,
        value_option(
            "--min-gain",
            "Smallest gain with a concrete benefit.",
            "GAIN",
        ),
    ] = "0",
    expected_interruptions: Annotated[
        str,
        value_option("--expected-interruptions", "Interruptions expected during the run.", "COUNT"),
    ] = "1",
    bootstrap: Annotated[
        int, whole_option("--bootstrap", "Bootstrap resamples of the scaling fit.", minimum=1)
    ] = 200,
    seed: Annotated[int, whole_option("--seed", "Seed of the resampling.")] = 0,
    data_snapshot: Annotated[
        str | None,
        typer.Option(
            "--data-snapshot",
            help="The data snapshot the run trains on (checked against the plan's).",
            metavar="SNAPSHOT",
        ),
    ] = None,
    report_root: Annotated[
        Path,
        typer.Option("--report-root", help="Folder for the run's report folder.", metavar="DIR"),
    ] = Path("trainbudget-reports"),
    no_ledger: Annotated[
        bool,
        typer.Option("--no-ledger", help="Land into a scratch ledger that is deleted afterwards."),
    ] = False,
    ledger: LedgerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Estimate a campaign from its pilot, traces and ablations; admit it; weigh its gain."""
    import tempfile

    from trainbudget.ledger import Ledger
    from trainbudget.prelaunch import PrelaunchInputs, run_prelaunch

    inputs = PrelaunchInputs(
        plan=plan,
        pilot_logs=list(pilot_log),
        traces=list(trace or []),
        ablations=ablations,
        baseline_loss=parse.number("--baseline-loss", baseline_loss),
        gain=parse.number("--gain", gain),
        gain_uncertainty=parse.amount("--gain-uncertainty", gain_uncertainty),
        gain_source=gain_source,
        min_gain=parse.amount("--min-gain", min_gain),
        expected_interruptions=parse.amount("--expected-interruptions", expected_interruptions),
        bootstrap=bootstrap,
        seed=seed,
        data_snapshot=data_snapshot,
        report_root=report_root,
    )
    with tempfile.TemporaryDirectory(prefix="trainbudget-prelaunch-") as tmp:
        book_path = Path(tmp) / "scratch.duckdb" if no_ledger else ledger_path(ctx, ledger)
        with Ledger.open(book_path) as book, working("pre-launch estimate…"):
            result, summary = run_prelaunch(inputs, book)
    for message in (
        *result.estimate.warnings,
        *result.landed.trace_warnings,
        *result.quarantine.lines(),
    ):
        warn(message)

    def render(console) -> None:
        from rich.markup import escape

        from trainbudget.cli.render.text import print_path

        console.print(
            f"[bold]{escape(summary['campaign'])}[/bold]: planned "
            f"{float(summary['planned_gpu_hours']):,.2f} GPU-hours, main-run MFU "
            f"{escape(result.mfu.describe())}"
        )
        for outcome in result.gates:
            console.print(
                f"{outcome.gate}: [bold]{outcome.outcome}[/bold] — {escape(outcome.sentence)}",
                soft_wrap=True,
            )
        print_path(console, summary["report"], "report:")

    emit(summary, as_json, render, committed=True)  # the run committed; the ledger is closed

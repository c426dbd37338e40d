"""`trainbudget prelaunch PLAN --pilot-log F …`: the pre-launch procedure without Prefect.

The same steps as the prelaunch-estimate flow (trainbudget.prelaunch), in this process: the
report folder and summary.json are the flow's, and the decisions land in the ledger alike.
"""

from __future__ import annotations

from pathlib import Path

import click

from trainbudget.cli import options as parse
from trainbudget.cli.help import command
from trainbudget.cli.options import (
    flag_option,
    json_option,
    ledger_option,
    ledger_path,
    path_argument,
    path_option,
    seed_option,
    text_option,
    value_option,
    whole_option,
)
from trainbudget.cli.output import emit, warn, working


@command("prelaunch")
@path_argument("plan", "Campaign plan YAML.", "PLAN")
@path_option(
    "--pilot-log",
    "Pilot step log (CSV, Parquet, JSONL). Repeatable.",
    "FILE",
    multiple=True,
    required=True,
)
@path_option(
    "--trace", "Profiler trace file or folder of rank traces. Repeatable.", "PATH", multiple=True
)
@path_option("--ablations", "Ablations CSV for the scaling fit.", "FILE")
@value_option("--baseline-loss", "Loss of the model to beat (with --ablations).", "LOSS")
@value_option("--gain", "Predicted gain, instead of --ablations.", "GAIN")
@value_option("--gain-uncertainty", "± uncertainty of --gain.", "GAIN", default="0")
@text_option("--gain-source", "Where --gain comes from.", "TEXT", default="given")
@value_option("--min-gain", "Smallest gain with a concrete benefit.", "GAIN", default="0")
@value_option(
    "--expected-interruptions", "Interruptions expected during the run.", "COUNT", default="1"
)
@whole_option("--bootstrap", "Bootstrap resamples of the scaling fit.", minimum=1, default=200)
@seed_option
@text_option(
    "--data-snapshot",
    "The data snapshot the run trains on (checked against the plan's).",
    "SNAPSHOT",
)
@path_option(
    "--report-root",
    "Folder for the run's report folder.",
    "DIR",
    default=Path("trainbudget-reports"),
)
@flag_option("--no-ledger", "Land into a scratch ledger that is deleted afterwards.")
@ledger_option
@json_option
@click.pass_context
def prelaunch(
    ctx: click.Context,
    plan: Path,
    pilot_log: tuple[Path, ...],
    trace: tuple[Path, ...],
    ablations: Path | None,
    baseline_loss: str | None,
    gain: str | None,
    gain_uncertainty: str,
    gain_source: str,
    min_gain: str,
    expected_interruptions: str,
    bootstrap: int,
    seed: int,
    data_snapshot: str | None,
    report_root: Path,
    no_ledger: bool,
    ledger: str | None,
    as_json: bool,
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

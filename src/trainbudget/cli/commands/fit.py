"""`trainbudget fit ABLATIONS.csv --target-params N --target-tokens T`: scaling-law fit.

Fits L(N, D) = E + A/N^α + B/D^β to small ablations (Hoffmann et al. 2022, Approach 3),
bootstraps intervals, predicts the loss (and the gain over a baseline) at the target, gives
the compute-optimal split of the budget, lands everything in the ledger, optionally plots.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import click

from trainbudget.cli import options as parse
from trainbudget.cli.decisions import in_ledger
from trainbudget.cli.help import command
from trainbudget.cli.options import (
    json_option,
    ledger_option,
    no_ledger_option,
    path_argument,
    path_option,
    seed_option,
    text_option,
    value_option,
    whole_option,
)
from trainbudget.cli.output import emit, warn, working


@command("fit")
@path_argument("ablations", "CSV of ablation results: params, tokens (or FLOPs), loss.", "FILE")
@value_option(
    "--target-params", "Parameter count N of the run to predict, e.g. 7e9.", "N", required=True
)
@value_option(
    "--target-tokens", "Training tokens D of that run, e.g. 1.4e11.", "TOKENS", required=True
)
@value_option("--baseline-loss", "Loss to beat; gives the predicted gain.", "LOSS")
@whole_option("--bootstrap", "Bootstrap resamples for the intervals.", minimum=0, default=1000)
@seed_option
@text_option("--confidence", "Coverage of the percentile intervals, in (0, 1).", "P", default="0.9")
@value_option(
    "--budget-flops",
    "FLOP budget for the compute-optimal split (default 6·N·D of the target).",
    "FLOPS",
)
@text_option("--params-column", "Column holding parameters N.", "COLUMN", default="params")
@text_option("--tokens-column", "Column holding training tokens D.", "COLUMN", default="tokens")
@text_option("--flops-column", "Column holding training FLOPs C; tokens = C / (6·N).", "COLUMN")
@text_option("--loss-column", "Column holding the loss.", "COLUMN", default="loss")
@whole_option(
    "--drop-highest-loss",
    "Set aside the N highest-loss points as outliers (the Chinchilla replication uses 5).",
    default=0,
)
@path_option("--plot", "Write a PNG of the fit to this file.", "FILE")
@no_ledger_option
@ledger_option
@json_option
@click.pass_context
def fit(
    ctx: click.Context,
    ablations: Path,
    target_params: str,
    target_tokens: str,
    baseline_loss: str | None,
    bootstrap: int,
    seed: int,
    confidence: str,
    budget_flops: str | None,
    params_column: str,
    tokens_column: str,
    flops_column: str | None,
    loss_column: str,
    drop_highest_loss: int,
    plot: Path | None,
    no_ledger: bool,
    ledger: str | None,
    as_json: bool,
) -> None:
    """Fit a scaling law to ablations and predict the loss at the target scale, with intervals."""
    from trainbudget.cli.render.scaling import render_analysis
    from trainbudget.scaling.analysis import analyse_ablations
    from trainbudget.scaling.load import AblationColumns, read_ablations

    target_n = _float(parse.positive("--target-params", target_params))
    target_d = _float(parse.positive("--target-tokens", target_tokens))
    baseline = _float(parse.positive("--baseline-loss", baseline_loss))
    level = _float(parse.fraction("--confidence", confidence, include_one=False))
    budget = _float(parse.positive("--budget-flops", budget_flops))
    columns = AblationColumns(
        params=params_column, tokens=tokens_column, loss=loss_column, flops=flops_column
    )
    points = read_ablations(ablations, columns, drop_highest_loss)
    with working(f"fitting {len(points.loss)} points, then {bootstrap} bootstrap refits…"):
        analysis = analyse_ablations(
            points,
            target_n,
            target_d,
            baseline_loss=baseline,
            resamples=bootstrap,
            seed=seed,
            confidence=level,
            budget_flops=budget,
        )
    options = {
        "columns": {
            "params": params_column,
            "tokens": None if flops_column else tokens_column,
            "flops": flops_column,
            "loss": loss_column,
        },
        "drop_highest_loss": drop_highest_loss,
        "target_params": target_n,
        "target_tokens": target_d,
        "baseline_loss": baseline,
        "bootstrap": bootstrap,
        "seed": seed,
        "confidence": level,
        "budget_flops": budget,
    }
    plot_path = None
    if plot is not None:
        from trainbudget.scaling.plot import plot_fit

        # Before the landing: a plot that cannot be written leaves the ledger as it was.
        plot_path = str(plot_fit(analysis, plot))
    payload = {"file": str(ablations), **analysis.payload(), "plot": plot_path, "ledger": None}
    for message in analysis.warnings:
        warn(message)

    def land(book: Any) -> None:
        from trainbudget.scaling.land import land_analysis

        fit_id, landed = land_analysis(book, analysis, options)
        payload["ledger"] = {"path": str(book.path), "fit_id": fit_id, "landed": landed}

    _, committed = in_ledger(
        ctx, ledger, no_ledger=no_ledger, work=lambda book: None if book is None else land(book)
    )
    # Landed and the ledger closed, then printed (cli/output.py: commit, then print).
    emit(payload, as_json, lambda console: render_analysis(console, payload), committed=committed)


def _float(value: Decimal | None) -> float | None:
    """The scaling stage computes in floats (scipy); a parsed option enters it here."""
    return None if value is None else float(value)

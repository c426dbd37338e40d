"""The `fit` command's answer for people: the law, the prediction, the gain, the allocation."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from trainbudget.cli.render.text import number_column, print_path


def _g(value: float | None, digits: int = 4) -> str:
    """A fitted number for display: `digits` significant figures (display only)."""
    return "n/a" if value is None else f"{value:.{digits}g}"


def _interval(pair: list[float], digits: int = 4) -> str:
    return f"[{_g(pair[0], digits)}, {_g(pair[1], digits)}]"


def render_analysis(console: Console, payload: dict[str, Any]) -> None:
    """Print the fit's tables from the command's JSON payload."""
    fit, boot = payload["fit"], payload["bootstrap"]
    level = f"{payload['confidence']:.0%}"
    console.print(
        f"Scaling fit of {payload['file']}: {fit['points']} points "
        f"({fit['dropped_points']} dropped), {fit['converged_starts']:,} of "
        f"{fit['starts']:,} L-BFGS starts converged",
        soft_wrap=True,
    )
    table = Table(title=f"L(N, D) = E + A/N^α + B/D^β, {level} bootstrap intervals")
    table.add_column("quantity")
    number_column(table, "value")
    number_column(table, f"{level} interval")
    for name, value in payload["params"].items():
        table.add_row(name, _g(value), _interval(payload["params_interval"][name]))
    target = payload["target"]
    table.add_row(
        f"loss at N={_g(target['params'], 3)}, D={_g(target['tokens'], 3)}",
        _g(payload["predicted_loss"]),
        _interval(payload["predicted_loss_interval"]),
    )
    gain = payload["gain"]
    if gain is not None:
        table.add_row(
            f"gain vs baseline {_g(gain['baseline_loss'])}",
            _g(gain["gain"], 3),
            _interval(gain["gain_interval"], 3),
        )
    alloc = payload["allocation"]
    table.add_row(
        f"N_opt for {_g(alloc['budget_flops'], 3)} FLOPs",
        _g(alloc["params_opt"], 3),
        _interval(alloc["params_opt_interval"], 3),
    )
    table.add_row("D_opt", _g(alloc["tokens_opt"], 3), _interval(alloc["tokens_opt_interval"], 3))
    table.add_row(
        "tokens per parameter",
        _g(alloc["tokens_per_param"], 3),
        _interval(alloc["tokens_per_param_interval"], 3),
    )
    console.print(table)
    if gain is not None:
        verdict = "exceeds" if gain["gain_exceeds_uncertainty"] else "does NOT exceed"
        console.print(
            f"The predicted gain {_g(gain['gain'], 3)} {verdict} its uncertainty "
            f"±{_g(gain['gain_uncertainty'], 3)} (seed 004's rule)."
        )
    book = payload["ledger"]
    console.print(
        f"{boot['resamples']:,} resamples (seed {boot['seed']}, {boot['failed']} failed); "
        + (
            "not recorded (--no-ledger)"
            if book is None
            else f"recorded as fit {book['fit_id']}"
            + ("" if book["landed"] else " (already landed, unchanged)")
            + " in ledger:"
        )
    )
    if book is not None:
        print_path(console, book["path"])
    if payload["plot"]:
        console.print("plot:")
        print_path(console, payload["plot"])

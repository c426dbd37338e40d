"""The gates on the terminal: admit, decide and stop-rules verdicts, and the decision log."""

from __future__ import annotations

from datetime import UTC
from typing import Any

from rich.markup import escape
from rich.table import Table

from trainbudget.base.exact_json import fmt_number
from trainbudget.cli.render.text import number_column, print_table


def _recorded(console: Any, payload: dict[str, Any]) -> None:
    """Where the verdict went: its decision id in the ledger, or nowhere (--no-ledger)."""
    if payload["decision_id"] is None:
        console.print("[dim]not recorded (--no-ledger)[/dim]")
    else:
        console.print(f"[dim]recorded as decision {payload['decision_id']} in the ledger[/dim]")


def render_admission(console: Any, payload: dict[str, Any]) -> None:
    """ADMIT or DEFER with its sentence, every further reason, and the decision's id."""
    colour = "green" if payload["state"] == "admit" else "yellow"
    console.print(
        f"[bold {colour}]{payload['state'].upper()}[/] {escape(payload['sentence'])}",
        soft_wrap=True,
    )
    for extra in payload["reasons"][1:]:
        console.print(
            f"  also [{colour}]{extra['reason']}[/]: {escape(extra['sentence'])}",
            soft_wrap=True,
        )
    _recorded(console, payload)


def render_decisions(console: Any, payload: dict[str, Any]) -> None:
    """One entry per recorded decision, oldest first (not a table: the sentence must not wrap
    into a narrow column)."""
    rows, campaign = payload["decisions"], payload["campaign"]
    title = f"{len(rows)} decision(s)" + (f" for campaign {campaign}" if campaign else "")
    console.print(f"[bold]{title}[/bold]")
    for row in rows:
        when = row["decided_at"].astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        about = "/".join(part for part in (row["campaign_id"], row["run_id"]) if part)
        code = f" ({row['reason']})" if row["reason"] else ""
        console.print(
            f"#{row['decision_id']} {when} {row['gate']}"
            + (f" {escape('[' + about + ']')}" if about else "")
            + f" [bold]{row['outcome']}[/bold]{code}"
        )
        console.print(f"    {escape(row['sentence'])}", soft_wrap=True)


def render_stop_rules(console: Any, payload: dict[str, Any]) -> None:
    """STOP or CONTINUE with its sentence and the decision's id."""
    colour = "red" if payload["outcome"] == "stop" else "green"
    console.print(
        f"[bold {colour}]{payload['outcome'].upper()}[/] {escape(payload['sentence'])}",
        soft_wrap=True,
    )
    _recorded(console, payload)


def render_decision(console: Any, payload: dict[str, Any]) -> None:
    """The `decide` verdict and its cheaper alternatives, each priced by the estimator."""
    colour = {"run": "green", "defer": "yellow"}.get(payload["verdict"], "red")
    console.print(f"[bold {colour}]{payload['verdict'].upper()}[/] {escape(payload['sentence'])}")
    console.print(f"cost: {escape(payload['cost_basis_sentence'])}", soft_wrap=True)
    table = Table(title="cheaper alternatives (priced by the estimator)")
    table.add_column("alternative", no_wrap=True)
    for column in ("GPU-hours", "cost", "gain", "gain per $1k"):
        number_column(table, column)
    for alt in payload["alternatives"]:
        table.add_row(
            alt["name"],
            _shown(alt["gpu_hours"], lambda v: fmt_number(v, 0)),
            _shown(alt["cost_usd"], lambda v: f"${fmt_number(v)}"),
            _shown(alt["predicted_gain"], lambda v: f"{float(v):.4g}"),
            _shown(alt["gain_per_1000_usd"], lambda v: f"{float(v):.3g}"),
        )
    print_table(console, table, ("gain per $1k", "GPU-hours"))
    for alt in payload["alternatives"]:
        console.print(f"  {alt['name']}: {escape(alt['description'])}; {escape(alt['note'])}")
    _recorded(console, payload)


def _shown(value: Any, fmt: Any) -> str:
    return "-" if value is None else fmt(value)

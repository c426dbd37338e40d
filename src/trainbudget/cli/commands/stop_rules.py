"""`trainbudget stop-rules`: check a running job's progress against its declared stop rules.

Rules come from the plan's `gates.stop_rules` (--plan) or from flags, and are validated as at
declaration: an early-stop metric on the final holdout, or not among the development metrics,
is refused (exit 2). The verdict is recorded in the ledger's decisions table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trainbudget.base.errors import InputError
from trainbudget.cli import options as parse
from trainbudget.cli.decisions import record_or_emit
from trainbudget.cli.options import (
    JsonOption,
    LedgerOption,
    NoLedgerOption,
    value_option,
    whole_option,
)
from trainbudget.cli.output import lazy, warn


def stop_rules(
    ctx: typer.Context,
    wall_hours: Annotated[
        str, value_option("--wall-hours", "Wall-clock hours the run has used.", "HOURS")
    ],
    spent_usd: Annotated[str, value_option("--spent-usd", "Dollars the run has spent.", "USD")],
    failed_steps: Annotated[
        int, whole_option("--failed-steps", "Failed steps so far.", minimum=0)
    ] = 0,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            help="A development metric's history NAME=v1,v2,... in evaluation order (repeatable).",
            metavar="NAME=V1,V2",
        ),
    ] = None,
    finished: Annotated[
        bool, typer.Option("--finished", help="The run reached its planned end.")
    ] = False,
    plan: Annotated[
        Path | None,
        typer.Option("--plan", help="Take the rules from gates.stop_rules.", metavar="PLAN"),
    ] = None,
    max_wall_hours: Annotated[
        str | None, value_option("--max-wall-hours", "Maximum wall clock, hours.", "HOURS")
    ] = None,
    spend_limit_usd: Annotated[
        str | None, value_option("--spend-limit-usd", "Spend limit, dollars.", "USD")
    ] = None,
    max_failed_steps: Annotated[
        int | None, whole_option("--max-failed-steps", "Failed steps tolerated.", minimum=0)
    ] = None,
    early_stop_metric: Annotated[
        str | None,
        typer.Option("--early-stop-metric", help="Development metric to watch.", metavar="METRIC"),
    ] = None,
    mode: Annotated[
        str,
        typer.Option("--mode", help="min or max (better is lower/higher).", metavar="MODE"),
    ] = "min",
    patience: Annotated[
        int, whole_option("--patience", "Evaluations without gain.", minimum=1)
    ] = 3,
    min_delta: Annotated[
        str, value_option("--min-delta", "Smallest change that counts as gain.", "DELTA")
    ] = "0",
    dev_metric: Annotated[
        list[str] | None,
        typer.Option(
            "--dev-metric", help="A declared development metric (repeatable).", metavar="METRIC"
        ),
    ] = None,
    holdout_metric: Annotated[
        list[str] | None,
        typer.Option(
            "--holdout-metric", help="A final holdout metric (repeatable).", metavar="METRIC"
        ),
    ] = None,
    campaign: Annotated[
        str | None, typer.Option("--campaign", help="Campaign id.", metavar="ID")
    ] = None,
    run_id: Annotated[
        str | None, typer.Option("--run-id", help="The run being checked.", metavar="ID")
    ] = None,
    no_ledger: NoLedgerOption = False,
    ledger: LedgerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Stop or continue a run under its declared rules; a budget stop marks it unpromotable."""
    render_stop_rules = lazy("trainbudget.cli.render.gates", "render_stop_rules")
    from trainbudget.gates.stop_rules import (
        EarlyStop,
        RunProgress,
        declare_stop_rules,
        evaluate_stop_rules,
        plan_stop_rules,
    )

    histories = dict(_history(text) for text in metric or [])
    if plan is not None:
        from trainbudget.plan import load_plan

        loaded = load_plan(plan)
        rules = plan_stop_rules(loaded, plan)
        campaign = campaign or loaded.campaign
    else:
        early = None
        if early_stop_metric is not None:
            early = EarlyStop(
                early_stop_metric, mode, patience, parse.amount("--min-delta", min_delta)
            )
        rules = declare_stop_rules(
            development_metrics=dev_metric or [],
            holdout_metrics=holdout_metric or [],
            max_wall_hours=parse.duration("--max-wall-hours", max_wall_hours),
            spend_limit_usd=parse.amount("--spend-limit-usd", spend_limit_usd, "dollars"),
            max_failed_steps=max_failed_steps,
            early_stop=early,
        )
    progress = RunProgress(
        parse.duration("--wall-hours", wall_hours),
        parse.amount("--spent-usd", spent_usd, "dollars"),
        failed_steps,
        histories,
        finished,
    )
    if rules.early_stop is not None and rules.early_stop.metric not in histories:
        warn(
            f"--metric: no history given for the early-stop metric {rules.early_stop.metric!r}; "
            "early stopping was not checked"
        )
    outcome = evaluate_stop_rules(rules, progress)
    payload = {
        "outcome": outcome.outcome,
        "reason": outcome.reason,
        "sentence": outcome.sentence,
        "artifact_state": outcome.details["artifact_state"],
        "promotable": outcome.details["promotable"],
        "decision_id": None,
    }
    record_or_emit(
        ctx, ledger, no_ledger=no_ledger, decide=lambda _: (outcome, payload),
        campaign_id=campaign, run_id=run_id, as_json=as_json, render=render_stop_rules,
    )  # fmt: skip


def _history(text: str) -> tuple[str, list[str]]:
    """NAME=v1,v2,... → (NAME, [values]); values are checked as numbers by the gate."""
    name, sep, values = text.partition("=")
    if not sep or not name.strip():
        raise InputError(f"--metric: expected NAME=V1,V2,..., got {text!r}")
    parsed = [parse.number(f"--metric {name.strip()}", v) for v in values.split(",") if v.strip()]
    return name.strip(), parsed

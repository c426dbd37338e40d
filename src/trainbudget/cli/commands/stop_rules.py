"""`trainbudget stop-rules`: check a running job's progress against its declared stop rules.

Rules come from the plan's `gates.stop_rules` (--plan) or from flags, and are validated as at
declaration: an early-stop metric on the final holdout, or not among the development metrics,
is refused (exit 2). The verdict is recorded in the ledger's decisions table.
"""

from __future__ import annotations

from pathlib import Path

import click
from click.core import ParameterSource

from trainbudget.base.errors import InputError
from trainbudget.cli import options as parse
from trainbudget.cli.decisions import record_or_emit
from trainbudget.cli.help import command
from trainbudget.cli.options import (
    campaign_option,
    flag_option,
    json_option,
    ledger_option,
    no_ledger_option,
    path_option,
    text_option,
    value_option,
    whole_option,
)
from trainbudget.cli.output import lazy, warn


@command("stop-rules")
@value_option("--wall-hours", "Wall-clock hours the run has used.", "HOURS", required=True)
@value_option("--spent-usd", "Dollars the run has spent.", "USD", required=True)
@whole_option("--failed-steps", "Failed steps so far.", minimum=0, default=0)
@click.option(
    "--metric",
    multiple=True,
    metavar="NAME=V1,V2",
    help="A development metric's history NAME=v1,v2,... in evaluation order (repeatable).",
)
@flag_option("--finished", "The run reached its planned end.")
@path_option("--plan", "Take the rules from gates.stop_rules.", "PLAN")
@value_option("--max-wall-hours", "Maximum wall clock, hours.", "HOURS")
@value_option("--spend-limit-usd", "Spend limit, dollars.", "USD")
@whole_option("--max-failed-steps", "Failed steps tolerated.", minimum=0)
@text_option("--early-stop-metric", "Development metric to watch.", "METRIC")
@text_option("--mode", "min or max (better is lower/higher).", "MODE", default="min")
@whole_option("--patience", "Evaluations without gain.", minimum=1, default=3)
@value_option("--min-delta", "Smallest change that counts as gain.", "DELTA", default="0")
@click.option(
    "--dev-metric",
    multiple=True,
    metavar="METRIC",
    help="A declared development metric (repeatable).",
)
@click.option(
    "--holdout-metric", multiple=True, metavar="METRIC", help="A final holdout metric (repeatable)."
)
@campaign_option
@text_option("--run-id", "The run being checked.", "ID")
@no_ledger_option
@ledger_option
@json_option
@click.pass_context
def stop_rules(
    ctx: click.Context,
    wall_hours: str,
    spent_usd: str,
    failed_steps: int,
    metric: tuple[str, ...],
    finished: bool,
    plan: Path | None,
    max_wall_hours: str | None,
    spend_limit_usd: str | None,
    max_failed_steps: int | None,
    early_stop_metric: str | None,
    mode: str,
    patience: int,
    min_delta: str,
    dev_metric: tuple[str, ...],
    holdout_metric: tuple[str, ...],
    campaign: str | None,
    run_id: str | None,
    no_ledger: bool,
    ledger: str | None,
    as_json: bool,
) -> None:
    """Stop or continue a run under its declared rules; a budget stop marks it unpromotable."""
    render_stop_rules = lazy("trainbudget.cli.render.gates", "render_stop_rules")
    from trainbudget.gates.stop_rules import (
        EarlyStop,
        RunProgress,
        StopRules,
        chosen_stop_rules,
        declare_stop_rules,
        evaluate_stop_rules,
        plan_stop_rules,
    )

    histories = dict(_history(text) for text in metric or [])
    planned = None
    if plan is not None:
        from trainbudget.plan import load_plan

        loaded = load_plan(plan)
        planned = plan_stop_rules(loaded, plan)
        campaign = campaign or loaded.campaign

    def declared() -> StopRules:
        early = None
        if early_stop_metric is not None:
            early = EarlyStop(
                early_stop_metric, mode, patience, parse.amount("--min-delta", min_delta)
            )
        return declare_stop_rules(
            development_metrics=list(dev_metric),
            holdout_metrics=list(holdout_metric),
            max_wall_hours=parse.duration("--max-wall-hours", max_wall_hours),
            spend_limit_usd=parse.amount("--spend-limit-usd", spend_limit_usd, "dollars"),
            max_failed_steps=max_failed_steps,
            early_stop=early,
        )

    given = [
        "--" + name.replace("_", "-")
        for name in _RULE_PARAMS
        if ctx.get_parameter_source(name) is not ParameterSource.DEFAULT
    ]
    rules = chosen_stop_rules(planned, declared, given)
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
        ctx,
        ledger,
        no_ledger=no_ledger,
        decide=lambda _: (outcome, payload),
        campaign_id=campaign,
        run_id=run_id,
        as_json=as_json,
        render=render_stop_rules,
    )


# The options that declare rules (beside --plan they would be ignored: refused instead).
_RULE_PARAMS = (
    "max_wall_hours", "spend_limit_usd", "max_failed_steps", "early_stop_metric", "mode",
    "patience", "min_delta", "dev_metric", "holdout_metric",
)  # fmt: skip


def _history(text: str) -> tuple[str, list[str]]:
    """NAME=v1,v2,... → (NAME, [values]); values are checked as numbers by the gate."""
    name, sep, values = text.partition("=")
    if not sep or not name.strip():
        raise InputError(f"--metric: expected NAME=V1,V2,..., got {text!r}")
    parsed = [parse.number(f"--metric {name.strip()}", v) for v in values.split(",") if v.strip()]
    return name.strip(), parsed

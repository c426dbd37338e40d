"""`trainbudget reliability`: the cluster's failure history and MTBF(n) fitted to it."""

from __future__ import annotations

import click

from trainbudget.cli.help import command
from trainbudget.cli.options import (
    json_option,
    ledger_option,
    ledger_path,
    seed_option,
    text_option,
    whole_option,
)
from trainbudget.cli.output import emit


@command("reliability")
@text_option("--cluster", "Cluster to fit (default: the ledger's only one).", "NAME")
@text_option(
    "--campaign", "Campaign whose stored weekly measurements to show (and cluster).", "NAME"
)
@whole_option(
    "--bootstrap", "Bootstrap resamples over jobs for the interval.", minimum=0, default=1000
)
@seed_option
@ledger_option
@json_option
@click.pass_context
def reliability(
    ctx: click.Context,
    cluster: str | None,
    campaign: str | None,
    bootstrap: int,
    seed: int,
    ledger: str | None,
    as_json: bool,
) -> None:
    """Interruptions against GPU-hours at risk by GPU count; MTBF(n) fit beside the fleet prior."""
    from trainbudget.cli.render.reliability import render_reliability
    from trainbudget.ledger import Ledger
    from trainbudget.reliability.curve import resolve_cluster
    from trainbudget.reliability.fit import ThinHistory, fit_history
    from trainbudget.reliability.history import load_history
    from trainbudget.reliability.measured import latest
    from trainbudget.reliability.report import reliability_payload

    with Ledger.open_existing(ledger_path(ctx, ledger)) as book:
        history = load_history(book, resolve_cluster(book, cluster, campaign))
        fit = thin = None
        try:
            fit = fit_history(history, bootstrap=bootstrap, seed=seed)
        except ThinHistory as exc:
            thin = str(exc)
        measured = latest(book, campaign) if campaign else None
        payload = reliability_payload(history, fit, thin, measured, seed)
    emit(payload, as_json, lambda console: render_reliability(console, payload))

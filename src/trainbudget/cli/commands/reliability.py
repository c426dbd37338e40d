"""`trainbudget reliability`: the cluster's failure history and MTBF(n) fitted to it."""

from __future__ import annotations

from typing import Annotated

import typer

from trainbudget.cli.options import JsonOption, LedgerOption, ledger_path, whole_option
from trainbudget.cli.output import emit


def reliability(
    ctx: typer.Context,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster", metavar="NAME", help="Cluster to fit (default: the ledger's only one)."
        ),
    ] = None,
    campaign: Annotated[
        str | None,
        typer.Option(
            "--campaign",
            metavar="NAME",
            help="Campaign whose stored weekly measurements to show (and cluster).",
        ),
    ] = None,
    bootstrap: Annotated[
        int,
        whole_option("--bootstrap", "Bootstrap resamples over jobs for the interval.", minimum=0),
    ] = 1000,
    seed: Annotated[int, whole_option("--seed", "Seed of the resampling.")] = 0,
    ledger: LedgerOption = None,
    as_json: JsonOption = False,
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

"""`ledger_curve`: the one call the forecast makes for `mtbf: ledger`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trainbudget.base.errors import InputError

if TYPE_CHECKING:
    from pathlib import Path

    from trainbudget.estimate.mtbf import MtbfCurve
    from trainbudget.ledger import Ledger
    from trainbudget.plan import Plan


def resolve_cluster(ledger: Ledger, cluster: str | None, campaign: str | None) -> str:
    """The cluster to fit: as given, else where `campaign`'s main run ran (stored by its
    weekly review), else the ledger's only cluster; InputError when it cannot be told."""
    from trainbudget.reliability.history import clusters
    from trainbudget.reliability.measured import latest

    known = clusters(ledger)
    if cluster is not None:
        if cluster not in known:
            raise InputError(
                f"cluster: no scheduler records of cluster {cluster!r} in the ledger "
                f"(it has: {', '.join(known) or 'none'})"
            )
        return cluster
    if campaign is not None:
        measured = latest(ledger, campaign)
        if measured is not None and measured.cluster in known:
            return measured.cluster
    if len(known) == 1:
        return known[0]
    if not known:
        raise InputError("ledger: no scheduler records landed, so no failure history to fit")
    raise InputError(
        f"cluster: the ledger holds {len(known)} clusters ({', '.join(known)}); name one "
        "(MTBF is a property of one cluster)"
    )


def ledger_curve(
    ledger: Ledger,
    cluster: str | None = None,
    campaign: str | None = None,
    *,
    bootstrap: int = 1000,
    seed: int = 0,
) -> MtbfCurve:
    """MTBF(n) fitted to the cluster's landed failure history (source 'ledger', with
    bootstrap draws); InputError (reliability.fit.ThinHistory) when the history is too thin."""
    from trainbudget.reliability.fit import fit_history
    from trainbudget.reliability.history import load_history

    name = resolve_cluster(ledger, cluster, campaign)
    return fit_history(load_history(ledger, name), bootstrap=bootstrap, seed=seed).curve


def plan_ledger_curve(ledger: Ledger, plan: Plan, cluster: str | None = None) -> MtbfCurve | None:
    """The ledger's fit when the plan says `reliability.mtbf: ledger`, else None (nothing read)."""
    if plan.reliability is None or plan.reliability.mtbf != "ledger":
        return None
    return ledger_curve(ledger, cluster, plan.campaign)


def plan_ledger_curve_at(path: Path | None, plan: Plan, cluster: str | None) -> MtbfCurve | None:
    """`plan_ledger_curve` read from the ledger at `path` (opened read-only, None: the default
    location) for a command that holds no ledger; InputError when the plan needs one and none
    is there."""
    if plan.reliability is None or plan.reliability.mtbf != "ledger":
        return None
    from trainbudget.estimate.forecast import LEDGER_MISSING
    from trainbudget.ledger import Ledger, ledger_exists, resolve_ledger_path

    if not ledger_exists(path):
        raise InputError(f"{LEDGER_MISSING}; no ledger at {resolve_ledger_path(path)}")
    with Ledger.open_existing(path) as book:
        return plan_ledger_curve(book, plan, cluster)

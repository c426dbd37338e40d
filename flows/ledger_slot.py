"""The ledger's Prefect slot: flows that write the ledger take turns instead of failing "in use".

A DuckDB file takes one writer at a time. Each ledger-writing flow on a file ledger holds the
one slot of the global concurrency limit `trainbudget-ledger` for its whole run; a second run
waits for it,
shown in the UI as the running state "Waiting for ledger". `trainbudget serve` and the deploy
files create the limit; a flow run creates it too when it is missing, so ad-hoc runs (the
demo, a script) are covered. The team ledger (DuckLake) takes several writers at once, so a
run on it holds no slot: runs of different campaigns and clusters go at once, and a run whose
commit conflicts is retried whole (trainbudget.ledger.retry).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from os import PathLike

LEDGER_LIMIT = "trainbudget-ledger"
WAITING = "Waiting for ledger"
_FIRST_TRY_S = 1.0  # how long a run tries for the slot before it says it is waiting


def ensure_ledger_limit() -> None:
    """Create the `trainbudget-ledger` limit (one slot) on the Prefect API if it is missing."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate
    from prefect.exceptions import ObjectAlreadyExists, ObjectNotFound

    with get_client(sync_client=True) as client:
        try:
            client.read_global_concurrency_limit_by_name(LEDGER_LIMIT)
        except ObjectNotFound:
            with suppress(ObjectAlreadyExists):  # another run created it first
                client.create_global_concurrency_limit(
                    GlobalConcurrencyLimitCreate(name=LEDGER_LIMIT, limit=1)
                )


@contextmanager
def ledger_slot(ledger: str | PathLike[str] | None = None) -> Iterator[None]:
    """Hold the ledger's slot inside the block when `ledger` (None: $TRAINBUDGET_LEDGER, else
    the default file) is a DuckDB file; for the team ledger, hold nothing."""
    from trainbudget.ledger import TeamLocation, resolve_location

    if isinstance(resolve_location(ledger), TeamLocation):
        yield
        return
    from prefect.concurrency.sync import concurrency

    ensure_ledger_limit()
    with ExitStack() as held:
        try:
            held.enter_context(
                concurrency(LEDGER_LIMIT, occupy=1, timeout_seconds=_FIRST_TRY_S, strict=True)
            )
        except TimeoutError:
            _name_running_state(WAITING)
            held.enter_context(concurrency(LEDGER_LIMIT, occupy=1, strict=True))
            _name_running_state(None)
        yield


def _name_running_state(name: str | None) -> None:
    """Rename the current flow run's Running state (None: plain "Running")."""
    from prefect.client.orchestration import get_client
    from prefect.context import FlowRunContext
    from prefect.states import Running

    context = FlowRunContext.get()
    if context is None or context.flow_run is None:
        return
    state = Running(name=name) if name else Running()
    with get_client(sync_client=True) as client:
        client.set_flow_run_state(context.flow_run.id, state, force=True)

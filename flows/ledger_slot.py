"""The ledger's Prefect slot: flows that write the ledger take turns instead of failing "in use".

A DuckDB file takes one writer at a time. Each ledger-writing flow on a file ledger holds the one
slot of the global concurrency limit `trainbudget-ledger` for its whole run; a second run waits for
it, shown in the UI as the running state "Waiting for ledger". `trainbudget serve` and the deploy
files create the limit; a flow run creates it too when it is missing, so ad-hoc runs (the demo, a
script) are covered. The team ledger (DuckLake) takes several writers at once, so a run on it holds
no slot: runs of different campaigns and clusters go at once, and a run whose commit conflicts is
retried whole (trainbudget.ledger.retry).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from os import PathLike
from uuid import UUID

LEDGER_LIMIT = "trainbudget-ledger"
WAITING = "Waiting for ledger"
_FIRST_TRY_S = 1.0  # how long a run waits for the slot before it looks whether another holds it


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
    the default file) is a DuckDB file; for the team ledger, hold nothing.

    The slot is asked for once, with no client-side timeout: a timed-out request may still be
    granted by the server, and that lease, which nobody holds or releases, kept the slot taken
    (Prefect's acquisition service also logs each timeout as an ERROR). While the request waits,
    a watcher names the run's state "Waiting for ledger" once another run holds the slot.
    """
    from trainbudget.ledger import TeamLocation, resolve_location

    if isinstance(resolve_location(ledger), TeamLocation):
        yield
        return
    from prefect.concurrency.sync import concurrency

    ensure_ledger_limit()
    with ExitStack() as held:
        with _named_while_waiting():
            held.enter_context(concurrency(LEDGER_LIMIT, occupy=1, strict=True))
        yield


@contextmanager
def _named_while_waiting() -> Iterator[None]:
    """Inside: after _FIRST_TRY_S, and every second after, look whether the ledger's slot is
    taken; if so, name the flow run's state WAITING (plain Running again on exit)."""
    run_id = _current_flow_run_id()
    if run_id is None:
        yield
        return
    done, named = threading.Event(), threading.Event()

    def watch() -> None:
        while not done.wait(_FIRST_TRY_S):
            if _slot_taken():
                _name_running_state(run_id, WAITING)
                named.set()
                return

    # The watcher runs in this context's copy: the same Prefect settings and API URL.
    watcher = threading.Thread(target=contextvars.copy_context().run, args=(watch,), daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        if named.is_set():
            _name_running_state(run_id, None)


def _slot_taken() -> bool:
    """Whether every slot of the ledger's limit is held (by another run: ours is not yet)."""
    from prefect.client.orchestration import get_client

    with suppress(Exception), get_client(sync_client=True) as client:  # a look, never a failure
        limit = client.read_global_concurrency_limit_by_name(LEDGER_LIMIT)
        return limit.active_slots >= limit.limit
    return False


def _current_flow_run_id() -> UUID | None:
    from prefect.context import FlowRunContext

    context = FlowRunContext.get()
    return None if context is None or context.flow_run is None else context.flow_run.id


def _name_running_state(run_id: UUID, name: str | None) -> None:
    """Rename the flow run's Running state (None: plain "Running")."""
    from prefect.client.orchestration import get_client
    from prefect.states import Running

    state = Running(name=name) if name else Running()
    with get_client(sync_client=True) as client:
        client.set_flow_run_state(run_id, state, force=True)

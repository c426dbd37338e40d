"""The procedures' step runner on Prefect (trainbudget.runner.steps.StepRunner): each step a task;
and `run_procedure`, how every flow that writes the ledger ends.

`run` calls a task in the flow's thread, `submit` starts it on the task runner beside the
next steps, `map` starts one task per item (the trace ranks: threads, or prefect-dask's Dask
cluster when TRAINBUDGET_DASK_ADDRESS is set). Each task says what its step did in a sentence
from its typed result, through Prefect's run logger, so the run page's Logs tab tells the
story of the run. Tasks take the open ledger or frames, so none hashes its inputs (NO_CACHE).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.task_runners import ThreadPoolTaskRunner

from flow_support import finished, publish, say_when_refused
from ledger_slot import ledger_slot
from trainbudget.ledger import Ledger
from trainbudget.ledger.retry import retrying

DASK_ADDRESS_ENV = "TRAINBUDGET_DASK_ADDRESS"


def task_runner() -> object:
    """Threads, or prefect-dask's DaskTaskRunner when TRAINBUDGET_DASK_ADDRESS is set
    (`local` starts a local Dask cluster when the flow runs)."""
    address = os.environ.get(DASK_ADDRESS_ENV)
    if not address:
        return ThreadPoolTaskRunner(max_workers=os.cpu_count() or 1)
    import cloudpickle
    from prefect_dask import DaskTaskRunner

    # Dask workers have trainbudget installed but not this flows/ folder: ship this module
    # (the tasks' wrapper and retry condition live here) by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    if address == "local":
        return DaskTaskRunner(cluster_kwargs={"n_workers": 2, "threads_per_worker": 1})
    return DaskTaskRunner(address=address)


def retry_on_io_error(task: Any, task_run: Any, state: Any) -> bool:
    """Retry a task only when it failed reading or writing a file (OSError), never on bad
    input: an InputError fails the same way every time."""
    return isinstance(state.data, OSError)


# Options of steps that only read files (io=True): retried on I/O errors only.
IO_RETRIES = {"retries": 2, "retry_delay_seconds": 2, "retry_condition_fn": retry_on_io_error}


def as_task(name: str, step: Callable[..., Any], says: Callable[[Any], str] | None, io: bool):
    """`step` as a Prefect task named `name` that logs `says(result)` when it is done."""

    @functools.wraps(step)
    def logged(*args: Any, **kwargs: Any) -> Any:
        value = step(*args, **kwargs)
        get_run_logger().info(says(value) if says is not None else f"{name}: done.")
        return value

    return task(logged, name=name, cache_policy=NO_CACHE, **(IO_RETRIES if io else {}))


class PrefectSteps:
    """A procedure's steps as tasks of the running flow."""

    def run(self, name: str, step: Callable, *args: Any, says=None, io: bool = False) -> Any:
        return as_task(name, step, says, io)(*args)

    def submit(self, name: str, step: Callable, *args: Any, says=None, io: bool = False) -> Any:
        return as_task(name, step, says, io).submit(*args)

    def map(self, name: str, step: Callable, items: Sequence, *, says=None, io=False) -> list:
        return as_task(name, step, says, io).map(list(items)).result() if items else []

    def name_run(self, name: str) -> None:
        """Rename the running flow run: the name comes from the procedure's one plan parse."""
        from prefect.client.orchestration import get_client
        from prefect.context import FlowRunContext

        context = FlowRunContext.get()
        if context is not None and context.flow_run is not None:
            with get_client(sync_client=True) as client:
                client.update_flow_run(context.flow_run.id, name=name)

    def refused(self, title: str, key: str, docs: Path) -> Any:
        return say_when_refused(title, key, docs)

    def publish(self, report: Any, summary: Any, key: str) -> dict[str, Any]:
        return as_task("publish-report", publish, _said_published, False)(report, summary, key)


def _said_published(summary: dict[str, Any]) -> str:
    return f"Published the report, its tables and verdict as artifacts: {summary['report']}."


def run_procedure(
    procedure: Callable[..., tuple[Any, dict[str, Any]]],
    inputs: Any,
    ledger: Path | str | None,
    what: str,
) -> Any:
    """Run `procedure(inputs, ledger, PrefectSteps())` on the ledger opened here, holding its
    slot; on the team ledger a conflicting commit runs the procedure again whole (`what` names
    the writes in that message). Returns the flow's final state, named for its verdict."""

    def write() -> tuple[Any, dict[str, Any]]:
        with Ledger.open(ledger) as book:
            return procedure(inputs, book, PrefectSteps())

    with ledger_slot(ledger):
        _, summary = retrying(write, what=what)
    return finished(summary)

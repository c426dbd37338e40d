"""How a procedure runs its steps: the step-runner protocol and the in-process runner.

`prelaunch.run_prelaunch` and `weekly.run_weekly` are written once, as a sequence of named
steps handed to a `StepRunner`. The command line passes `INLINE` (each step a plain call in
this process); the flows pass their Prefect runner (flows/prefect_steps.py: each step a task,
`map` one task per item on the flow's task runner, `submit` running beside the next steps,
each task's sentence in the run's log). Nothing here imports Prefect.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from trainbudget.report.runs import RunSummary, write_summary
from trainbudget.report.write import write_report

if TYPE_CHECKING:
    from trainbudget.report.model import Report

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
# A step's sentence for the run's log, from its typed result (None: the step's name only).
Says = Callable[[Any], str] | None


class Pending(Protocol[T_co]):
    """A step started beside the next ones; `result()` waits for it."""

    def result(self) -> T_co: ...


class StepRunner(Protocol):
    """What a procedure asks of the door that runs it.

    `io=True` marks a step that only reads files: a runner may retry it on an I/O error
    (never a step that writes inside the run's open transaction).
    """

    def run(
        self, name: str, step: Callable[..., T], *args: Any, says: Says = None, io: bool = False
    ) -> T: ...

    def submit(
        self, name: str, step: Callable[..., T], *args: Any, says: Says = None, io: bool = False
    ) -> Pending[T]: ...

    def map(
        self, name: str, step: Callable[[Any], T], items: Sequence[Any], *, says: Says = None,
        io: bool = False,
    ) -> list[T]: ...  # fmt: skip

    def name_run(self, name: str) -> None:
        """Name the run (from the one parse of the plan)."""

    def refused(self, title: str, key: str, docs: Path) -> Any:
        """A context manager around the ledger's steps that says, where the team looks, that
        bad input refused the run (and re-raises)."""

    def publish(self, report: Report, summary: RunSummary, key: str) -> dict[str, Any]:
        """Write the report and summary.json (and show them); return summary.json's object."""


class Done(Generic[T]):
    """A step that has already run."""

    def __init__(self, value: T) -> None:
        self._value = value

    def result(self) -> T:
        return self._value


class InlineSteps:
    """Every step a plain call in this process, in order: what the command line runs."""

    def run(
        self, name: str, step: Callable[..., T], *args: Any, says: Says = None, io: bool = False
    ) -> T:
        return step(*args)

    def submit(
        self, name: str, step: Callable[..., T], *args: Any, says: Says = None, io: bool = False
    ) -> Done[T]:
        return Done(step(*args))

    def map(
        self, name: str, step: Callable[[Any], T], items: Sequence[Any], *, says: Says = None,
        io: bool = False,
    ) -> list[T]:  # fmt: skip
        return [step(item) for item in items]

    def name_run(self, name: str) -> None:
        return None

    @contextmanager
    def refused(self, title: str, key: str, docs: Path) -> Iterator[None]:
        yield

    def publish(self, report: Report, summary: RunSummary, key: str) -> dict[str, Any]:
        write_report(report, summary.report.parent)
        return write_summary(summary)


INLINE = InlineSteps()

"""Land, else only print: the one path of every command that writes the ledger.

`in_ledger` runs a command's landing in one transaction (or without a ledger, --no-ledger);
`record_or_emit` is it for a gate's verdict (`admit`, `decide`, `stop-rules`): recorded with
the plan it read, when given, and printed after the commit (cli/output.py: commit, then
print); with --no-ledger it is printed only, with `decision_id` null."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from trainbudget.cli.options import ledger_path
from trainbudget.cli.output import emit

if TYPE_CHECKING:
    from trainbudget.gates.outcome import GateOutcome
    from trainbudget.ledger import Ledger

T = TypeVar("T")


def in_ledger(
    ctx: Any, ledger: Path | str | None, *, no_ledger: bool, work: Callable[[Ledger | None], T]
) -> tuple[T, bool]:
    """`work(the open ledger)` inside one transaction, or `work(None)` with --no-ledger; its
    result and whether a transaction committed (the `committed` flag `emit` takes)."""
    if no_ledger:
        return work(None), False
    from trainbudget.ledger import Ledger

    with Ledger.open(ledger_path(ctx, ledger)) as book, book.transaction():
        result = work(book)
    return result, True


def record_or_emit(
    ctx: Any,
    ledger: Path | None,
    *,
    no_ledger: bool,
    decide: Callable[[Ledger | None], tuple[GateOutcome, dict[str, Any]]],
    campaign_id: str | None,
    run_id: str | None,
    as_json: bool,
    render: Callable[[Any, dict[str, Any]], None],
    plan: Path | None = None,
) -> None:
    """`decide(ledger or None)` gives (the outcome to record, the payload to print)."""

    def recorded(book: Ledger | None) -> dict[str, Any]:
        if book is None:
            return decide(None)[1]
        from trainbudget.ledger.decisions import record_decision

        if plan is not None:
            from trainbudget.plan import land_plan

            land_plan(book, plan)
        outcome, payload = decide(book)
        payload["decision_id"] = record_decision(
            book, outcome, campaign_id=campaign_id, run_id=run_id
        )
        return payload

    payload, committed = in_ledger(ctx, ledger, no_ledger=no_ledger, work=recorded)
    emit(payload, as_json, lambda console: render(console, payload), committed=committed)

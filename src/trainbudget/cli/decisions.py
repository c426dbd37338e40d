"""Record a gate's verdict, else only print it: the one path `admit`, `decide` and `stop-rules`
share. The verdict is recorded (with the plan it read, when given) in one transaction and
printed after the commit (cli/output.py: commit, then print); with --no-ledger it is printed
only, with `decision_id` null."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainbudget.cli.options import ledger_path
from trainbudget.cli.output import emit

if TYPE_CHECKING:
    from trainbudget.gates.outcome import GateOutcome
    from trainbudget.ledger import Ledger


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
    if no_ledger:
        _, payload = decide(None)
    else:
        from trainbudget.ledger import Ledger
        from trainbudget.ledger.decisions import record_decision

        with Ledger.open(ledger_path(ctx, ledger)) as book, book.transaction():
            if plan is not None:
                from trainbudget.plan import land_plan

                land_plan(book, plan)
            outcome, payload = decide(book)
            payload["decision_id"] = record_decision(
                book, outcome, campaign_id=campaign_id, run_id=run_id
            )
    emit(payload, as_json, lambda console: render(console, payload), committed=not no_ledger)

"""Prefect glue shared by both flows: report artifacts, gate events, the refusal note and the
run's final state (the step runner, task runner and I/O retry rule: prefect_steps.py).

Everything here is orchestration: the procedure is in `trainbudget.prelaunch` and
`trainbudget.weekly`, the report is built and written by `trainbudget.report`; this module only
hands results to the Prefect UI (shaped by `trainbudget.report.prefect_view`; report links are http
addresses under TRAINBUDGET_REPORT_URL, see `trainbudget.report.server`). Importing it starts
nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from prefect.artifacts import (
    create_link_artifact,
    create_markdown_artifact,
    create_table_artifact,
)
from prefect.events import emit_event
from prefect.states import Completed, State

from trainbudget.base.errors import InputError
from trainbudget.gates.outcome import GateOutcome
from trainbudget.report.model import Report
from trainbudget.report.prefect_view import state_name, table_rows, verdict_markdown
from trainbudget.report.runs import RunSummary, write_summary
from trainbudget.report.server import report_url
from trainbudget.report.write import write_report


def artifact_key(*parts: str) -> str:
    """A Prefect artifact key: lowercase letters, digits and dashes only."""
    return re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")


def publish(report: Report, summary: RunSummary, key_prefix: str) -> dict[str, Any]:
    """Write report.html/.md and summary.json; publish the tables, the verdict and a link;
    emit one event per gate. Returns the summary object (what the flow returns)."""
    files = write_report(report, summary.report.parent)
    folder = files.html.parent
    for table in report.tables:
        create_table_artifact(
            table=table_rows(table),
            key=artifact_key(key_prefix, table.title),
            description=table.title,
        )
    create_markdown_artifact(
        markdown=verdict_markdown(report, folder),
        key=artifact_key(key_prefix, "verdict"),
        description=f"{report.title}: verdicts first",
    )
    create_link_artifact(
        link=report_url(folder, "report.html"),
        link_text=f"HTML report: {folder.name}/report.html",
        key=artifact_key(key_prefix, "report"),
        description="The self-contained HTML report of this run",
    )
    for outcome in summary.gates:
        emit_gate_event(outcome, summary.campaign)
    return write_summary(summary)


def finished(body: dict[str, Any]) -> State:
    """The run's final state: Completed, named for its outcome (Admitted, Deferred, Over
    ceiling, ...) so the runs list tells them apart; calling the flow still returns `body`."""
    said = dict.fromkeys(f"{g['gate']} {g['outcome']}" for g in body["gates"])
    return Completed(name=state_name(body["gates"]), data=body, message=", ".join(said))


def emit_gate_event(outcome: GateOutcome, campaign: str) -> None:
    """Emit `trainbudget.gate.<outcome>` with the reason, so automations can react to it."""
    emit_event(
        event=f"trainbudget.gate.{outcome.outcome}",
        resource={
            "prefect.resource.id": f"trainbudget.campaign.{campaign}.gate.{outcome.gate}",
            "prefect.resource.name": f"{campaign}: {outcome.gate}",
            "trainbudget.campaign": campaign,
            "trainbudget.gate": outcome.gate,
        },
        payload={"reason": outcome.reason, "sentence": outcome.sentence},
    )


@contextmanager
def say_when_refused(title: str, key: str, docs: Path) -> Iterator[None]:
    """On bad input the run's transaction is rolled back; say so where the team looks
    (a markdown artifact), then fail the run with the same error."""
    try:
        yield
    except InputError as exc:
        create_markdown_artifact(
            markdown=f"# {title}: not reported\n\n{exc}\n\nNothing from this run was kept in "
            f"the ledger. [Data Docs]({report_url(docs.parent, docs.name, 'index.html')})\n",
            key=key,
            description="The run was refused; nothing was kept",
        )
        raise

"""Prefect glue shared by both flows: report artifacts, gate events, the I/O retry rule and
the import prefetch.

Everything here is orchestration: the report itself is built and written by
`trainbudget.report`; this module only hands it to the Prefect UI.
"""

from __future__ import annotations

import importlib
import re
import threading
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from prefect.artifacts import (
    create_link_artifact,
    create_markdown_artifact,
    create_table_artifact,
)
from prefect.events import emit_event

from trainbudget.gates.outcome import GateOutcome
from trainbudget.report.model import Report
from trainbudget.report.write import ReportFiles, write_report


def prefetch_modules(*names: str) -> threading.Thread:
    """Import slow modules (Great Expectations takes ~10 s) in a background thread, so the
    import overlaps Prefect's API start instead of following it. Python's import lock makes
    a later `import` of the same module wait for this one rather than import it twice."""
    thread = threading.Thread(
        target=lambda: [importlib.import_module(name) for name in names],
        name="trainbudget-prefetch",
        daemon=True,
    )
    thread.start()
    return thread


def retry_on_io_error(task: Any, task_run: Any, state: Any) -> bool:
    """Retry a task only when it failed reading or writing a file (OSError), never on bad
    input: an InputError fails the same way every time."""
    return isinstance(state.data, OSError)


def artifact_key(*parts: str) -> str:
    """A Prefect artifact key: lowercase letters, digits and dashes only."""
    return re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")


def _cell(value: Any) -> Any:
    # Table artifacts are JSON: exact numbers become floats here, at the display edge.
    if isinstance(value, Decimal | Fraction):
        return float(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def publish_report(report: Report, folder: Path, key_prefix: str) -> ReportFiles:
    """Write report.html/.md into `folder`; publish its tables, markdown and a link to it."""
    files = write_report(report, folder)
    for table in report.tables:
        rows = [
            {column: _cell(value) for column, value in zip(table.columns, row, strict=True)}
            for row in table.rows
        ]
        create_table_artifact(
            table=rows, key=artifact_key(key_prefix, table.title), description=table.title
        )
    create_markdown_artifact(
        markdown=files.markdown.read_text(encoding="utf-8"),
        key=artifact_key(key_prefix, "verdict"),
        description=f"{report.title}: verdicts first",
    )
    create_link_artifact(
        link=files.html.resolve().as_uri(),
        link_text=f"HTML report: {files.html.resolve()}",
        key=artifact_key(key_prefix, "report"),
        description="The self-contained HTML report of this run",
    )
    return files


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

"""What a flow run shows in the Prefect UI, as plain data: table-artifact rows (rounded for
display, headers in words with units), the verdict markdown with the key charts inline and
absolute report links, and the name of the run's final state.

flows/flow_support.py hands these to Prefect; nothing here imports it.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

from trainbudget.report.markdown import render_table, render_verdicts
from trainbudget.report.model import Report, Table
from trainbudget.report.server import report_url

# Field-name suffixes and the unit they carry, longest first.
_UNITS = (
    ("gpu_hours", "GPU-hours"),
    ("gb_months", "GB-months"),
    ("usd", "USD"),
    ("us", "µs"),
    ("ms", "ms"),
    ("bytes", "bytes"),
    ("pct", "%"),
    ("seconds", "s"),
    ("hours", "h"),
    ("gb", "GB"),
)
_WORDS = {"gpu": "GPU", "gpus": "GPUs", "mfu": "MFU", "id": "ID", "ettr": "ETTR", "usd": "USD"}
_FIELD_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
# The Prefect UI shows a markdown artifact's images; more than two charts make it a scroll.
KEY_CHARTS = 2


def column_header(name: str) -> str:
    """A field name as a column header: `allocated_gpu_hours` → `allocated (GPU-hours)`.
    A header already in words (spaces, capitals) is kept."""
    if not _FIELD_NAME.fullmatch(name):
        return name
    words, unit = name.split("_"), None
    for suffix, label in _UNITS:
        tail = suffix.split("_")
        if words[-len(tail) :] == tail:
            words, unit = words[: -len(tail)], label
            break
    text = " ".join(_WORDS.get(w, w) for w in words)
    if unit is None:
        return text
    return f"{text} ({unit})" if text else unit


def table_rows(table: Table) -> list[dict[str, str]]:
    """The table as artifact rows: each cell as the report shows it (rounded, separated)."""
    headers = [column_header(c) for c in table.columns]
    if len(set(headers)) < len(headers):
        headers = list(table.columns)
    return [
        dict(zip(headers, (table.cell(row, i) for i in range(len(row))), strict=True))
        for row in table.rows
    ]


def absolute_href(href: str, folder: Path) -> str:
    """A report link as an http address: relative links are resolved in the run's folder."""
    if re.match(r"[a-z][a-z0-9+.-]*:", href):
        return href
    return report_url(folder, *href.split("/"))


def verdict_markdown(report: Report, folder: Path) -> str:
    """The verdict artifact: verdicts, links to the HTML report and Data Docs, the key charts
    (inline PNG, which the Prefect UI renders), then the summary and tables."""
    links = [f"**[Open the HTML report]({report_url(folder, 'report.html')})**"]
    links += [f"[{label}]({absolute_href(href, folder)})" for label, href in report.links.items()]
    parts = [f"# {report.title}", "", f"_{report.subtitle}_", ""]
    if report.verdicts:
        parts += ["## Verdicts", "", render_verdicts(report), ""]
    parts += [" · ".join(links), ""]
    for chart in report.charts[:KEY_CHARTS]:
        png = base64.b64encode(chart.png).decode("ascii")
        title = chart.title.replace("[", "(").replace("]", ")")
        parts += [f"![{title}](data:image/png;base64,{png})", ""]
        if chart.caption:
            parts += [f"_{chart.caption}_", ""]
    if report.summary:
        parts += ["## Summary", "", *[f"- {line}" for line in report.summary], ""]
    for table in report.tables:
        parts += [render_table(table), ""]
    if len(report.charts) > KEY_CHARTS:
        more = ", ".join(c.title for c in report.charts[KEY_CHARTS:])
        parts += [f"More charts ({more}) are in the HTML report.", ""]
    return "\n".join(parts).rstrip() + "\n"


_DECISION_STATES = {
    "not-worth-it": "Not worth it",
    "collect-more-data": "Collect more data",
    "defer": "Deferred",
}


def state_name(gates: list[dict[str, Any]]) -> str:
    """The name of a run's final (Completed) state, from summary.json's `gates`: Admitted,
    Deferred, Over budget, Not worth it, ... before launch; Continue, Over ceiling, Complete
    in the weekly review."""
    outcomes = {g["gate"]: g for g in gates}
    admission, decision = outcomes.get("admission"), outcomes.get("decision")
    if admission is not None:
        if admission["outcome"] != "admit":
            return "Over budget" if admission.get("reason") == "budget" else "Deferred"
        if decision is not None and decision["outcome"] in _DECISION_STATES:
            return _DECISION_STATES[decision["outcome"]]
        return "Admitted"
    continuation = outcomes.get("continuation")
    if continuation is not None:
        if continuation["outcome"] == "stop":
            return "Over ceiling" if continuation.get("reason") == "over-ceiling" else "Stop"
        return continuation["outcome"].capitalize()
    return "Completed"

"""The report folder's index.html: every run under it with its date, campaign, verdicts, links.

It reads each run's summary.json (report/runs.py writes one beside every report.html), never the
ledger; a folder without a readable summary is left out. Links are relative to the index, or
under `base_url` when the folder is served elsewhere.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any

import orjson

from trainbudget.report import format as fmt
from trainbudget.report.html import CSS, INDEX_FILE
from trainbudget.report.verdicts import tone_of

_FLOWS = {"prelaunch-estimate": "Pre-launch estimate", "weekly-review": "Weekly review"}
# Files a run folder may hold, in the order its links are listed.
_FILES = (
    ("report", "report.html"),
    ("Data Docs", "data-docs/index.html"),
    ("jobs (CSV)", "jobs.csv"),
    ("summary (JSON)", "summary.json"),
)


@dataclass(frozen=True)
class RunEntry:
    """One run as the index lists it: when it wrote its summary, what, and its files."""

    folder: Path
    written: datetime
    summary: dict[str, Any]

    @property
    def title(self) -> str:
        name = _FLOWS.get(self.summary.get("flow", ""), str(self.summary.get("flow", "run")))
        week = self.summary.get("week")
        return f"{name}, {week}" if week else name


def find_runs(root: Path) -> list[RunEntry]:
    """Every run folder directly under `root` with a summary.json, newest first."""
    runs = []
    for path in sorted(Path(root).glob("*/summary.json")):
        try:
            summary = orjson.loads(path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            continue
        if not isinstance(summary, dict):
            continue
        written = datetime.fromtimestamp(path.stat().st_mtime, UTC)
        runs.append(RunEntry(path.parent, written, summary))
    return sorted(runs, key=lambda r: (r.written, r.folder.name), reverse=True)


def _verdicts(summary: dict[str, Any]) -> str:
    items = []
    for gate in summary.get("gates") or []:
        outcome = str(gate.get("outcome", ""))
        reason = f" ({escape(str(gate['reason']))})" if gate.get("reason") else ""
        items.append(
            f'<span class="chip {tone_of(outcome)}">{escape(str(gate.get("gate", "")))}: '
            f"<b>{escape(outcome)}</b>{reason}</span>"
        )
    return " ".join(items) or '<span class="note">no gate decided</span>'


def _links(run: RunEntry, root: Path, base_url: str | None) -> str:
    links = []
    for label, name in _FILES:
        if (run.folder / name).is_file():
            relative = (run.folder / name).relative_to(root).as_posix()
            href = f"{base_url.rstrip('/')}/{relative}" if base_url else relative
            links.append(f'<a href="{escape(href)}">{escape(label)}</a>')
    return " · ".join(links)


def render_index(root: Path, base_url: str | None = None, title: str = "trainbudget runs") -> str:
    """The index page (UTF-8 HTML, self-contained) of the runs under `root`."""
    root = Path(root)
    runs = find_runs(root)
    rows = []
    for run in runs:
        planned = run.summary.get("planned_gpu_hours")
        rows.append(
            "<tr>"
            f"<td>{run.written:%Y-%m-%d %H:%M} UTC</td><td>{escape(run.title)}</td>"
            f"<td>{escape(str(run.summary.get('campaign', '')))}</td>"
            f'<td class="num">{escape(fmt.gpu_hours(planned)) if planned is not None else ""}</td>'
            f"<td>{_verdicts(run.summary)}</td><td>{_links(run, root, base_url)}</td>"
            "</tr>"
        )
    if rows:
        body = (
            '<div class="scroll"><table class="runs"><thead><tr><th>Written</th><th>Run</th>'
            "<th>Campaign</th><th>Planned GPU-hours</th><th>Verdicts</th><th>Files</th></tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table></div>"
        )
    else:
        body = '<p class="note">No runs here yet: each run writes a folder with summary.json.</p>'
    count = fmt.plural(len(runs), "run")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f'<h1>{escape(title)}</h1><p class="subtitle">{count} in {escape(str(root))}, newest '
        f"first</p>{body}</body></html>\n"
    )


def write_index(root: Path, base_url: str | None = None, title: str = "trainbudget runs") -> Path:
    """Write `root`/index.html listing the runs under `root`; return its path.

    Written beside and then renamed over the old one, so a reader never sees half a page.
    """
    index = Path(root) / INDEX_FILE
    partial = index.with_name(f".{INDEX_FILE}.{os.getpid()}.partial")
    partial.write_text(render_index(root, base_url, title), encoding="utf-8")
    os.replace(partial, index)
    return index

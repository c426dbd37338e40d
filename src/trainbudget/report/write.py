"""Write a run's report folder: report.html (self-contained) and report.md (the artifact text)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trainbudget.files.permissions import private_files
from trainbudget.report.html import render_html
from trainbudget.report.markdown import render_markdown
from trainbudget.report.model import Report


@dataclass(frozen=True)
class ReportFiles:
    """Where a report was written."""

    html: Path
    markdown: Path


def write_report(report: Report, folder: Path) -> ReportFiles:
    """Write report.html and report.md into `folder` (created if needed, its owner's only)."""
    html, markdown = folder / "report.html", folder / "report.md"
    html_text, markdown_text = render_html(report), render_markdown(report)
    with private_files():
        folder.mkdir(parents=True, exist_ok=True)
        html.write_text(html_text, encoding="utf-8")
        markdown.write_text(markdown_text, encoding="utf-8")
    return ReportFiles(html=html, markdown=markdown)

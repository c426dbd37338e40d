"""Render a Report as markdown, for the Prefect markdown artifact (verdicts first, then tables).

Charts are not embedded: the Prefect UI caps artifact size, so the markdown names each chart
and points to the HTML report, which carries them inline.
"""

from __future__ import annotations

from trainbudget.report.model import Report, Table, display


def _text(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _cell(value: object) -> str:
    return _text(display(value))


def render_table(table: Table) -> str:
    """One markdown table with its title as a heading."""
    lines = [f"### {table.title}", ""]
    if table.note:
        lines += [f"_{table.note}_", ""]
    if not table.rows:
        return "\n".join([*lines, "None."])
    lines.append("| " + " | ".join(_cell(c) for c in table.columns) + " |")
    lines.append("|" + "|".join(" --- " for _ in table.columns) + "|")
    for number, row in enumerate(table.rows):
        cells = [_text(table.cell(row, i)) for i in range(len(row))]
        if number in table.flagged and cells:
            cells[0] = f"**{cells[0]}**"
        lines.append("| " + " | ".join(cells) + " |")
    if table.links:
        lines += ["", " · ".join(f"[{label}]({href})" for label, href in table.links)]
    return "\n".join(lines)


def render_verdicts(report: Report) -> str:
    """The verdict lines alone: the text of the run's verdict artifact."""
    return "\n".join(f"- **{v.subject}: {v.outcome}** — {v.reason}" for v in report.verdicts)


def render_markdown(report: Report) -> str:
    """The whole report as markdown."""
    parts = [f"# {report.title}", "", f"_{report.subtitle}_", ""]
    if report.verdicts:
        parts += ["## Verdicts", "", render_verdicts(report), ""]
    if report.summary:
        parts += ["## Summary", "", *[f"- {line}" for line in report.summary], ""]
    for table in report.tables:
        parts += [render_table(table), ""]
    if report.charts:
        names = ", ".join(c.title for c in report.charts)
        parts += [f"Charts ({names}) are in the HTML report.", ""]
    for label, href in report.links.items():
        parts.append(f"- [{label}]({href})")
    return "\n".join(parts).rstrip() + "\n"

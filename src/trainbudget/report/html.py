"""Render a Report as one self-contained HTML file: inline CSS, charts as base64 PNG data URIs.

Nothing is fetched when the file is opened (no scripts, fonts or stylesheets from the
network), so it can be mailed or opened offline.
"""

from __future__ import annotations

import base64
from decimal import Decimal
from fractions import Fraction
from html import escape

from trainbudget.report.model import Report, Table

INDEX_FILE = "index.html"  # the report root's list of runs (report/index.py)

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;
color:#1b1f24;padding:0 1rem;line-height:1.45}
h1{margin-bottom:.2rem}.subtitle{color:#57606a;margin-top:0}
.verdicts{display:grid;gap:.5rem;margin:1.2rem 0}
.verdict{border-left:.4rem solid #2da44e;background:#f6f8fa;padding:.5rem .8rem}
.verdict.warn{border-color:#bf8700}.verdict.bad{border-color:#cf222e}
.verdict b{text-transform:uppercase;letter-spacing:.03em}
.scroll{overflow-x:auto;margin:.4rem 0 1.4rem}
table{border-collapse:collapse;font-size:.92rem}
th,td{border:1px solid #d0d7de;padding:.25rem .6rem}th{background:#f6f8fa;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
figure{margin:1rem 0 2rem}figure img{max-width:100%;border:1px solid #d0d7de}
.note{color:#57606a;font-size:.88rem}
tr.flag td{background:#ffebe9}tr.flag td:first-child{border-left:.3rem solid #cf222e}
.flagword{color:#cf222e;font-weight:600}
.tablelinks{margin:-.8rem 0 1.4rem;font-size:.9rem}
table.runs td{vertical-align:top}
.nav{margin:0 0 .6rem;font-size:.9rem}
.chip{display:inline-block;border-left:.3rem solid #2da44e;background:#f6f8fa;padding:0 .4rem;
margin:.1rem 0;white-space:nowrap}.chip.warn{border-color:#bf8700}.chip.bad{border-color:#cf222e}
"""


def _table(table: Table) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in table.columns)
    body = []
    for number, row in enumerate(table.rows):
        cells = []
        for index, value in enumerate(row):
            numeric = isinstance(value, int | float | Decimal | Fraction)
            css = ' class="num"' if numeric and not isinstance(value, bool) else ""
            cells.append(f"<td{css}>{escape(table.cell(row, index))}</td>")
        flag = ' class="flag"' if number in table.flagged else ""
        body.append(f"<tr{flag}>{''.join(cells)}</tr>")
    note = f'<p class="note">{escape(table.note)}</p>' if table.note else ""
    links = ""
    if table.links:
        items = " · ".join(
            f'<a href="{escape(href)}">{escape(label)}</a>' for label, href in table.links
        )
        links = f'<p class="tablelinks">{items}</p>'
    if not table.rows:
        return f'<h3>{escape(table.title)}</h3>{note}<p class="note">None.</p>{links}'
    return (
        f"<h3>{escape(table.title)}</h3>{note}"
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>{links}"
    )


def render_html(report: Report) -> str:
    """The report as a complete HTML document (UTF-8 text)."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(report.title)}</title><style>{CSS}</style></head><body>",
        # The index one folder up lists every run (runs.write_summary refreshes it).
        f'<p class="nav"><a href="../{INDEX_FILE}">← All runs</a></p>',
        f"<h1>{escape(report.title)}</h1>",
        f'<p class="subtitle">{escape(report.subtitle)}</p>',
    ]
    if report.verdicts:
        parts.append('<section class="verdicts" id="verdicts">')
        for verdict in report.verdicts:
            parts.append(
                f'<div class="verdict {escape(verdict.tone)}">{escape(verdict.subject)}: '
                f"<b>{escape(verdict.outcome)}</b> — {escape(verdict.reason)}</div>"
            )
        parts.append("</section>")
    if report.summary:
        items = "".join(f"<li>{escape(line)}</li>" for line in report.summary)
        parts.append(f"<h2>Summary</h2><ul>{items}</ul>")
    if report.tables:
        parts.append("<h2>Tables</h2>")
        parts.extend(_table(t) for t in report.tables)
    if report.charts:
        parts.append("<h2>Charts</h2>")
        for chart in report.charts:
            data = base64.b64encode(chart.png).decode("ascii")
            alt = escape(chart.caption or chart.title)
            caption = escape(chart.caption or chart.title)
            parts.append(
                f'<figure><img alt="{alt}" src="data:image/png;base64,{data}">'
                f"<figcaption><b>{escape(chart.title)}</b>. {caption}</figcaption></figure>"
            )
    if report.links:
        items = "".join(
            f'<li><a href="{escape(href)}">{escape(label)}</a></li>'
            for label, href in report.links.items()
        )
        parts.append(f"<h2>Links</h2><ul>{items}</ul>")
    parts.append("</body></html>")
    return "\n".join(parts)

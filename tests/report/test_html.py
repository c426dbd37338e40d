"""The HTML report: self-contained (no network), verdicts first, escaped, charts inline."""

from __future__ import annotations

import base64
import re
from decimal import Decimal
from html.parser import HTMLParser

from trainbudget.report.charts import plan_vs_actual_chart
from trainbudget.report.html import render_html
from trainbudget.report.model import Chart, Report, Table, Verdict

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _report() -> Report:
    png = plan_vs_actual_chart(
        [{"work_class": "main", "planned_gpu_hours": 451.4, "actual_gpu_hours": 536}]
    )
    return Report(
        title="Weekly review: demo-1b, 2026-W47",
        subtitle="ledger ./trainbudget.duckdb",
        verdicts=[
            Verdict("continuation", "continue", "projected 712 of 900 GPU-hours"),
            Verdict("retry", "defer", "cause <not addressed> & no value", tone="bad"),
        ],
        summary=["allocated 180 GPU-hours"],
        tables=[Table("Lines", ["work_class", "gpu_hours"], [["main", Decimal("451.4")]])],
        charts=[Chart("Plan versus actual", png, "planned and actual GPU-hours")],
    )


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []  # what the page fetches (src)
        self.links: list[str] = []  # where it navigates to (href)
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name == "src" and value:
                self.urls.append(value)
            if name == "href" and value:
                self.links.append(value)


def test_report_fetches_nothing_from_the_network() -> None:
    page = render_html(_report())
    collector = _Collector()
    collector.feed(page)
    assert "script" not in collector.tags and "link" not in collector.tags
    assert collector.urls and all(u.startswith("data:image/png;base64,") for u in collector.urls)
    assert not re.search(r"https?://", page)


def test_report_links_back_to_the_list_of_runs_one_folder_up() -> None:
    collector = _Collector()
    collector.feed(render_html(_report()))
    assert collector.links[0] == "../index.html"


def test_inline_chart_is_the_png_given() -> None:
    report = _report()
    page = render_html(report)
    encoded = re.search(r'src="data:image/png;base64,([^"]+)"', page).group(1)
    decoded = base64.b64decode(encoded)
    assert decoded == report.charts[0].png and decoded.startswith(PNG_MAGIC)


def test_verdicts_come_before_tables_and_charts() -> None:
    page = render_html(_report())
    assert page.index("continuation") < page.index("<h2>Tables") < page.index("<h2>Charts")


def test_text_is_escaped_and_numbers_rounded_for_display() -> None:
    page = render_html(_report())
    assert "cause &lt;not addressed&gt; &amp; no value" in page
    assert '<td class="num">451.40</td>' in page
    assert 'class="verdict bad"' in page

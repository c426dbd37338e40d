"""The markdown report (Prefect artifact): verdicts, tables with escaped cells, chart pointer."""

from __future__ import annotations

from trainbudget.report.markdown import render_markdown, render_table, render_verdicts
from trainbudget.report.model import Chart, Report, Table, Verdict


def test_table_is_a_markdown_table_with_escaped_pipes() -> None:
    table = Table("Gate decisions", ["gate", "reason"], [["retry", "a|b"], ["admit", None]])
    assert render_table(table).splitlines() == [
        "### Gate decisions",
        "",
        "| gate | reason |",
        "| --- | --- |",
        "| retry | a\\|b |",
        "| admit |  |",
    ]


def test_verdicts_lead_the_document() -> None:
    report = Report(
        "Pre-launch estimate: demo-1b",
        "plan demo-1b.plan.yaml",
        verdicts=[Verdict("admission", "defer", "estimate 1,300 > budget 900", tone="bad")],
        tables=[Table("t", ["a"], [[1]])],
        charts=[Chart("Sensitivity", b"png")],
    )
    text = render_markdown(report)
    assert text.index("## Verdicts") < text.index("### t")
    assert "**admission: defer** — estimate 1,300 > budget 900" in render_verdicts(report)
    assert "Charts (Sensitivity) are in the HTML report." in text


def test_numbers_are_rounded_for_display_only() -> None:
    # An integral value shows bare; others to 2 places; separators either way.
    table = Table("n", ["GPU-hours", "jobs"], [[1252.0, 12000], [1252.125, 3]])
    assert "| 1,252 | 12,000 |" in render_table(table)
    assert "| 1,252.12 | 3 |" in render_table(table)

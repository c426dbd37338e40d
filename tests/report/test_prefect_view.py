"""What a run shows in the Prefect UI: rounded table cells under worded headers with units,
the verdict markdown with inline charts and http links, and the final state's name."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from trainbudget.report.model import Chart, Report, Table, Verdict
from trainbudget.report.prefect_view import column_header, state_name, table_rows, verdict_markdown


@pytest.mark.parametrize(
    ("field", "header"),
    [
        ("work_class", "work class"),
        ("gpu_hours", "GPU-hours"),
        ("allocated_gpu_hours", "allocated (GPU-hours)"),
        ("compute_usd", "compute (USD)"),
        ("gpu_busy_us", "GPU busy (µs)"),
        ("memory_peak_bytes", "memory peak (bytes)"),
        ("idle_pct", "idle (%)"),
        ("storage_gb_months", "storage (GB-months)"),
        ("job_id", "job ID"),
        ("failure_fraction", "failure fraction"),
        ("GPU-hours", "GPU-hours"),  # already words: kept
        ("wall hours", "wall hours"),
    ],
)
def test_field_names_become_headers_with_units(field: str, header: str) -> None:
    assert column_header(field) == header


def test_table_cells_are_rounded_for_display() -> None:
    table = Table("t", ["work_class", "gpu_hours", "gpus"], [["main", 391 / 6, 1234]])
    # 391/6 = 65.1666…: two places; an integer gets its thousands separator.
    assert table_rows(table) == [{"work class": "main", "GPU-hours": "65.17", "GPUs": "1,234"}]


def test_verdict_markdown_inlines_the_key_charts_and_links_over_http(monkeypatch) -> None:
    monkeypatch.setenv("TRAINBUDGET_REPORT_URL", "http://127.0.0.1:5555/reports")
    charts = [Chart(f"chart {i}", bytes([137, 80, 78, 71, i]), f"caption {i}") for i in range(3)]
    report = Report(
        "Weekly review: x",
        "generated",
        verdicts=[Verdict("continuation", "continue", "Continue: fine.")],
        charts=charts,
        links={"Great Expectations Data Docs": "data-docs/index.html"},
    )
    text = verdict_markdown(report, Path("/somewhere/weekly-review-x 2026-W47"))
    base = "http://127.0.0.1:5555/reports/weekly-review-x%202026-W47/"
    assert f"[Open the HTML report]({base}report.html)" in text
    assert f"[Great Expectations Data Docs]({base}data-docs/index.html)" in text
    images = re.findall(r"!\[([^\]]*)\]\(data:image/png;base64,([^)]*)\)", text)
    assert [(alt, base64.b64decode(data)) for alt, data in images] == [
        ("chart 0", charts[0].png),
        ("chart 1", charts[1].png),
    ]
    assert "chart 2" in text.split("data:image/png")[-1]  # named, pointing to the HTML report
    assert text.index("continuation: continue") < text.index("data:image/png")


def _gate(gate: str, outcome: str, reason: str | None = None) -> dict:
    return {"gate": gate, "outcome": outcome, "reason": reason}


@pytest.mark.parametrize(
    ("gates", "name"),
    [
        ([_gate("admission", "admit"), _gate("decision", "run")], "Admitted"),
        ([_gate("admission", "defer", "budget"), _gate("decision", "run")], "Over budget"),
        ([_gate("admission", "defer", "no-recovery")], "Deferred"),
        ([_gate("admission", "admit"), _gate("decision", "not-worth-it")], "Not worth it"),
        ([_gate("admission", "admit"), _gate("decision", "defer")], "Deferred"),
        ([_gate("continuation", "continue"), _gate("retry", "deny")], "Continue"),
        ([_gate("continuation", "stop", "over-ceiling")], "Over ceiling"),
        ([_gate("continuation", "complete")], "Complete"),
        ([], "Completed"),
    ],
)
def test_the_final_state_is_named_for_the_outcome(gates: list[dict], name: str) -> None:
    assert state_name(gates) == name

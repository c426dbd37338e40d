"""`trainbudget demo` then `trainbudget ui --demo`: the runs end in states named for their
outcome, their report links are http addresses the report server answers, and the demo says
which command shows them (with no telemetry notice on a terminal)."""

from __future__ import annotations

import re

import httpx
import orjson
import pytest

pytestmark = pytest.mark.slow


def test_demo_names_the_ui_command_and_prints_no_telemetry_notice(demo_once) -> None:
    payload = demo_once["payload"]
    assert payload["ui_command"].endswith(f"ui --demo --report-root {demo_once['out']}")
    assert "[3/3] weekly review" in demo_once["stderr"]  # the terminal was read
    assert "anonymous usage" not in demo_once["stderr"]


def test_runs_end_in_named_states_and_link_their_reports_over_http(ui_demo) -> None:
    api = ui_demo["api_url"]
    runs = httpx.post(f"{api}/flow_runs/filter", json={}, timeout=30).json()
    states = {r["name"]: (r["state"]["type"], r["state"]["name"]) for r in runs}
    assert states == {
        "demo-1b": ("COMPLETED", "Admitted"),
        "demo-1b-2026-W47": ("COMPLETED", "Continue"),
    }
    artifacts = httpx.post(f"{api}/artifacts/filter", json={}, timeout=30).json()
    by_key = {a["key"]: a for a in artifacts}
    base = ui_demo["report_url"]
    for key, folder in (
        ("demo-1b-prelaunch-report", "prelaunch-demo-1b"),
        ("demo-1b-weekly-report", "weekly-review-demo-1b-2026-W47"),
    ):
        link = f"{base}{folder}/report.html"
        assert f"({link})" in by_key[key]["data"]
        response = httpx.get(link, timeout=30)
        assert response.status_code == 200 and "<table" in response.text
        docs = f"{base}{folder}/data-docs/index.html"
        assert docs in by_key[key.replace("report", "verdict")]["data"]
        assert httpx.get(docs, timeout=30).status_code == 200
    lines = orjson.loads(by_key["demo-1b-prelaunch-campaign-lines"]["data"])
    # The demo plan's fixed lines: pilots 4 runs × 4 GPUs × 3 h, evaluation 11 × 2 × 2.5 h.
    hours = {line["Work class"]: line["GPU-hours"] for line in lines}  # the report's headers
    assert float(hours["pilot"].replace(",", "")) == 48
    assert float(hours["evaluation"].replace(",", "")) == 55
    numbers = [v for line in lines for v in line.values() if re.fullmatch(r"[\d,]+\.?\d*", v)]
    assert numbers and all("." not in n or len(n.split(".")[1]) <= 2 for n in numbers), numbers

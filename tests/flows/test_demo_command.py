"""`trainbudget demo` runs both flows in ephemeral Prefect and says where the report is (the
session's one demo run, `demo_once` in conftest.py)."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.hrefs += [v for k, v in attrs if k == "href" and v]


def outcomes(summary: dict) -> dict[str, str]:
    """gate → outcome from a run summary's `gates` list (one retry gate per failed job)."""
    return {g["gate"]: g["outcome"] for g in summary["gates"]}


def test_demo_writes_both_reports_and_an_index(demo_once) -> None:
    out = demo_once["out"]
    payload = demo_once["payload"]
    assert outcomes(payload["prelaunch"]) == {"admission": "admit", "decision": "run"}
    assert payload["weekly_review"]["week"] == "2026-W47"
    index = Path(payload["index"])
    assert index == (out / "index.html").resolve()
    links = _Links()
    links.feed(index.read_text(encoding="utf-8"))
    targets = {(index.parent / href).resolve() for href in links.hrefs}
    assert {
        Path(payload["prelaunch"]["report"]),
        Path(payload["weekly_review"]["report"]),
    } <= targets
    assert all(t.is_file() for t in targets)
    # Progress goes to stderr, so stdout stays one JSON object (demo_once parsed it).
    assert "[3/3] weekly review" in demo_once["stderr"]

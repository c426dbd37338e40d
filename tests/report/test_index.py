"""index.html lists every run folder's summary.json: date, campaign, verdicts and its files."""

from __future__ import annotations

import os
from html.parser import HTMLParser
from pathlib import Path

import orjson

from trainbudget.report.index import find_runs, write_index


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.hrefs: list[str] = []
        self._in = False

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        if tag == "td":
            self._in = True
            self.rows[-1].append("")
        if tag == "a":
            self.hrefs += [v for k, v in attrs if k == "href"]

    def handle_endtag(self, tag):
        if tag == "td":
            self._in = False

    def handle_data(self, data):
        if self._in:
            self.rows[-1][-1] += data


def _run(root: Path, name: str, summary: dict, mtime: int, *files: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "summary.json").write_bytes(orjson.dumps(summary))
    for file in ("report.html", *files):
        (folder / file).parent.mkdir(parents=True, exist_ok=True)
        (folder / file).write_text("x", encoding="utf-8")
    os.utime(folder / "summary.json", (mtime, mtime))
    return folder


def test_the_index_lists_each_run_newest_first_with_verdicts_and_links(tmp_path: Path) -> None:
    pre = {
        "flow": "prelaunch-estimate",
        "campaign": "demo-1b",
        "planned_gpu_hours": 654.556,
        "gates": [{"gate": "admission", "outcome": "admit", "reason": None}],
    }
    week = {
        "flow": "weekly-review",
        "campaign": "demo-1b",
        "week": "2026-W47",
        "planned_gpu_hours": 654.556,
        "gates": [{"gate": "retry", "outcome": "deny", "reason": "cause-unaddressed"}],
    }
    # 2026-11-23 06:00 UTC and one day later.
    _run(tmp_path, "prelaunch-demo-1b", pre, 1_795_413_600)
    _run(tmp_path, "weekly-review-demo-1b-2026-W47", week, 1_795_500_000, "jobs.csv",
         "data-docs/index.html")  # fmt: skip
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "summary.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "no-summary").mkdir()
    assert [r.folder.name for r in find_runs(tmp_path)] == [
        "weekly-review-demo-1b-2026-W47", "prelaunch-demo-1b",
    ]  # fmt: skip
    index = write_index(tmp_path)
    parser = _Cells()
    parser.feed(index.read_text(encoding="utf-8"))
    rows = [r for r in parser.rows if r]
    assert [r[:4] for r in rows] == [
        ["2026-11-24 06:00 UTC", "Weekly review, 2026-W47", "demo-1b", "654.56"],
        ["2026-11-23 06:00 UTC", "Pre-launch estimate", "demo-1b", "654.56"],
    ]
    assert rows[0][4] == "retry: deny (cause-unaddressed)"
    assert rows[1][4] == "admission: admit"
    assert rows[0][5] == "report · Data Docs · jobs (CSV) · summary (JSON)"
    assert all((tmp_path / href).is_file() for href in parser.hrefs)
    assert 'class="chip bad"' in index.read_text(encoding="utf-8")


def test_links_go_under_a_base_url_when_given(tmp_path: Path) -> None:
    _run(tmp_path, "prelaunch-c", {"flow": "prelaunch-estimate", "campaign": "c", "gates": []}, 0)
    parser = _Cells()
    parser.feed(write_index(tmp_path, base_url="http://127.0.0.1:8790/runs/").read_text())
    assert parser.hrefs == [
        "http://127.0.0.1:8790/runs/prelaunch-c/report.html",
        "http://127.0.0.1:8790/runs/prelaunch-c/summary.json",
    ]


def test_an_empty_folder_says_so(tmp_path: Path) -> None:
    assert "No runs here yet" in write_index(tmp_path).read_text(encoding="utf-8")

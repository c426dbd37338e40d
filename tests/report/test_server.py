"""The report server: run folders over HTTP on loopback, nothing else from the report root."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from trainbudget.base.errors import InputError
from trainbudget.report.server import (
    loopback_address,
    report_base_url,
    report_url,
    start_report_server,
)


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, b""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def served_root(tmp_path: Path):
    run = tmp_path / "weekly-review-x-2026-W47"
    (run / "data-docs").mkdir(parents=True)
    (run / "report.html").write_text("<h1>the report</h1>", encoding="utf-8")
    (run / "data-docs" / "index.html").write_text("docs", encoding="utf-8")
    (tmp_path / "trainbudget.duckdb").write_bytes(b"ledger")
    (tmp_path / ".prefect").mkdir()
    (tmp_path / ".prefect" / "prefect.db").write_bytes(b"db")
    (tmp_path / "not-a-run").mkdir()
    (tmp_path / "not-a-run" / "secret.txt").write_text("no", encoding="utf-8")
    port = _free_port()
    server = start_report_server(tmp_path, "127.0.0.1", port)
    yield f"http://127.0.0.1:{port}"
    server.shutdown()
    server.server_close()


def test_run_folders_are_served_and_nothing_else(served_root: str) -> None:
    assert _get(f"{served_root}/weekly-review-x-2026-W47/report.html") == (
        200,
        b"<h1>the report</h1>",
    )
    assert _get(f"{served_root}/weekly-review-x-2026-W47/data-docs/index.html")[0] == 200
    for path in (
        "trainbudget.duckdb",
        ".prefect/prefect.db",
        "not-a-run/secret.txt",
        "weekly-review-x-2026-W47/../trainbudget.duckdb",
        "weekly-review-x-2026-W47/%2e%2e/trainbudget.duckdb",
        "not-a-run/",  # no directory listings
        ".prefect/",
    ):
        assert _get(f"{served_root}/{path}")[0] == 404, path


def test_a_run_folder_opens_its_report(served_root: str) -> None:
    for path in ("weekly-review-x-2026-W47/", "weekly-review-x-2026-W47"):
        assert _get(f"{served_root}/{path}") == (200, b"<h1>the report</h1>"), path


def test_the_root_opens_the_index(served_root: str, tmp_path: Path) -> None:
    """issue 23: `ui --demo` printed http://127.0.0.1:4201/, a 404 (only /index.html opened)."""
    (tmp_path / "index.html").write_text("<h1>runs</h1>", encoding="utf-8")
    assert _get(f"{served_root}/") == (200, b"<h1>runs</h1>")
    assert _get(served_root) == (200, b"<h1>runs</h1>")
    assert _get(f"{served_root}/index.html") == (200, b"<h1>runs</h1>")


def test_a_root_without_an_index_lists_its_runs(served_root: str) -> None:
    status, body = _get(f"{served_root}/")
    assert status == 200
    assert b'href="weekly-review-x-2026-W47/report.html"' in body
    assert b"not-a-run" not in body


def test_report_url_follows_the_setting(monkeypatch) -> None:
    monkeypatch.delenv("TRAINBUDGET_REPORT_URL", raising=False)
    assert report_url(Path("/r/prelaunch-x"), "report.html") == (
        "http://127.0.0.1:4201/prelaunch-x/report.html"
    )
    monkeypatch.setenv("TRAINBUDGET_REPORT_URL", "http://localhost:8800/runs")
    assert report_base_url() == "http://localhost:8800/runs/"
    assert loopback_address() == ("127.0.0.1", 8800, "/runs/")
    monkeypatch.setenv("TRAINBUDGET_REPORT_URL", "https://reports.example.org/tb/")
    assert loopback_address() is None  # served by something else
    monkeypatch.setenv("TRAINBUDGET_REPORT_URL", "file:///tmp/x")
    with pytest.raises(InputError, match="TRAINBUDGET_REPORT_URL"):
        report_base_url()

"""Headless Chromium (Debian's package, driven by Playwright) with the network cut off except
loopback: the Prefect UI shows a run's verdict and its chart; from the UI that `trainbudget ui
--demo` serves, a run's report link opens the report; both reports and their Data Docs render
with their tables filled. Screenshots of each page go to the test's tmp folder."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
LOAD_TIMEOUT_MS = 120_000
# Rows of every table on the page, and whether each has text in its cells.
_TABLES = """Array.from(document.querySelectorAll('table')).filter(t => t.offsetParent !== null)
  .map(t => Array.from(t.querySelectorAll('tbody tr')).filter(r => r.innerText.trim()).length)"""
_IMAGES = """Array.from(document.images).filter(i => i.src.startsWith('data:image/png'))
  .map(i => i.naturalWidth)"""


@pytest.mark.parametrize(
    ("key", "verdict"),
    [
        ("demo-1b-prelaunch-verdict", "admission: admit"),
        ("demo-1b-weekly-verdict", "continuation: continue"),
    ],
)
def test_verdict_and_chart_are_visible_in_the_ui(
    prefect_server, completed_runs, offline_page, tmp_path: Path, key, verdict
) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with (
        temporary_settings(updates={PREFECT_API_URL: prefect_server["PREFECT_API_URL"]}),
        get_client(sync_client=True) as client,
    ):
        (artifact,) = client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key])), limit=1
        )
    page, refused = offline_page
    page.goto(f"{prefect_server['ui']}/artifacts/artifact/{artifact.id}", timeout=LOAD_TIMEOUT_MS)
    page.get_by_text(verdict).first.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    page.locator("img[src^='data:image/png']").first.wait_for(timeout=LOAD_TIMEOUT_MS)
    page.screenshot(path=tmp_path / f"{key}.png", full_page=True)
    assert verdict in page.inner_text("body")
    widths = page.evaluate(_IMAGES)
    assert widths and all(w > 100 for w in widths), widths  # decoded and drawn, not broken
    assert refused == []


def test_a_runs_report_link_opens_from_the_ui(ui_demo, offline_page, tmp_path: Path) -> None:
    import httpx

    page, refused = offline_page
    runs = httpx.post(f"{ui_demo['api_url']}/flow_runs/filter", json={}, timeout=30).json()
    (run,) = [r for r in runs if r["name"] == "demo-1b"]
    page.goto(f"{ui_demo['ui_url']}/runs/flow-run/{run['id']}", timeout=LOAD_TIMEOUT_MS)
    page.get_by_text("Admitted").first.wait_for(timeout=LOAD_TIMEOUT_MS)
    page.get_by_text("Artifacts", exact=True).first.click(timeout=LOAD_TIMEOUT_MS)
    card = page.get_by_text("demo-1b-prelaunch-report", exact=True).first
    card.wait_for(timeout=LOAD_TIMEOUT_MS)
    page.screenshot(path=tmp_path / "1-flow-run-artifacts.png", full_page=True)
    card.click()
    link = page.get_by_role("link", name="HTML report: prelaunch-demo-1b/report.html")
    link.wait_for(timeout=LOAD_TIMEOUT_MS)
    page.screenshot(path=tmp_path / "2-report-link-artifact.png")
    with page.context.expect_page() as opened:
        link.click()
    report = opened.value
    report.wait_for_load_state()
    report.screenshot(path=tmp_path / "3-report.png", full_page=True)
    assert report.url == f"{ui_demo['report_url']}prelaunch-demo-1b/report.html"
    assert report.title() == "Pre-launch estimate: demo-1b"
    rows = report.evaluate(_TABLES)
    assert rows and all(n > 0 for n in rows), rows
    # And back: the report's "All runs" link opens the index, and none of its links is dead.
    report.get_by_role("link", name="← All runs").click(timeout=LOAD_TIMEOUT_MS)
    report.wait_for_load_state()
    report.screenshot(path=tmp_path / "4-all-runs.png", full_page=True)
    assert report.url == f"{ui_demo['report_url']}index.html"
    hrefs = report.evaluate("Array.from(document.links).map(a => a.href)")
    assert any(h.endswith("prelaunch-demo-1b/report.html") for h in hrefs), hrefs
    dead = [h for h in hrefs if httpx.get(h, timeout=30).status_code != 200]
    assert dead == []
    assert refused == []


def test_reports_and_data_docs_render_offline(
    ui_demo, demo_once, offline_page, tmp_path: Path
) -> None:
    page, refused = offline_page
    out = Path(demo_once["out"])
    for run in ("prelaunch-demo-1b", "weekly-review-demo-1b-2026-W47"):
        docs = out / run / "data-docs"
        validations = sorted(docs.glob("validations/**/*.html"))
        assert validations, f"no validation pages in {docs}"
        pages = {
            "report": f"{ui_demo['report_url']}{run}/report.html",
            "docs-index": f"{ui_demo['report_url']}{run}/data-docs/index.html",
            # Data Docs also open from the folder itself (mailed, or on a login node).
            "docs-validation": validations[0].as_uri(),
        }
        for name, url in pages.items():
            page.goto(url, timeout=LOAD_TIMEOUT_MS)
            page.wait_for_load_state("networkidle")
            page.screenshot(path=tmp_path / f"{run}-{name}.png", full_page=True)
            rows = page.evaluate(_TABLES)
            assert rows and all(n > 0 for n in rows), (name, rows)
            if name.startswith("docs"):
                # Bootstrap's stylesheet and Font Awesome's icons are the vendored copies.
                font = page.evaluate("getComputedStyle(document.body).fontFamily")
                assert "Times" not in font, font
                assert page.evaluate("document.fonts.check('900 16px \"Font Awesome 6 Free\"')")
    assert refused == []

"""Headless Chromium (Debian's package, driven by Playwright) opens a run's verdict artifact
in the Prefect UI and finds the verdict on the page."""

from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.slow
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.fail("chromium is not installed (apt-get install -y chromium; see .ci/run)")
    return path


@pytest.mark.parametrize(
    ("key", "verdict"),
    [
        ("demo-1b-prelaunch-verdict", "admission: admit"),
        ("demo-1b-weekly-verdict", "continuation: continue"),
    ],
)
def test_verdict_is_visible_in_the_ui(prefect_server, completed_runs, key, verdict) -> None:
    from playwright.sync_api import sync_playwright
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
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(f"{prefect_server['ui']}/artifacts/artifact/{artifact.id}", timeout=120_000)
            page.get_by_text(verdict).first.wait_for(state="visible", timeout=120_000)
            assert verdict in page.inner_text("body")
        finally:
            browser.close()

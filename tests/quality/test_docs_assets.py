"""Data Docs offline: every CDN asset GE's templates load is vendored, and pages point at it."""

from __future__ import annotations

import re
from pathlib import Path

import great_expectations

from trainbudget.quality.docs_assets import ASSETS, CDN_FILES, localize_page, vendor_data_docs

TEMPLATES = Path(great_expectations.__file__).parent / "render" / "view" / "templates"
_ASSET_TAG = re.compile(r"<(?:script|link)\b[^>]*?(?:src|href)=\"(https?://[^\"]+)\"", re.I)


def test_every_cdn_asset_of_the_installed_templates_is_vendored() -> None:
    used = {url for t in TEMPLATES.glob("*.j2") for url in _ASSET_TAG.findall(t.read_text())}
    assert used, f"no CDN assets found in {TEMPLATES}"
    assert used <= set(CDN_FILES), sorted(used - set(CDN_FILES))
    for local in CDN_FILES.values():
        assert (ASSETS / local).is_file(), local
    licences = (ASSETS / "LICENSES.md").read_text(encoding="utf-8")
    for folder in {local.split("/")[0] for local in CDN_FILES.values()}:
        assert f"| {folder}/ |" in licences, folder


def test_a_page_points_at_the_vendored_files(tmp_path: Path) -> None:
    page_dir = tmp_path / "validations" / "suite" / "run"
    page_dir.mkdir(parents=True)
    page = page_dir / "v.html"
    page.write_text(
        '<script src="https://code.jquery.com/jquery-3.7.1.min.js"></script>'
        '<script src="https://stackpath.bootstrapcdn.com/bootstrap/4.3.1/js/bootstrap.min.js" '
        'integrity="sha384-x" crossorigin="anonymous"></script>'
        '<img src="https://great-expectations-web-assets.s3.us-east-2.amazonaws.com/'
        'logo-long.png?d=20261201T1">'
        '<a href="https://greatexpectations.io">GX</a>',
        encoding="utf-8",
    )
    vendor_data_docs(tmp_path)
    text = page.read_text(encoding="utf-8")
    assert '<script src="../../../static/vendor/jquery/jquery.min.js"></script>' in text
    assert '<script src="../../../static/vendor/bootstrap/bootstrap.min.js"></script>' in text
    assert '<img src="../../../static/images/logo-long.png">' in text
    assert '<a href="https://greatexpectations.io">' in text  # a link, not an asset
    for src in re.findall(r'src="([^"]+)"', text)[:2]:
        assert (page_dir / src).resolve().is_file(), src
    assert localize_page(text, page_dir, tmp_path) == text

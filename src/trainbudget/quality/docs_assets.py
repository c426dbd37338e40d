"""Data Docs that render offline: copy the vendored CDN assets into the site and point every
page at them.

Great Expectations' pages load Bootstrap, bootstrap-table, jQuery, Popper, Font Awesome and
Vega from public CDNs and the logo from S3; without a network they show empty, unstyled
tables. `static/` beside this module carries those files (licences in static/LICENSES.md).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

ASSETS = Path(__file__).with_name("static")
VENDOR = Path("static") / "vendor"
_FILTER = "dist/extensions/filter-control/bootstrap-table-filter-control"
_FILTER_1190 = f"https://unpkg.com/bootstrap-table@1.19.0/{_FILTER}"
_FILTER_1191 = f"https://unpkg.com/bootstrap-table@1.19.1/{_FILTER}"
# Each CDN address the GE 1.x templates use → the vendored file under static/vendor/.
CDN_FILES = {
    "https://maxcdn.bootstrapcdn.com/bootstrap/4.3.1/css/bootstrap.min.css": (
        "bootstrap/bootstrap.min.css"
    ),
    "https://stackpath.bootstrapcdn.com/bootstrap/4.3.1/js/bootstrap.min.js": (
        "bootstrap/bootstrap.min.js"
    ),
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.css": (
        "bootstrap-table/bootstrap-table.min.css"
    ),
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.js": (
        "bootstrap-table/bootstrap-table.min.js"
    ),
    f"{_FILTER_1191}.min.js": "bootstrap-table/bootstrap-table-filter-control.min.js",
    f"{_FILTER_1190}.css": "bootstrap-table/bootstrap-table-filter-control.min.css",
    f"{_FILTER_1190}.min.css": "bootstrap-table/bootstrap-table-filter-control.min.css",
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/css/"
    "bootstrap-datepicker.min.css": "bootstrap-datepicker/bootstrap-datepicker.min.css",
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/js/"
    "bootstrap-datepicker.min.js": "bootstrap-datepicker/bootstrap-datepicker.min.js",
    "https://cdn.jsdelivr.net/npm/@forevolve/bootstrap-dark@1.1.0/dist/css/"
    "bootstrap-prefers-dark.css": "bootstrap-dark/bootstrap-prefers-dark.css",
    "https://code.jquery.com/jquery-3.7.1.min.js": "jquery/jquery.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/popper.js/1.12.9/umd/popper.min.js": (
        "popper/popper.min.js"
    ),
    "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.6.0/css/all.min.css": (
        "fontawesome/css/all.min.css"
    ),
    "https://cdn.jsdelivr.net/npm/vega@5": "vega/vega.min.js",
    "https://cdn.jsdelivr.net/npm/vega-lite@5": "vega/vega-lite.min.js",
    "https://cdn.jsdelivr.net/npm/vega-embed@6": "vega/vega-embed.min.js",
}
_LOGO = re.compile(r"https://great-expectations-web-assets\.s3\.[a-z0-9-]+\.amazonaws\.com/"
                   r"(logo-long\.png)(\?[^\"']*)?")  # fmt: skip
_TAG = re.compile(r"<(?:script|link)\b[^>]*>", re.IGNORECASE)
# Subresource integrity and CORS mode are for CDN copies; a page opened from file:// has an
# opaque origin, and a crossorigin request from it is refused.
_CDN_ONLY_ATTRIBUTES = re.compile(r'\s(?:integrity|crossorigin)="[^"]*"')


def vendor_data_docs(site: Path) -> None:
    """Copy the assets into `site`/static/vendor and rewrite every page's CDN links to them."""
    shutil.copytree(ASSETS, site / VENDOR, dirs_exist_ok=True)
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        rewritten = localize_page(text, page.parent, site)
        if rewritten != text:
            page.write_text(rewritten, encoding="utf-8")


def localize_page(text: str, page_dir: Path, site: Path) -> str:
    """The page's HTML with CDN script/style links and the logo pointing inside `site`."""

    def relative(target: Path) -> str:
        return Path(os.path.relpath(site / target, page_dir)).as_posix()

    def tag(match: re.Match[str]) -> str:
        html = match.group(0)
        for url, local in CDN_FILES.items():
            if f'"{url}"' in html:
                html = html.replace(f'"{url}"', f'"{relative(VENDOR / local)}"')
                return _CDN_ONLY_ATTRIBUTES.sub("", html)
        return html

    text = _TAG.sub(tag, text)
    return _LOGO.sub(lambda m: relative(Path("static") / "images" / m.group(1)), text)

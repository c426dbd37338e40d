"""Locate the folders shipped beside the code (sql/), installed or in a source checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # src/trainbudget (or the wheel's)
_REPO_ROOT = _PACKAGE_DIR.parent.parent


def resource_dir(name: str) -> Path:
    """Return the folder `name` (e.g. "sql"): inside the installed wheel, else at the repo root.

    The wheel carries a copy made at build time from the one folder at the repository root;
    an editable install or a source checkout reads that folder directly.
    """
    for candidate in (_PACKAGE_DIR / name, _REPO_ROOT / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"trainbudget: resource folder {name!r} not found beside {_PACKAGE_DIR}"
    )

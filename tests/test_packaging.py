"""The wheel ships sql/ from the one folder at the repository root (no inline copies)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_wheel_contains_every_sql_file(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(REPO_ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("trainbudget-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = {
            name.removeprefix("trainbudget/sql/"): archive.read(name)
            for name in archive.namelist()
            if name.startswith("trainbudget/sql/")
        }
    expected = {
        str(path.relative_to(REPO_ROOT / "sql")): path.read_bytes()
        for path in (REPO_ROOT / "sql").rglob("*.sql")
    }
    assert shipped == expected

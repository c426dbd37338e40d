"""The layers of DESIGN.md ("Layout") hold: `lint-imports` keeps every contract declared in
pyproject.toml's [tool.importlinter] (the layers top to bottom, and no Prefect in src/)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_every_import_linter_contract_is_kept() -> None:
    script = Path(sys.executable).with_name("lint-imports")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [str(script), "--no-cache", str(REPO / "pyproject.toml")],
        cwd=REPO, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout

"""The layers of DESIGN.md ("Layout") hold: `lint-imports` keeps every contract declared in
pyproject.toml's [tool.importlinter] (the layers top to bottom, and no Prefect in src/)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
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


def test_every_module_is_in_a_layer() -> None:
    """Each package and module at the top of src/trainbudget (but the package's own
    __init__ / __main__) is named in the layers contract, so none escapes it."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    (layers,) = [
        c["layers"] for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "layers"
    ]
    named = {name.strip() for layer in layers for name in layer.replace(":", "|").split("|")}
    assert not {n for n in named if n.startswith("(")}, "no optional placeholders"
    top = REPO / "src" / "trainbudget"
    found = {p.stem for p in top.glob("*.py")} | {p.parent.name for p in top.glob("*/__init__.py")}
    assert found - {"__init__", "__main__"} == named

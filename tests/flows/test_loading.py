"""flows/ ships inside the wheel, and `trainbudget demo` / `serve` find it there."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(built_wheel: Path) -> Path:
    return built_wheel


def test_wheel_carries_flows_and_demo_data(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        shipped_flows = {
            name.removeprefix("trainbudget/flows/"): archive.read(name)
            for name in names
            if name.startswith("trainbudget/flows/") and name.endswith(".py")
        }
    expected = {p.name: p.read_bytes() for p in (REPO_ROOT / "flows").glob("*.py")}
    assert shipped_flows == expected
    demo = REPO_ROOT / "src" / "trainbudget" / "demo_data"
    for path in demo.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            assert f"trainbudget/demo_data/{path.relative_to(demo).as_posix()}" in names


def test_installed_package_loads_its_own_flows(wheel: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path)
    probe = (
        "from trainbudget.cli.flows import flows_dir, load_flow\n"
        "print(flows_dir())\n"
        "print(load_flow('weekly-review').name, load_flow('prelaunch-estimate').name)\n"
    )
    # The unpacked wheel comes first on the path, ahead of the editable install.
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    folder, names = proc.stdout.strip().splitlines()[-2:]
    assert Path(folder) == tmp_path / "trainbudget" / "flows"
    assert names == "weekly-review prelaunch-estimate"

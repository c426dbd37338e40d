"""What the wheel and the sdist ship: sql/ from its one folder, the demo data without its
generator, the test fixtures with their provenance, and never the unlicensed Chinchilla points."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
DEMO = REPO_ROOT / "src" / "trainbudget" / "demo_data"
FIXTURES = REPO_ROOT / "tests" / "fixtures"
UNLICENSED = "tests/fixtures/scaling/chinchilla_fig4_svg_extracted.csv"


@pytest.fixture(scope="module")
def wheel_files(built_wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(built_wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.fixture(scope="module")
def sdist_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    out = tmp_path_factory.mktemp("sdist")
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d", str(out)],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
    )
    (sdist,) = out.glob("trainbudget-*.tar.gz")
    with tarfile.open(sdist) as archive:
        return {
            member.name.split("/", 1)[1]: archive.extractfile(member).read()
            for member in archive.getmembers()
            if member.isfile()
        }


def _tree(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_wheel_contains_every_sql_file(wheel_files: dict[str, bytes]) -> None:
    shipped = {
        name.removeprefix("trainbudget/sql/"): data
        for name, data in wheel_files.items()
        if name.startswith("trainbudget/sql/")
    }
    expected = {
        str(path.relative_to(REPO_ROOT / "sql")): path.read_bytes()
        for path in (REPO_ROOT / "sql").rglob("*.sql")
    }
    assert shipped == expected


def test_wheel_ships_the_demo_data_but_not_its_generator(wheel_files: dict[str, bytes]) -> None:
    shipped = {
        name.removeprefix("trainbudget/demo_data/"): data
        for name, data in wheel_files.items()
        if name.startswith("trainbudget/demo_data/")
    }
    assert shipped == _tree(DEMO)
    assert {
        "sacct/sacct-2026-W47.psv",
        "demo-1b.plan.yaml",
        "traces/rank-3.pt.trace.json.gz",
    } <= set(shipped)
    python = {name for name in shipped if name.endswith(".py")}
    assert python == {"__init__.py"}
    assert not any(name.startswith("tools/") or "/tools/" in name for name in wheel_files)


def test_wheel_ships_no_test_fixtures(wheel_files: dict[str, bytes]) -> None:
    assert not [name for name in wheel_files if "fixtures" in name or "chinchilla" in name]


def test_sdist_leaves_out_only_the_unlicensed_chinchilla_points(
    sdist_files: dict[str, bytes],
) -> None:
    assert UNLICENSED not in sdist_files
    assert not [name for name in sdist_files if "chinchilla" in name]
    expected = {
        f"tests/fixtures/{name}": data
        for name, data in _tree(FIXTURES).items()
        if f"tests/fixtures/{name}" != UNLICENSED
    }
    shipped = {
        name: data for name, data in sdist_files.items() if name.startswith("tests/fixtures/")
    }
    assert shipped == expected
    assert sum(n.startswith("tests/fixtures/sacct/LICENSE.") for n in shipped) == 3
    for folder in ("sacct", "scaling", "traces"):
        assert f"tests/fixtures/{folder}/SOURCES.md" in shipped, folder


def test_sdist_carries_what_its_tests_read(sdist_files: dict[str, bytes]) -> None:
    for root in ("examples", "tools"):
        for name, data in _tree(REPO_ROOT / root).items():
            assert sdist_files.get(f"{root}/{name}") == data, f"{root}/{name}"


def test_wheel_ships_the_one_deployment_declaration(wheel_files: dict[str, bytes]) -> None:
    # `trainbudget serve` reads deploy/prefect.yaml from the installed package.
    declared = (REPO_ROOT / "deploy" / "prefect.yaml").read_bytes()
    assert wheel_files["trainbudget/deploy/prefect.yaml"] == declared
    assert "trainbudget/flows/deployments.py" in wheel_files

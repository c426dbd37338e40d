"""Shared test setup: fixture locations, a fresh ledger, a CLI runner, Prefect kept offline."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
# Third-party fixtures (traces, sacct, scaling points), kept in the repository; provenance and
# licences in tests/fixtures/*/SOURCES.md.
FIXTURES = REPO_ROOT / "tests" / "fixtures"

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")
# Tests never touch the user's ~/.prefect: a private Prefect home unless CI gives one.
os.environ.setdefault("PREFECT_HOME", tempfile.mkdtemp(prefix="trainbudget-prefect-home-"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests under tests/flows need Prefect's test server, a served deployment or a browser:
    marked `flows`, so `make test-fast` (-m "not slow and not flows") leaves them out."""
    flows = REPO_ROOT / "tests" / "flows"
    for item in items:
        if flows in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.flows)


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built once per session (the packaging and flow-loading tests)."""
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(out), str(REPO_ROOT)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    (built,) = out.glob("trainbudget-*.whl")
    return built


@pytest.fixture
def fixtures_dir() -> Path:
    if not FIXTURES.is_dir():
        pytest.fail(f"test fixtures not found at {FIXTURES}")
    return FIXTURES


@pytest.fixture
def ledger_path(tmp_path: Path) -> Path:
    return tmp_path / "ledger.duckdb"


@pytest.fixture
def ledger(ledger_path: Path):
    from trainbudget.ledger import Ledger

    book = Ledger.open(ledger_path)
    yield book
    book.close()


class CliResult:
    def __init__(self, proc: subprocess.CompletedProcess[str]) -> None:
        self.code = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def json(self):
        import orjson

        return orjson.loads(self.stdout)


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> CliResult:
    """Run `trainbudget ARGS` in a subprocess, as a user would, and capture its output."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-m", "trainbudget", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=600,
    )
    return CliResult(proc)


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture(scope="session")
def prefect_harness():
    """One Prefect test API (temporary database) for the whole session: it takes ~10 s to start."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=180):
        yield

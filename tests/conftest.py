"""Shared test setup: fixture locations, a fresh ledger, a CLI runner, Prefect kept offline."""

from __future__ import annotations

import io
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
    """What one `trainbudget ARGS` run gave: exit code, stdout and stderr as text."""

    def __init__(self, code: int, stdout: str, stderr: str) -> None:
        self.code = code
        self.stdout = stdout
        self.stderr = stderr

    def json(self):
        import orjson

        return orjson.loads(self.stdout)


def run_cli_process(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> CliResult:
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
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


class _Captured(io.TextIOWrapper):
    """A text stream over bytes, as sys.stdout is (`.buffer` takes the JSON bytes); not a tty."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8", newline="", write_through=True)

    def text(self) -> str:
        self.flush()
        return self.buffer.getvalue().decode("utf-8", errors="replace")


def _reset_cli_state() -> None:
    """What one run leaves in this process that the next must not see: the ledger's wait and
    data path (--wait, --ledger-data), rich's stderr console (built for the last run's
    stderr, colour and width), the parsed-plan cache (keyed by a path that may be relative)."""
    from trainbudget.cli import output
    from trainbudget.ledger import location, store
    from trainbudget.plan import load

    store.set_default_wait(store.DEFAULT_WAIT_S)
    location._DATA["path"] = None
    output._CONSOLES.clear()
    load._parsed_plan.cache_clear()


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> CliResult:
    """Run `trainbudget ARGS` in this process, as the console script would (`main(argv)`):
    stdout and stderr captured, `env` and `cwd` applied for the run and restored after it,
    with os.environ, sys.argv, sys.path, the umask, the SIGTERM handler and the CLI's module
    state as they were before.

    For a test whose subject is the process (exit on a signal or a broken pipe, what reaches
    fd 1, environment read at import, the console script), use `cli_process`.
    """
    import signal

    from trainbudget.cli import main

    saved_env, saved_argv, saved_cwd = dict(os.environ), sys.argv, os.getcwd()
    saved_path, saved_sigterm = list(sys.path), signal.getsignal(signal.SIGTERM)
    saved_umask = os.umask(0o022)
    os.umask(saved_umask)
    real_out, real_err = sys.stdout, sys.stderr
    out, err = _Captured(), _Captured()
    os.environ.update(env or {})
    sys.argv = [str(Path(sys.executable).with_name("trainbudget")), *args]
    _reset_cli_state()
    try:
        if cwd is not None:
            os.chdir(cwd)
        sys.stdout, sys.stderr = out, err
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:  # --debug re-raises: the interpreter would print it and exit 1
            import traceback

            traceback.print_exc(file=err)
            code = 1
    finally:
        sys.stdout, sys.stderr = real_out, real_err
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        sys.argv, sys.path[:] = saved_argv, saved_path
        signal.signal(signal.SIGTERM, saved_sigterm)
        os.umask(saved_umask)
        _reset_cli_state()
    return CliResult(code, out.text(), err.text())


@pytest.fixture
def cli():
    """`trainbudget ARGS` run in this process (run_cli): the default for every CLI test."""
    return run_cli


@pytest.fixture
def cli_process():
    """`trainbudget ARGS` run in a subprocess (run_cli_process), for tests of the process."""
    return run_cli_process


@pytest.fixture(scope="session")
def prefect_harness():
    """One Prefect test API (temporary database) for the whole session: it takes ~10 s to start."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=180):
        yield

"""Fixtures for the flow tests: the flow modules, a real Prefect server, served deployments.

The in-process flow tests share the session-scoped `prefect_harness` (tests/conftest.py). The
server tests start `prefect server start` on 127.0.0.1 with a free port and a private home,
then `trainbudget serve --demo` against it, once per session.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import httpx
import pytest

from trainbudget.cli.flows import load_flow_module

SERVER_START_TIMEOUT_S = 240
RUN_TIMEOUT_S = 900


@pytest.fixture(scope="session")
def weekly() -> ModuleType:
    return load_flow_module("weekly_review")


@pytest.fixture(scope="session")
def prelaunch() -> ModuleType:
    return load_flow_module("prelaunch_estimate")


@pytest.fixture(scope="session")
def demo_run() -> ModuleType:
    return load_flow_module("demo_run")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(check, timeout_s: float, what: str, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"{what}: process exited with {proc.returncode}")
        if check():
            return
        time.sleep(1)
    pytest.fail(f"{what}: not ready after {timeout_s} s")


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=30)


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A real Prefect server on 127.0.0.1:<free port>; yields the env that points at it."""
    home = tmp_path_factory.mktemp("prefect-server-home")
    port = _free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = {
        **os.environ,
        "PREFECT_HOME": str(home),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_UI_API_URL": api,
        "PREFECT_API_URL": api,
    }
    log = (home / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1",
         "--port", str(port)],
        env={k: v for k, v in env.items() if k != "PREFECT_API_URL"},
        stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip

    def healthy() -> bool:
        try:
            return httpx.get(f"{api}/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        _wait_for(healthy, SERVER_START_TIMEOUT_S, "prefect server", proc)
        yield {"PREFECT_API_URL": api, "PREFECT_HOME": str(home), "ui": f"http://127.0.0.1:{port}"}
    finally:
        _stop(proc)
        log.close()


@pytest.fixture(scope="session")
def served(
    prefect_server: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """`trainbudget serve --demo` against the real server; yields its working folder."""
    work = tmp_path_factory.mktemp("served")
    env = {**os.environ, **{k: v for k, v in prefect_server.items() if k != "ui"}}
    log = (work / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "trainbudget", "--ledger", str(work / "ledger.duckdb"), "serve",
         "--demo", "--report-root", str(work / "reports")],
        env=env,
        cwd=work,
        stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip

    def deployed() -> bool:
        try:
            response = httpx.post(
                f"{prefect_server['PREFECT_API_URL']}/deployments/filter", json={}, timeout=5
            )
        except httpx.HTTPError:
            return False
        names = {d["name"] for d in response.json()} if response.status_code == 200 else set()
        return {"prelaunch-estimate", "weekly-review"} <= names

    try:
        _wait_for(deployed, SERVER_START_TIMEOUT_S, "trainbudget serve", proc)
        yield work
    finally:
        _stop(proc)
        log.close()


@pytest.fixture(scope="session")
def completed_runs(prefect_server: dict[str, str], served: Path) -> dict[str, object]:
    """Trigger both served deployments through the API and wait for them to finish."""
    from prefect.deployments import run_deployment
    from prefect.settings import PREFECT_API_URL, temporary_settings

    runs = {}
    with temporary_settings(updates={PREFECT_API_URL: prefect_server["PREFECT_API_URL"]}):
        for name in ("prelaunch-estimate/prelaunch-estimate", "weekly-review/weekly-review"):
            runs[name.split("/")[0]] = run_deployment(name, timeout=RUN_TIMEOUT_S, poll_interval=2)
    return runs

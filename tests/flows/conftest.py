"""Fixtures for the flow tests: the flow modules, a real Prefect server, served deployments,
one demo run shown by `trainbudget ui --demo`, and headless Chromium with no network.

The in-process flow tests share the session-scoped `prefect_harness` (tests/conftest.py). The
server tests start `prefect server start` on 127.0.0.1 with a free port and a private home,
then `trainbudget serve --demo` against it, once per session. The UI tests run `trainbudget
demo` once and `trainbudget ui --demo` over its folder, each on free loopback ports.
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
    env["TRAINBUDGET_REPORT_URL"] = f"http://127.0.0.1:{_free_port()}/"
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


# Prefect prints its usage notice only to a terminal, once per Prefect home, outside CI: the
# demo runs with stderr on a pseudo-terminal and none of the switches that would hide it.
_TELEMETRY_SWITCHES = ("DO_NOT_TRACK", "PREFECT_SERVER_ANALYTICS_ENABLED", "CI", "GITHUB_ACTIONS")


def _run_on_a_terminal(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str, str]:
    """Run `args` with stderr on a pseudo-terminal; (exit code, stdout, stderr)."""
    import pty
    import threading

    leader, follower = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(leader, 4096)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    proc = subprocess.Popen(args, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    stdout, _ = proc.communicate(timeout=RUN_TIMEOUT_S)
    reader.join(timeout=10)
    os.close(leader)
    return proc.returncode, stdout.decode(), b"".join(chunks).decode(errors="replace")


@pytest.fixture(scope="session")
def demo_once(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """`trainbudget demo --json` once per session, linking reports at a free loopback port."""
    import orjson

    work = tmp_path_factory.mktemp("demo")
    report_url = f"http://127.0.0.1:{_free_port()}/"
    env = {k: v for k, v in os.environ.items() if k not in _TELEMETRY_SWITCHES}
    env |= {"TRAINBUDGET_REPORT_URL": report_url, "PREFECT_HOME": str(work / "user-home")}
    out = work / "trainbudget-demo"
    args = [sys.executable, "-m", "trainbudget", "demo", "--out", str(out), "--json"]
    code, stdout, stderr = _run_on_a_terminal(args, env, work)
    assert code == 0, stderr
    return {
        "out": out,
        "payload": orjson.loads(stdout),
        "stderr": stderr,
        "report_url": report_url,
    }


@pytest.fixture(scope="session")
def ui_demo(demo_once: dict[str, object]) -> Iterator[dict[str, object]]:
    """`trainbudget ui --demo` over the demo's folder; yields its --json object."""
    import orjson

    out = demo_once["out"]
    env = {**os.environ, "TRAINBUDGET_REPORT_URL": demo_once["report_url"]}
    log = (out.parent / "ui.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "trainbudget", "ui", "--demo", "--report-root", str(out),
         "--port", str(_free_port()), "--json"],
        env=env, stdout=subprocess.PIPE, stderr=log, text=True,
    )  # fmt: skip
    try:
        line = proc.stdout.readline()  # printed once the server answers (or empty: it died)
        if not line:
            proc.wait(timeout=30)
            pytest.fail(f"trainbudget ui exited with {proc.returncode}; see {log.name}")
        yield orjson.loads(line)
    finally:
        _stop(proc)
        log.close()


@pytest.fixture
def chromium_browser() -> Iterator[object]:
    """Debian's headless Chromium driven by Playwright (no browser download), per test: the
    sync API runs an event loop in this thread, and Prefect's sync calls in later tests must
    not find one running."""
    import shutil

    from playwright.sync_api import sync_playwright

    path = shutil.which("chromium")
    if path is None:
        pytest.fail("chromium is not installed (apt-get install -y chromium; see .ci/run)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]


@pytest.fixture
def offline_page(chromium_browser) -> Iterator[tuple[object, list[str]]]:
    """A page with the network cut off except loopback; yields (page, URLs it tried to fetch)."""
    from urllib.parse import urlsplit

    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    refused: list[str] = []

    def only_loopback(route) -> None:
        url = urlsplit(route.request.url)
        if url.scheme in {"file", "data"} or url.hostname in {"127.0.0.1", "localhost"}:
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    context.route("**/*", only_loopback)
    try:
        yield context.new_page(), refused
    finally:
        context.close()

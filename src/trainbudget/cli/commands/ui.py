"""`trainbudget ui`: the Prefect UI on 127.0.0.1 over the demo's (or the configured) Prefect
database, and the run reports over HTTP beside it, so the report links in the UI open."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from trainbudget.cli.help import command
from trainbudget.cli.options import flag_option, json_option, path_option, whole_option

if TYPE_CHECKING:
    import subprocess

DEMO_FOLDER = Path("trainbudget-demo")
DEMO_PREFECT_HOME = ".prefect"
DEFAULT_UI_PORT = 4200
START_TIMEOUT_S = 180
# Usage telemetry stays off in every Prefect process trainbudget starts.
TELEMETRY_OFF = {"PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"}


@command("ui")
@flag_option("--demo", "Show the runs of `trainbudget demo` (its folder's Prefect).")
@whole_option("--port", "Port of the Prefect UI on 127.0.0.1.", "PORT", default=DEFAULT_UI_PORT)
@path_option(
    "--report-root",
    "Run report folders to serve (default trainbudget-reports; with --demo, the demo folder, "
    "trainbudget-demo).",
    "FOLDER",
)
@json_option
def ui(demo: bool, port: int, report_root: Path | None, as_json: bool) -> None:
    """Start the Prefect UI on 127.0.0.1 and serve the run reports over HTTP, so
    a run's report link opens from the UI; runs until Ctrl-C.

    Reports are served at TRAINBUDGET_REPORT_URL (default http://127.0.0.1:4201/),
    the address flow runs link them at.
    """
    import signal
    import subprocess
    import sys
    import tempfile

    from trainbudget.base.errors import EnvironmentFailure, InputError
    from trainbudget.cli.output import emit, stderr_console
    from trainbudget.report.server import report_base_url, serve_report_root

    if not 0 < port < 65536:
        raise InputError(f"--port: must be a port number from 1 to 65535, got {port}")
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"} | TELEMETRY_OFF
    root = report_root or (DEMO_FOLDER if demo else Path("trainbudget-reports"))
    if demo:
        home = root / DEMO_PREFECT_HOME
        if not home.is_dir():
            raise InputError(
                f"--demo: {root} holds no demo runs (no {home}); run `trainbudget demo` first"
            )
        env["PREFECT_HOME"] = str(home.resolve())
        env.pop("PREFECT_API_DATABASE_CONNECTION_URL", None)
    _require_free(port)
    ui_url = f"http://127.0.0.1:{port}"
    env["PREFECT_UI_API_URL"] = f"{ui_url}/api"
    reports, where = serve_report_root(root)
    signal.signal(signal.SIGTERM, _interrupt)  # a service manager's stop: clean up the same way
    log = Path(tempfile.mkstemp(prefix="trainbudget-ui-", suffix=".log")[1])
    stderr_console.print(f"starting the Prefect server on 127.0.0.1:{port} …")
    with log.open("w") as sink:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "prefect",
                "server",
                "start",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_healthy(server, f"{ui_url}/api/health", log)
        payload = {
            "ui_url": ui_url,
            "api_url": f"{ui_url}/api",
            "report_url": report_base_url(),
            "reports_served_here": reports is not None,
            "report_root": str(root.resolve()),
            "prefect_home": env.get("PREFECT_HOME"),
        }

        def render(console):
            console.print(f"Prefect UI: {ui_url}")
            console.print(where, soft_wrap=True)
            console.print("Stop with Ctrl-C.")

        emit(payload, as_json, render)
        code = server.wait()
        raise EnvironmentFailure(f"the Prefect server exited with code {code}; its log: {log}")
    except KeyboardInterrupt:
        stderr_console.print("stopped")
    finally:
        _stop(server)
        if reports is not None:
            reports.shutdown()
    log.unlink(missing_ok=True)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _require_free(port: int) -> None:
    import errno
    import socket

    from trainbudget.base.errors import EnvironmentFailure

    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
            raise EnvironmentFailure(
                f"--port: 127.0.0.1:{port} is in use (a Prefect server already?); "
                "stop it or give another --port"
            ) from None


def _wait_healthy(server: subprocess.Popen, health_url: str, log: Path) -> None:
    import time
    import urllib.request

    from trainbudget.base.errors import EnvironmentFailure

    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise EnvironmentFailure(
                f"the Prefect server exited with code {server.returncode}; its log: {log}"
            )
        try:
            with urllib.request.urlopen(health_url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise EnvironmentFailure(f"the Prefect server did not start in {START_TIMEOUT_S} s; log: {log}")


def _stop(server: subprocess.Popen) -> None:
    import subprocess

    if server.poll() is not None:
        return
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=30)

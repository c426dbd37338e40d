"""`trainbudget ui` refuses before starting anything: no demo runs, a bad port, a port in use."""

from __future__ import annotations

import socket
from pathlib import Path


def test_demo_without_demo_runs_says_to_run_the_demo(cli, tmp_path: Path) -> None:
    result = cli("ui", "--demo", "--report-root", str(tmp_path / "none"), cwd=tmp_path)
    assert result.code == 2
    assert result.stdout == ""
    assert result.stderr.strip() == (
        f"trainbudget: error: --demo: {tmp_path / 'none'} holds no demo runs "
        f"(no {tmp_path / 'none' / '.prefect'}); run `trainbudget demo` first"
    )


def test_a_port_out_of_range_is_a_usage_error(cli, tmp_path: Path) -> None:
    result = cli("ui", "--port", "70000", cwd=tmp_path)
    assert result.code == 2
    assert "--port: must be a port number from 1 to 65535, got 70000" in result.stderr


def test_a_port_in_use_is_an_environment_failure(cli, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = cli("ui", "--port", str(port), "--report-root", str(tmp_path), cwd=tmp_path)
    assert result.code == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert f"--port: 127.0.0.1:{port} is in use" in result.stderr

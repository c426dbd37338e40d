"""cli/app.py builds only the command a run names (start-up); help and errors read as before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from trainbudget.cli import app as cli_app

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-7b.plan.yaml"


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["campaign", "p.yaml", "--json"], "campaign"),
        (["--ledger", "l.duckdb", "--debug", "--wait", "0", "admit", "--json"], "admit"),
        (["--ledger=l.duckdb", "--wait=5", "ledger", "init"], "ledger"),
        (["--debug", "campaing"], "campaing"),
        (["--help"], None),
        (["--version", "campaign"], None),
        (["--ledger", "campaign"], None),  # "campaign" is the ledger's value here
        ([], None),
    ],
)
def test_the_command_is_found_after_the_global_options(
    argv: list[str], command: str | None
) -> None:
    assert cli_app._invoked_command(argv) == command


def test_every_command_is_registered_again_after_a_run() -> None:
    before = [info.name for info in cli_app.app.registered_commands]
    assert cli_app.main(["campaign", "--help"]) == 0
    assert [info.name for info in cli_app.app.registered_commands] == before
    assert "campaign" in before and "estimate" in before and len(before) > 10


def _run(*argv: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TRAINBUDGET_LEDGER": str(tmp_path / "l.duckdb")}
    return subprocess.run(
        [sys.executable, "-m", "trainbudget", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )


def test_global_options_then_the_command(tmp_path: Path) -> None:
    run = _run("--ledger", str(tmp_path / "x.duckdb"), "--debug", "campaign", str(DEMO),
               "--json", tmp_path=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["campaign"] == "demo-7b"


def test_a_mistyped_command_is_still_matched_against_all_of_them(tmp_path: Path) -> None:
    run = _run("campaing", str(DEMO), tmp_path=tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip().endswith("Did you mean 'campaign'?")

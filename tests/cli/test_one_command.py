"""cli/app.py imports only the command a run names (start-up); help and errors read as before."""

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


def test_every_lazy_command_names_a_click_command_of_that_name() -> None:
    import click

    ctx = click.Context(cli_app.app, info_name="trainbudget")
    names = cli_app.app.list_commands(ctx)
    assert names == list(cli_app.COMMANDS)
    for name in names:
        command = cli_app.app.get_command(ctx, name)
        assert isinstance(command, click.Command) and command.name == name


def test_a_run_imports_only_its_own_command_module() -> None:
    probe = (
        "import sys\nfrom trainbudget.cli import main\n"
        "code = main(['gpus', '--json'])\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('trainbudget.cli.commands.'))\n"
        "print('LOADED=' + ','.join(loaded), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-1] == "LOADED=trainbudget.cli.commands.gpus"


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


def test_no_command_prints_the_help_and_exits_2(tmp_path: Path) -> None:
    for argv in ([], ["ledger"]):
        run = _run(*argv, tmp_path=tmp_path)
        assert run.returncode == 2 and run.stderr == ""
        assert run.stdout.startswith(" ".join(["Usage: trainbudget", *argv]))

"""The CLI as a user runs it: help, version, ledger commands, --json, exit codes."""

from __future__ import annotations

from pathlib import Path

import orjson

from trainbudget import __version__

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_help_and_version(cli) -> None:
    result = cli("--help")
    assert result.code == 0
    assert "ledger" in result.stdout
    version = cli("--version")
    assert version.code == 0
    assert version.stdout.strip() == f"trainbudget {__version__}"


def test_ledger_init_and_info_json(cli, tmp_path: Path) -> None:
    path = tmp_path / "sub" / "book.duckdb"
    init = cli("--ledger", str(path), "ledger", "init", "--json")
    assert init.code == 0, init.stderr
    payload = orjson.loads(init.stdout)  # the whole of stdout is one JSON object
    assert payload["ledger"] == str(path)
    assert payload["applied"] and payload["applied"][0] == 1
    again = cli("ledger", "init", "--ledger", str(path), "--json").json()
    assert again["applied"] == []
    info = cli("ledger", "info", "--json", env={"TRAINBUDGET_LEDGER": str(path)}).json()
    tables = {row["table"]: row["rows"] for row in info["tables"]}
    assert tables["schema_version"] == len(payload["applied"])
    assert tables["sources"] == 0


def test_ledger_info_table_for_people(cli, tmp_path: Path) -> None:
    assert cli("ledger", "init", "--ledger", str(tmp_path / "l.duckdb")).code == 0
    result = cli("ledger", "info", "--ledger", str(tmp_path / "l.duckdb"))
    assert result.code == 0
    assert "quarantine" in result.stdout and "schema_version" in result.stdout


def test_usage_error_is_one_line_exit_2(cli) -> None:
    result = cli("ledger", "info", "--no-such-flag")
    assert result.code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "--no-such-flag" in result.stderr
    assert result.stdout == ""

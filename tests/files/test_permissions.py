"""New ledgers and report folders are their owner's (0600 / 0700), or group-readable on request."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from trainbudget.files.permissions import GROUP_UMASK, PRIVATE_UMASK, creation_umask

SCRIPT = """
import os, sys
from pathlib import Path
from trainbudget.ledger import Ledger
from trainbudget.report.write import write_report
from trainbudget.report.model import Report
os.umask(0o022)  # a common login default: world-readable
out = Path(sys.argv[1])
with Ledger.open(out / "ledger.duckdb") as book, book.transaction():
    book.con.execute("CREATE TABLE t AS SELECT 1 AS x")
write_report(Report(title="t", subtitle="", verdicts=[], summary=[], tables=[], charts=[],
                    links={}), out / "reports" / "run")
"""


def _modes(tmp_path: Path, env: dict[str, str]) -> dict[str, int]:
    subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], check=True,
                   env={**os.environ, **env})  # fmt: skip
    return {
        str(p.relative_to(tmp_path)): stat.S_IMODE(p.stat().st_mode) for p in tmp_path.rglob("*")
    }


@pytest.mark.parametrize(("env", "file_mode", "dir_mode"), [
    ({"TRAINBUDGET_SHARED_GROUP": ""}, 0o600, 0o700),
    ({"TRAINBUDGET_SHARED_GROUP": "1"}, 0o640, 0o750),
])  # fmt: skip
def test_created_files_are_not_world_readable(tmp_path, env, file_mode, dir_mode) -> None:
    modes = _modes(tmp_path, env)
    assert modes["ledger.duckdb"] == file_mode
    assert modes["reports"] == dir_mode and modes["reports/run"] == dir_mode
    assert modes["reports/run/report.html"] == file_mode
    assert all(mode & 0o007 == 0 for mode in modes.values()), modes


def test_the_umask_follows_the_environment(monkeypatch) -> None:
    monkeypatch.delenv("TRAINBUDGET_SHARED_GROUP", raising=False)
    assert creation_umask() == PRIVATE_UMASK
    for value in ("1", "yes", "team"):
        monkeypatch.setenv("TRAINBUDGET_SHARED_GROUP", value)
        assert creation_umask() == GROUP_UMASK
    monkeypatch.setenv("TRAINBUDGET_SHARED_GROUP", "0")
    assert creation_umask() == PRIVATE_UMASK


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def test_the_umask_is_restored_when_the_ledger_closes(tmp_path) -> None:
    """In-process runs (a test session, a Prefect worker) keep their own umask afterwards:
    a leaked 077 made a later `mkdir` 0700 (issue 23: /run/munge and munged)."""
    from trainbudget.ledger import Ledger
    from trainbudget.report.model import Report
    from trainbudget.report.write import write_report

    before = os.umask(0o022)
    try:
        outer = Ledger.open(tmp_path / "a.duckdb")
        assert _umask() == 0o077  # held while the ledger is open
        with Ledger.open(tmp_path / "b.duckdb"):  # a second holder, released first
            pass
        assert _umask() == 0o077
        outer.close()
        assert _umask() == 0o022
        outer.close()  # closing twice releases once
        assert _umask() == 0o022
        write_report(Report(title="t", subtitle="", verdicts=[], summary=[], tables=[],
                            charts=[], links={}), tmp_path / "reports" / "run")  # fmt: skip
        assert _umask() == 0o022
        assert stat.S_IMODE((tmp_path / "reports" / "run" / "report.html").stat().st_mode) == 0o600
        (tmp_path / "after").mkdir()
        assert stat.S_IMODE((tmp_path / "after").stat().st_mode) == 0o755
    finally:
        os.umask(before)


def test_a_failed_open_restores_the_umask(tmp_path) -> None:
    from trainbudget.base.errors import InputError
    from trainbudget.ledger import Ledger

    (tmp_path / "not.duckdb").write_text("not a ledger")
    before = os.umask(0o022)
    try:
        with pytest.raises(InputError):
            Ledger.open(tmp_path / "not.duckdb")
        assert _umask() == 0o022
    finally:
        os.umask(before)

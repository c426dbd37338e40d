"""New ledgers and report folders are their owner's (0600 / 0700), or group-readable on request."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from trainbudget.permissions import GROUP_UMASK, PRIVATE_UMASK, creation_umask

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

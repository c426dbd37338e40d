"""ledger/file.py: a size caught between whole blocks (another process's checkpoint) is read
again before the file counts as cut short; a size that stays short is still refused."""

from __future__ import annotations

import threading
from pathlib import Path

import duckdb
import pytest

from trainbudget.base.errors import InputError
from trainbudget.ledger.file import connect


def _ledger(path: Path) -> int:
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE t AS SELECT range AS i FROM range(1000)")
    return path.stat().st_size


def test_a_size_that_settles_within_the_rereads_opens(tmp_path: Path) -> None:
    path = tmp_path / "l.duckdb"
    whole = _ledger(path)
    with path.open("ab") as handle:
        handle.write(b"\0" * 4096)  # headers + blocks + 4 KiB: between whole blocks
    timer = threading.Timer(0.15, lambda: path.open("r+b").truncate(whole))
    timer.start()
    try:
        con = connect(path, read_only=True)
    finally:
        timer.join()
    assert con.execute("SELECT count(*) FROM t").fetchall() == [(1000,)]
    con.close()


def test_a_size_that_stays_short_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "l.duckdb"
    _ledger(path)
    with path.open("ab") as handle:
        handle.write(b"\0" * 4096)
    with pytest.raises(InputError, match="whole blocks"):
        connect(path, read_only=True)

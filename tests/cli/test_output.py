"""Commit, then print (cli/output.py; issue 23, deliverable 4): a command that writes the ledger
commits and closes it before it prints, so a reader that leaves early (`| head -1`) keeps the
landing and ends the command with exit 0, and a slow reader never holds the ledger."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import orjson

from ..reconcile.conftest import HB_FIELDS, HEADER, sacct_line

HB = ["--sacct-delimiter", "☃", "--sacct-format", HB_FIELDS]


def _trainbudget(*args: str) -> list[str]:
    return [sys.executable, "-m", "trainbudget", *args]


def _sacct_rows(ledger: Path) -> list[tuple]:
    with duckdb.connect(str(ledger), read_only=True) as con:
        return sorted(con.execute("SELECT * EXCLUDE (source_id) FROM sacct_rows").fetchall(),
                      key=repr)  # fmt: skip


def test_reconcile_piped_into_head_keeps_the_landing(fixtures_dir: Path, tmp_path: Path) -> None:
    """`trainbudget reconcile --sacct REAL | head -1`: before, exit 1 "stdout: broken pipe" and
    the landing rolled back (sacct_rows 0); now exit 0, no error, every row kept."""
    export = fixtures_dir / "sacct" / "hb-jobinfo_sacct_snowman.txt"
    piped, read_all = tmp_path / "piped.duckdb", tmp_path / "read_all.duckdb"
    command = _trainbudget("--ledger", str(piped), "reconcile", "--sacct", str(export), *HB)
    writer = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = subprocess.Popen(["head", "-1"], stdin=writer.stdout, stdout=subprocess.PIPE)
    writer.stdout.close()  # head holds the only read end: when it exits, the pipe is closed
    first_line, _ = head.communicate(timeout=300)
    _, stderr = writer.communicate(timeout=300)
    assert first_line.strip()
    assert writer.returncode == 0, stderr
    assert b"error" not in stderr and b"broken pipe" not in stderr
    # The same command read to the end lands the same rows: the early close lost nothing.
    whole = subprocess.run(
        _trainbudget("--ledger", str(read_all), "reconcile", "--sacct", str(export), *HB),
        capture_output=True, timeout=300,
    )  # fmt: skip
    assert whole.returncode == 0, whole.stderr
    kept = _sacct_rows(piped)
    # hb-jobinfo: 242 lines, each a job or step row of its own (SOURCES.md).
    assert len(kept) == len(export.read_text(encoding="utf-8").splitlines()) == 242
    assert kept == _sacct_rows(read_all)


def test_reconcile_to_a_pipe_closed_midway_keeps_the_landing(tmp_path: Path) -> None:
    """A reader that takes 1 KB of a 2 MB JSON answer and leaves: the write fails with EPIPE
    after the commit, which is a quiet exit 0, and all 3,000 jobs are in the ledger."""
    export = _big_export(tmp_path, 3000)
    ledger = tmp_path / "l.duckdb"
    read_end, write_end = os.pipe()
    writer = subprocess.Popen(
        _trainbudget("--ledger", str(ledger), "reconcile", "--sacct", str(export), "--json"),
        stdout=write_end, stderr=subprocess.PIPE,
    )  # fmt: skip
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        assert reader.read(1024).startswith(b"{")
    _, stderr = writer.communicate(timeout=300)
    assert writer.returncode == 0, stderr
    assert b"broken pipe" not in stderr
    assert len(_sacct_rows(ledger)) == 3000


def test_a_slow_reader_does_not_hold_the_ledger(tmp_path: Path) -> None:
    """While `reconcile --json` is blocked writing 2 MB into a pipe nobody reads, another
    process opens the ledger for writing and writes; then the reader takes the whole answer."""
    export = _big_export(tmp_path, 3000)
    ledger = tmp_path / "l.duckdb"
    writer = subprocess.Popen(
        _trainbudget("--ledger", str(ledger), "reconcile", "--sacct", str(export), "--json"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        # Printing has begun (os.read: no read-ahead that communicate() would not see).
        start = os.read(writer.stdout.fileno(), 64)
        assert start.startswith(b"{")
        time.sleep(0.5)
        assert writer.poll() is None, "the answer fitted the pipe: the test proves nothing"
        other = subprocess.run(
            [sys.executable, "-c",
             "import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
             "c.execute('CREATE TABLE other_writer AS SELECT 1 AS x'); c.close()", str(ledger)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert other.returncode == 0, other.stderr
        assert writer.poll() is None  # still blocked on stdout: the ledger was not its to hold
        rest, stderr = writer.communicate(timeout=300)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    assert writer.returncode == 0, stderr
    payload = orjson.loads(start + rest)
    assert len(payload["jobs"]) == 3000
    assert payload["totals"]["allocated_gpu_hours"] == 3000 * 8  # 8 GPUs x 1 h each


def _big_export(tmp_path: Path, jobs: int) -> Path:
    """`jobs` one-hour jobs on 8 GPUs in week 2026-W48 (the helper's target format)."""
    path = tmp_path / "big.psv"
    lines = [sacct_line(str(10_000 + i), tres="gres/gpu=8") for i in range(jobs)]
    path.write_text("\n".join([HEADER, *lines]) + "\n", encoding="utf-8")
    return path

"""The team ledger with several writers: processes standing in for machines, on one catalog.

Two reviews of two clusters at once both commit and give the totals of landing the two files
one after the other into a file ledger; one file landed by two processes at once is landed
once; a writer killed with SIGKILL leaves the ledger as before or wholly landed; readers
read while writers write. The expected figures come from the file ledger, the embedded store
whose behaviour tests/ledger/test_store.py pins down.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from trainbudget.ledger import Ledger

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "src" / "trainbudget" / "demo_data"
# Not compared: the migrations' own rows (their applied_at). The per-week caches are compared
# by value, without the landing ids they record (event_source_max: a retried run draws new
# ids from the sequence, as any sequence) and their computed_at.
_NOT_COMPARED = {"schema_version"}
_WEEKS = (
    "SELECT week_start, week_end, allocated_gpu_seconds, allocation_count FROM week_allocations"
)
_SPLITS = "SELECT * EXCLUDE (event_source_max, computed_at) FROM tracked_splits"


def _reconcile_args(ledger: str, week: int, cluster: str) -> list[str]:
    return [
        sys.executable, "-m", "trainbudget", "--ledger", ledger, "reconcile", "--json",
        "--sacct", str(DEMO / "sacct" / f"sacct-2026-W{week}.psv"), "--cluster", cluster,
        "--registry", str(DEMO / "registry.csv"), "--progress", str(DEMO / "progress.jsonl"),
        "--manifest", str(DEMO / "manifest.csv"), "--week", f"2026-W{week}",
    ]  # fmt: skip


def _start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ)
    )


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=900)
    return proc.returncode, out, err


def _contents(location: str) -> dict[str, object]:
    """Every table's row count, and the landed scheduler rows without their source ids."""
    with Ledger.open_existing(location) as book:
        counts = {t: n for t, n in book.table_counts() if t not in _NOT_COMPARED}
        rows = book.con.execute(
            "SELECT cluster, job_id, step, state, elapsed_seconds, gpus FROM sacct_rows "
            "ORDER BY ALL"
        ).fetchall()
        sources = book.con.execute(
            "SELECT kind, source_sha256, status, rows_landed FROM sources ORDER BY ALL"
        ).fetchall()
        weeks = book.con.execute(f"{_WEEKS} ORDER BY ALL").fetchall()
        splits = [
            tuple(tuple(v) if isinstance(v, list) else v for v in row)
            for row in book.con.execute(f"{_SPLITS} ORDER BY ALL").fetchall()
        ]
    return {"counts": counts, "sacct_rows": rows, "sources": sources, "week_allocations": weeks,
            "tracked_splits": splits}  # fmt: skip


def _cached_as_on(team: dict[str, object], file: dict[str, object]) -> None:
    """Every cache row of `team` is the file ledger's row of that week or allocation: nothing
    cached twice and nothing cached short. Which rows exist depends on the commit order (a
    review caches the weeks before its own; a landing removes those its lines reach)."""
    for table in ("week_allocations", "tracked_splits"):
        rows = team[table]
        assert len(set(rows)) == len(rows), f"{table}: a row cached twice"
        assert set(rows) <= set(file[table]), f"{table}: a row the file ledger does not hold"


def test_two_clusters_at_once_equal_one_after_the_other_on_a_file(new_team_ledger, tmp_path):
    team = new_team_ledger()
    runs = [_start(_reconcile_args(team, 45, "alpha")), _start(_reconcile_args(team, 46, "beta"))]
    results = [_finish(p) for p in runs]
    for code, _, err in results:
        assert code == 0, err
    file = str(tmp_path / "sequential.duckdb")
    sequential = []
    for week, cluster in ((45, "alpha"), (46, "beta")):
        done = subprocess.run(_reconcile_args(file, week, cluster), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        sequential.append(json.loads(done.stdout))
    at_once = [json.loads(out) for _, out, _ in results]
    # Each review reads only its own cluster's week, so the order of the commits cannot
    # change it: the totals are those of the sequential runs.
    assert [r["totals"] for r in at_once] == [r["totals"] for r in sequential]
    _cached_as_on(_contents(team), _contents(file))
    # The next week's review on each fills every week before it: then every table is equal.
    for ledger in (team, file):
        done = subprocess.run(_reconcile_args(ledger, 47, "alpha"), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    assert _contents(team) == _contents(file)


def test_one_file_landed_by_two_processes_at_once_is_landed_once(new_team_ledger, tmp_path):
    team = new_team_ledger()
    runs = [_start(_reconcile_args(team, 45, "alpha")) for _ in range(2)]
    results = [_finish(p) for p in runs]
    for code, _, err in results:
        assert code == 0, err
    file = str(tmp_path / "once.duckdb")
    done = subprocess.run(_reconcile_args(file, 45, "alpha"), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert _contents(team) == _contents(file)
    assert [json.loads(out)["totals"] for _, out, _ in results] == [
        json.loads(done.stdout)["totals"]
    ] * 2


def psql(conninfo: str, sql: str) -> str:
    """One SQL command through psql on the catalog database; its output (unaligned)."""
    done = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-d", conninfo, "-c", sql],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.strip()


def _catalog(location: str) -> str:
    return location.removeprefix("ducklake:postgres:")


def _snapshots(location: str) -> int:
    return int(psql(_catalog(location), "SELECT count(*) FROM ducklake_snapshot"))


def _data_files(location: str) -> list[Path]:
    folder = psql(_catalog(location), "SELECT value FROM ducklake_metadata WHERE key = 'data_path'")
    return list(Path(folder).rglob("*.parquet"))


def _kill_when(args: list[str], reached, *, timeout_s: float = 600) -> bool:
    """Start the writer, SIGKILL it as soon as `reached()` holds; whether it was reached
    before the writer ended by itself."""
    proc = _start(args)
    deadline = time.monotonic() + timeout_s
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            if reached():
                proc.send_signal(signal.SIGKILL)
                return True
            time.sleep(0.02)
        return False
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=60)


class _CommitBlocked:
    """A PostgreSQL session holding ducklake_snapshot in EXCLUSIVE mode: readers go on, a
    commit (which inserts its snapshot row) waits; `waiting()` says a writer is waiting."""

    def __init__(self, location: str) -> None:
        self.catalog = _catalog(location)
        self.session = subprocess.Popen(
            ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", self.catalog],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self.session.stdin and self.session.stdout
        self.session.stdin.write(
            "BEGIN; LOCK TABLE ducklake_snapshot IN EXCLUSIVE MODE; SELECT 'locked';\n"
        )
        self.session.stdin.flush()
        assert self.session.stdout.readline().strip() == "locked"

    def waiting(self) -> bool:
        return psql(self.catalog, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
                    "'Lock' AND datname = current_database()") != "0"  # fmt: skip

    def release(self) -> None:
        assert self.session.stdin
        self.session.stdin.write("ROLLBACK;\n")
        self.session.stdin.close()
        self.session.wait(timeout=60)


def test_a_writer_killed_at_each_point_leaves_the_ledger_before_or_wholly_landed(
    new_team_ledger, tmp_path
):
    """SIGKILL chosen from the writer's progress: once its first Parquet file is written (the
    landing under way), while its commit waits on the catalog (held by a lock, so the kill
    lands inside the commit), and once its snapshot is in the catalog (committed, output not
    yet all written). Before the commit the ledger is as before; after it, wholly landed."""
    team = new_team_ledger()
    before = _contents(team)
    file = str(tmp_path / "whole.duckdb")
    done = subprocess.run(_reconcile_args(file, 47, "alpha"), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    whole = _contents(file)
    args = _reconcile_args(team, 47, "alpha")

    files = len(_data_files(team))
    assert _kill_when(args, lambda: len(_data_files(team)) > files), "no Parquet file written"
    assert _contents(team) == before, "killed while landing: a partial landing"

    blocked = _CommitBlocked(team)
    try:
        assert _kill_when(args, blocked.waiting), "the commit never waited on the catalog"
    finally:
        blocked.release()
    assert _contents(team) == before, "killed inside the commit: a partial landing"

    snapshots = _snapshots(team)
    if _kill_when(args, lambda: _snapshots(team) > snapshots):
        assert _contents(team) == whole, "killed after the commit: not wholly landed"
    assert _contents(team) == whole  # landed whole, killed or not

    rerun = subprocess.run(args, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["totals"] == json.loads(done.stdout)["totals"]
    assert _contents(team) == whole


# The landed tables a reader's counts are checked on (the caches depend on the commit order).
_LANDED = ("manifest", "progress_events", "quarantine", "registry", "sacct_rows", "sources")


def _landed_counts(tables: list[dict[str, object]]) -> tuple[object, ...]:
    counts = {t["table"]: t["rows"] for t in tables}
    return tuple(counts[name] for name in _LANDED)


def _info(ledger: str) -> tuple[object, ...]:
    read = subprocess.run(
        [sys.executable, "-m", "trainbudget", "--ledger", ledger, "ledger", "info", "--json"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert read.returncode == 0, read.stderr
    return _landed_counts(json.loads(read.stdout)["tables"])


def test_readers_read_while_two_writers_write(new_team_ledger, tmp_path):
    """`ledger info` and `decisions` succeed beside two writers, and every info shows the
    ledger as one of the states the two runs can leave it in: neither landed, one, or both
    (those states taken from file ledgers landed in that order), never a run half landed."""
    states = {_info(new_team_ledger())}
    for name, runs in (("a", [(45, "alpha")]), ("b", [(46, "beta")]),
                       ("ab", [(45, "alpha"), (46, "beta")])):  # fmt: skip
        file = str(tmp_path / f"{name}.duckdb")
        for week, cluster in runs:
            done = subprocess.run(_reconcile_args(file, week, cluster), capture_output=True)
            assert done.returncode == 0, done.stderr
        states.add(_info(file))
    team = new_team_ledger()
    writers = [
        _start(_reconcile_args(team, 45, "alpha")),
        _start(_reconcile_args(team, 46, "beta")),
    ]
    seen = []
    while any(w.poll() is None for w in writers):
        seen.append(_info(team))
        read = subprocess.run(
            [sys.executable, "-m", "trainbudget", "--ledger", team, "decisions", "--json"],
            capture_output=True, text=True,
        )  # fmt: skip
        assert read.returncode == 0, read.stderr
        assert json.loads(read.stdout)["count"] == 0  # neither run decides anything
    for writer in writers:
        code, _, err = _finish(writer)
        assert code == 0, err
    seen.append(_info(team))
    assert len(seen) >= 2
    assert set(seen) <= states, f"a reader saw a half-landed run: {set(seen) - states}"
    assert seen[-1] == _info(str(tmp_path / "ab.duckdb"))

"""The per-week caches a review fills (week_allocations, tracked_splits) under two writers at
once on the team ledger, each interleaving written out in one process with two connections.

Snapshot isolation lets two transactions commit when neither changed what the other changed,
even when one read what the other wrote: a review caching a week from a snapshot without a
concurrent landing's lines of that week (the landing found no cached row to remove) would
leave that week's cached GPU-seconds short for every later review; two reviews each storing a
split for one allocation (neither saw a row to replace) would leave it twice, and the next
review would read that allocation twice. The claims make the second commit conflict (and the
command retries it whole), so the caches end as one run after the other leaves them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest

from trainbudget.base.errors import LedgerConflict
from trainbudget.ledger import Ledger
from trainbudget.reconcile.history import allocated_by_week
from trainbudget.reconcile.land import land_progress, land_registry, land_sacct
from trainbudget.reconcile.review import review

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "src" / "trainbudget" / "demo_data"
W44 = datetime(2026, 10, 26, tzinfo=UTC)
W45 = datetime(2026, 11, 2, tzinfo=UTC)
W46 = datetime(2026, 11, 9, tzinfo=UTC)
HEADER = (DEMO / "sacct" / "sacct-2026-W45.psv").read_text().splitlines()[0]
TRES = "billing=64,cpu=64,gres/gpu:a100=8,gres/gpu=8,mem=512G,node=1"
# One 8-GPU job of cluster beta from Wed 2026-10-28 00:00 for one day: 8 × 86,400 GPU-s in W44.
BETA_W44 = (
    f"3001|3001|beta-job|lm-team|gpu|COMPLETED|0:0|1-00:00:00|86400|2026-10-27T23:00:00|"
    f"2026-10-28T00:00:00|2026-10-29T00:00:00|{TRES}|{TRES}|1|64|"
)


def _beta_file(tmp_path: Path) -> Path:
    path = tmp_path / "beta-w44.psv"
    path.write_text(f"{HEADER}\n{BETA_W44}\n")
    return path


@contextmanager
def _open_transaction(book: Ledger) -> Iterator[ExitStack]:
    """A transaction on `book` that the test commits (stack.close()) when it chooses."""
    stack = ExitStack()
    stack.enter_context(book.transaction())
    yield stack


def _weeks(book: Ledger) -> list[tuple]:
    return book.con.execute(
        "SELECT week_start, week_end, allocated_gpu_seconds FROM week_allocations ORDER BY ALL"
    ).fetchall()


def test_a_week_cached_beside_a_landing_of_it_conflicts(new_team_ledger, tmp_path):
    team = new_team_ledger()
    alpha = DEMO / "sacct" / "sacct-2026-W45.psv"
    with Ledger.open(team) as book, book.transaction():
        land_sacct(book, _beta_file(tmp_path), cluster="beta")
    with (
        Ledger.open(team) as a,
        Ledger.open(team) as b,
        _open_transaction(a) as landing,
        _open_transaction(b) as caching,
    ):
        land_sacct(a, alpha, cluster="alpha")  # lines in W45; no cached week to remove
        allocated_by_week(b, W46, "UTC")  # caches W44 and W45 from b's snapshot
        landing.close()  # a commits first
        with pytest.raises(LedgerConflict):
            caching.close()
    # The retried review reads alpha's lines: both weeks as one run after the other caches them.
    with Ledger.open(team) as b, b.transaction():
        by_week = allocated_by_week(b, W46, "UTC")
    with Ledger.open(tmp_path / "sequential.duckdb") as file:
        with file.transaction():
            land_sacct(file, _beta_file(tmp_path), cluster="beta")
        with file.transaction():
            land_sacct(file, alpha, cluster="alpha")
        with file.transaction():
            assert allocated_by_week(file, W46, "UTC") == by_week
        expected = _weeks(file)
    assert by_week[(W44, W45)] == 8 * 86_400
    with Ledger.open(team) as book:
        assert _weeks(book) == expected


def test_one_split_stored_by_two_reviews_at_once_conflicts(new_team_ledger):
    team = new_team_ledger()
    with Ledger.open(team) as book, book.transaction():
        land_sacct(book, DEMO / "sacct" / "sacct-2026-W45.psv", cluster="alpha")
        land_registry(book, DEMO / "registry.csv")
        land_progress(book, DEMO / "progress.jsonl")
    week = (W45, W46)
    with (
        Ledger.open(team) as a,
        Ledger.open(team) as b,
        _open_transaction(a) as first,
        _open_transaction(b) as second,
    ):
        once = review(a, None, week).totals
        assert review(b, None, week).totals == once
        first.close()
        with pytest.raises(LedgerConflict):
            second.close()
    with Ledger.open(team) as book:
        ((rows, allocations),) = book.con.execute(
            "SELECT count(*), count(DISTINCT (cluster, job_id, start_s)) FROM tracked_splits"
        ).fetchall()
        assert rows == allocations > 0
        with book.transaction():
            assert review(book, None, week).totals == once


def _copies(book: Ledger) -> list[tuple]:
    return book.con.execute(
        "SELECT cluster, job_id, step, source_line FROM tracked_lines ORDER BY ALL"
    ).fetchall()


def test_a_file_and_its_names_landed_by_two_reviews_at_once_conflict(new_team_ledger, tmp_path):
    """Run a lands a sacct file and reviews (no names yet: it copies nothing and records the
    file matched); run b lands the registry and progress and reviews (the file is not in its
    snapshot: it copies nothing and records the names matched). Both committing would leave
    the file's named jobs uncopied for good; the claim on tracked:lines makes b retry."""
    team = new_team_ledger()
    alpha = DEMO / "sacct" / "sacct-2026-W45.psv"
    week = (W45, W46)
    with Ledger.open(team) as book, book.transaction():
        land_sacct(book, _beta_file(tmp_path), cluster="beta")  # so W45 is not everything
        review(book, None, week)  # W44 cached now: neither run below claims a week for it
    with (
        Ledger.open(team) as a,
        Ledger.open(team) as b,
        _open_transaction(a) as first,
        _open_transaction(b) as second,
    ):
        land_sacct(a, alpha, cluster="alpha")
        review(a, None, week)
        land_registry(b, DEMO / "registry.csv")
        land_progress(b, DEMO / "progress.jsonl")
        review(b, None, week)
        first.close()
        with pytest.raises(LedgerConflict):
            second.close()
    with Ledger.open(team) as b, b.transaction():  # b retried
        land_registry(b, DEMO / "registry.csv")
        land_progress(b, DEMO / "progress.jsonl")
        retried = review(b, None, week).totals
    with Ledger.open(tmp_path / "sequential.duckdb") as file:
        with file.transaction():
            land_sacct(file, _beta_file(tmp_path), cluster="beta")
            review(file, None, week)
        with file.transaction():
            land_sacct(file, alpha, cluster="alpha")
            review(file, None, week)
        with file.transaction():
            land_registry(file, DEMO / "registry.csv")
            land_progress(file, DEMO / "progress.jsonl")
            assert review(file, None, week).totals == retried
        expected = _copies(file)
    assert expected  # the demo's registry names W45's jobs
    with Ledger.open(team) as book:
        assert _copies(book) == expected

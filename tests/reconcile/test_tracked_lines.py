"""The tracked jobs' lines kept apart (tracked_lines, migration 019; reconcile/tracked_lines.py).

Worked by hand: 2026-W47 lands 201 (4 GPUs × 3 h, with its batch step), the array task 300_1
(2 GPUs × 1 h, JobIDRaw 305), the untracked 601 (8 × 2 h) and, from W46, 501 (1 × 1 h: so
the W47 review reads some weeks, not everything, and matches W47's file against no names),
with no registry. W48's run
lands 701 (8 × 1 h) and a registry naming 201 (main) and 300 (evaluation: the array job).
The W48 review must copy 201's two lines and 300_1's line, which landed a week before the
names, and count them: to the end of W48 main 12 GPU-hours, evaluation 2, untracked 1 + 16 + 8.
A W49 re-export of 201 (same submit, now 4 h) replaces its lines and their copies.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from trainbudget.ledger import Ledger
from trainbudget.reconcile.tracked_lines import name_bounds
from trainbudget.weekly import WeeklyInputs, reconcile

from .conftest import HEADER, sacct_line

REPO = Path(__file__).resolve().parents[2]
PLAN = REPO / "examples" / "demo-7b.plan.yaml"


def _job(job_id: str, gpus: int, start: str, seconds: int, raw: str | None = None) -> str:
    from datetime import datetime, timedelta

    end = (datetime.fromisoformat(start) + timedelta(seconds=seconds)).isoformat()
    return sacct_line(job_id, raw=raw, submit=start, start=start, end=end,
                      elapsed_raw=str(seconds), elapsed="",
                      tres=f"billing=1,cpu=8,gres/gpu={gpus},node=1")  # fmt: skip


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join([HEADER, *lines]) + "\n", encoding="utf-8")
    return path


def _actual(result) -> dict[str, object]:
    return {r["work_class"]: r["actual_gpu_hours"] for r in result.review.variance["by_work_class"]
            if r["actual_gpu_hours"]}  # fmt: skip


def _w47_w48(folder: Path) -> tuple[Path, Path]:
    """The sacct files of W47 and W48 worked above."""
    w47 = _write(folder / "w47.psv", [
        _job("201", 4, "2026-11-17T10:00:00", 10800),
        _job("201.batch", 4, "2026-11-17T10:00:00", 10800),
        _job("300_1", 2, "2026-11-18T10:00:00", 3600, raw="305"),
        _job("601", 8, "2026-11-19T10:00:00", 7200),
        _job("501", 1, "2026-11-12T10:00:00", 3600),
    ])  # fmt: skip
    return w47, _write(folder / "w48.psv", [_job("701", 8, "2026-11-24T10:00:00", 3600)])


def _copies(book: Ledger) -> list[tuple]:
    return book.con.execute(
        "SELECT job_id, step, elapsed_seconds FROM tracked_lines ORDER BY ALL NULLS FIRST"
    ).fetchall()


def test_names_landed_later_copy_the_earlier_lines_and_a_replacement_replaces_them(
    tmp_path: Path,
) -> None:
    w47, w48 = _w47_w48(tmp_path)
    registry = tmp_path / "registry.csv"
    registry.write_text(
        "job_id,experiment_id,work_class\n201,exp-main,main\n300,exp-main,evaluation\n",
        encoding="utf-8",
    )
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        reconcile(book, WeeklyInputs(sacct=[w47], plan=PLAN, week="2026-W47"), None)
        assert _copies(book) == []  # nothing named yet
        assert book.con.execute("SELECT count(*) FROM tracked_sources").fetchone()[0] == 1
        second = reconcile(
            book, WeeklyInputs(sacct=[w48], registry=registry, plan=PLAN, week="2026-W48"), None
        )
        assert _copies(book) == [("201", None, 10800), ("201", "batch", 10800),
                                 ("300_1", None, 3600)]  # fmt: skip
        assert _actual(second) == {"main": 12, "evaluation": 2, "untracked": 1 + 16 + 8}
        # As a ledger migrated from 018 with lines: nothing matched yet, the next review
        # matches every name and line once, and reads the same.
        for table in ("tracked_lines", "tracked_names", "tracked_sources"):
            book.con.execute(f"DELETE FROM {table}")
        again = reconcile(book, WeeklyInputs(plan=PLAN, week="2026-W48"), None)
        assert _actual(again) == _actual(second)
        assert len(_copies(book)) == 3
        # Matched once: the next review finds nothing new to match (the two sacct files and
        # the registry recorded: its names are not read again).
        assert book.con.execute("SELECT count(*) FROM tracked_sources").fetchone()[0] == 3
        assert sorted(book.con.execute("SELECT job_id FROM tracked_names").fetchall()) == [
            ("201",),
            ("300",),
        ]
        w49 = _write(tmp_path / "w49.psv", [
            _job("201", 4, "2026-11-17T10:00:00", 14400),
            _job("201.batch", 4, "2026-11-17T10:00:00", 14400),
            _job("801", 1, "2026-12-01T10:00:00", 3600),
        ])  # fmt: skip
        third = reconcile(book, WeeklyInputs(sacct=[w49], plan=PLAN, week="2026-W49"), None)
        assert _copies(book) == [("201", None, 14400), ("201", "batch", 14400),
                                 ("300_1", None, 3600)]  # fmt: skip
        assert _actual(third) == {"main": 16, "evaluation": 2, "untracked": 1 + 16 + 8 + 1}


def test_a_name_from_progress_events_only_is_matched_once(tmp_path: Path) -> None:
    """201 (W47) is named by no registry row, only by progress events landed with W48: the
    W48 review copies its two lines (W47's file, matched against no names before; 300_1 is
    named by nothing). The progress file is recorded as matched (with the two sacct files).
    A ledger that recorded only sacct files (before 2026-12-06) reads it once more: the W49
    review, landing nothing new, records it again and leaves the copies and names as they are.
    """
    w47, w48 = _w47_w48(tmp_path)
    progress = tmp_path / "w48.jsonl"
    progress.write_text(
        '{"job_id": "201", "time": "2026-11-17T10:00:00Z", "event": "start"}\n'
        '{"job_id": "201", "time": "2026-11-17T13:00:00Z", "event": "end"}\n',
        encoding="utf-8",
    )
    count = "SELECT count(*) FROM tracked_sources"
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        reconcile(book, WeeklyInputs(sacct=[w47], plan=PLAN, week="2026-W47"), None)
        reconcile(
            book, WeeklyInputs(sacct=[w48], progress=progress, plan=PLAN, week="2026-W48"), None
        )
        assert _copies(book) == [("201", None, 10800), ("201", "batch", 10800)]
        assert book.con.execute("SELECT job_id FROM tracked_names").fetchall() == [("201",)]
        assert book.con.execute(count).fetchone()[0] == 3
        book.con.execute(
            "DELETE FROM tracked_sources WHERE source_id IN "
            "(SELECT source_id FROM sources WHERE kind <> 'sacct')"
        )
        assert book.con.execute(count).fetchone()[0] == 2
        reconcile(book, WeeklyInputs(plan=PLAN, week="2026-W49"), None)
        assert _copies(book) == [("201", None, 10800), ("201", "batch", 10800)]
        assert book.con.execute("SELECT job_id FROM tracked_names").fetchall() == [("201",)]
        assert book.con.execute(count).fetchone()[0] == 3


def test_the_copies_read_as_the_lines_do(tmp_path: Path) -> None:
    """tracked_lines has sacct_rows' columns and tracked_records is sacct_records over it: a
    later migration that changes one must change the other."""
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        columns = "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? ORDER BY column_index"  # noqa: E501
        assert (
            book.con.execute(columns, ["tracked_lines"]).fetchall()
            == book.con.execute(columns, ["sacct_rows"]).fetchall()
        )
        assert (
            book.con.execute(columns, ["tracked_records"]).fetchall()
            == book.con.execute(columns, ["sacct_records"]).fetchall()
        )
        views = dict(book.con.execute(
            "SELECT view_name, sql FROM duckdb_views() WHERE view_name IN "
            "('sacct_records', 'tracked_records')"
        ).fetchall())  # fmt: skip
        assert views["tracked_records"].replace("tracked_records", "sacct_records").replace(
            "tracked_lines", "sacct_rows"
        ) == views["sacct_records"].replace("CREATE OR REPLACE VIEW", "CREATE VIEW")


_ids = st.text(alphabet=st.sampled_from("019_+a\ud7ff\U0010ffff"), max_size=6)


@given(names=st.lists(_ids, min_size=1, max_size=5), pick=st.integers(0, 4), tail=_ids)
def test_name_bounds_hold_every_id_a_name_links(names: list[str], pick: int, tail: str) -> None:
    """Every job id equal to a name or starting with one (12_3 of 12) lies in [lo, hi)."""
    lo, hi = name_bounds(names)
    linked = names[pick % len(names)] + tail
    assert lo <= linked
    assert hi is None or linked < hi
    if hi is not None:
        hi.encode("utf-8")  # a string DuckDB can take (no surrogate)
    if all(n.rstrip("\U0010ffff") for n in names):
        assert hi is not None


def test_no_names_bound_nothing() -> None:
    assert name_bounds([]) == ("", "")

"""A review reads its weeks' jobs; the campaign to date still counts every earlier job.

Two weeks landed in two runs: 2026-W47 (untracked 601: 8 GPUs × 2 h; 602: 4 × 1 h; tracked
201: 4 × 3 h, main) and 2026-W48 (untracked 701: 8 × 1 h), with 603 running 2 GPUs from
Sunday 23:00 of W47 to Monday 01:00 of W48. Worked by hand: W48 allocates 8 + 2 = 10 GPU-hours;
to the end of W48 untracked has 16 + 4 + 4 + 8 = 32 and main 12.
"""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import pytest

from trainbudget.ledger import Ledger
from trainbudget.reconcile.land import land_sacct
from trainbudget.weekly import WeeklyInputs, reconcile

from .conftest import HEADER, sacct_line

REPO = Path(__file__).resolve().parents[2]
PLAN = REPO / "examples" / "demo-7b.plan.yaml"


def _job(job_id: str, gpus: int, start: str, seconds: int) -> str:
    from datetime import datetime, timedelta

    end = (datetime.fromisoformat(start) + timedelta(seconds=seconds)).isoformat()
    return sacct_line(job_id, submit=start, start=start, end=end, elapsed_raw=str(seconds),
                      elapsed="", tres=f"billing=1,cpu=8,gres/gpu={gpus},node=1")  # fmt: skip


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join([HEADER, *lines]) + "\n", encoding="utf-8")
    return path


def _rows(book: Ledger, sql: str) -> list[tuple]:
    return book.con.execute(sql).fetchall()


def _actual(result) -> dict[str, object]:
    return {r["work_class"]: r["actual_gpu_hours"] for r in result.review.variance["by_work_class"]
            if r["actual_gpu_hours"]}  # fmt: skip


def test_a_later_week_reads_its_jobs_and_counts_the_earlier_ones(tmp_path: Path) -> None:
    w47 = _write(tmp_path / "w47.psv", [
        _job("601", 8, "2026-11-17T10:00:00", 7200), _job("602", 4, "2026-11-18T10:00:00", 3600),
        _job("201", 4, "2026-11-19T10:00:00", 10800),
        _job("603", 2, "2026-11-22T23:00:00", 7200),
    ])  # fmt: skip
    w48 = _write(tmp_path / "w48.psv", [_job("701", 8, "2026-11-24T10:00:00", 3600)])
    registry = tmp_path / "registry.csv"
    registry.write_text("job_id,experiment_id,work_class\n201,exp-main,main\n", encoding="utf-8")
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        first = reconcile(book, WeeklyInputs(sacct=[w47], registry=registry, plan=PLAN), None)
        # Without --week: the weeks the file covers (603 starts in W47), not the history.
        assert first.week == "2026-W47" and first.review.totals["jobs"] == 4
        assert _actual(first) == {"main": 12, "untracked": 16 + 4 + 2}
        second = reconcile(book, WeeklyInputs(sacct=[w48], plan=PLAN, week="2026-W48"), None)
        jobs = _rows(book, "SELECT job_id FROM job_accounting WHERE in_week ORDER BY job_id")
        read = _rows(book, "SELECT DISTINCT job_id FROM review_rows ORDER BY job_id")
        cached = _rows(book, "SELECT week_start, allocated_gpu_seconds FROM week_allocations")
    assert second.review.totals["allocated_gpu_hours"] == 8 + 2
    assert jobs == [("603",), ("701",)]
    # 601 and 602 ran only in W47 and are untracked: not read, counted from week_allocations.
    assert read == [("201",), ("603",), ("701",)]
    assert [(str(start.date()), seconds) for start, seconds in cached] == [
        ("2026-11-16", (16 + 4 + 12 + 2) * 3600)
    ]
    assert _actual(second) == {"main": 12, "untracked": 32}


def test_a_landing_drops_the_cached_weeks_it_touches(tmp_path: Path) -> None:
    w47 = _write(tmp_path / "w47.psv", [_job("601", 8, "2026-11-17T10:00:00", 7200)])
    w48 = _write(tmp_path / "w48.psv", [_job("701", 8, "2026-11-24T10:00:00", 3600)])
    # 601 again, now 3 h long (a later export of the same job replaces the earlier row).
    again = _write(tmp_path / "w47b.psv", [_job("601", 8, "2026-11-17T10:00:00", 10800)])
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        reconcile(book, WeeklyInputs(sacct=[w47, w48], week="2026-W48", plan=PLAN), None)
        assert _rows(book, "SELECT allocated_gpu_seconds FROM week_allocations") == [(16 * 3600,)]
        with book.transaction():
            land_sacct(book, again)
        assert _rows(book, "SELECT count(*) FROM week_allocations") == [(0,)]
        result = reconcile(book, WeeklyInputs(sacct=[], week="2026-W48", plan=PLAN), None)
        assert _rows(book, "SELECT allocated_gpu_seconds FROM week_allocations") == [(24 * 3600,)]
    assert _actual(result) == {"unknown": 24 + 8}


def _steps(job_id: str) -> list[str]:
    """Two steps from Tue 17 Nov 10:00 (W47): .batch 4 GPUs × 1 h and .0 2 GPUs × 2 h."""
    return [
        sacct_line(f"{job_id}.batch", raw=f"{job_id}.batch", submit="2026-11-17T10:00:00",
                   start="2026-11-17T10:00:00", end="2026-11-17T11:00:00", elapsed_raw="3600",
                   tres="cpu=8,gres/gpu=4,node=1"),
        sacct_line(f"{job_id}.0", raw=f"{job_id}.0", submit="2026-11-17T10:00:00",
                   start="2026-11-17T10:00:00", end="2026-11-17T12:00:00", elapsed_raw="7200",
                   tres="cpu=8,gres/gpu=2,node=1"),
    ]  # fmt: skip


def test_an_earlier_steps_only_job_counts_as_its_built_allocation(tmp_path: Path) -> None:
    # 801 exported without its allocation line: .batch 4 GPUs × 1 h, .0 2 GPUs × 2 h, so it
    # is built as 4 GPUs × 2 h (the most GPUs, the longest elapsed) = 8 GPU-hours in W47.
    steps = _steps("801")
    w47 = _write(tmp_path / "w47.psv", [*steps, _job("601", 8, "2026-11-18T10:00:00", 3600)])
    w48 = _write(tmp_path / "w48.psv", [_job("701", 8, "2026-11-24T10:00:00", 3600)])
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        reconcile(book, WeeklyInputs(sacct=[w47], week="2026-W47", plan=PLAN), None)
        result = reconcile(book, WeeklyInputs(sacct=[w48], week="2026-W48", plan=PLAN), None)
        cached = _rows(book, "SELECT allocated_gpu_seconds, allocation_count FROM week_allocations")
    assert cached == [((8 + 8) * 3600, 2)]
    assert _actual(result) == {"unknown": 8 + 8 + 8}


def test_an_earlier_job_with_its_allocation_and_step_lines_counts_once(tmp_path: Path) -> None:
    # 802 exported whole: its allocation line 4 GPUs × 2 h and its steps .batch (4 × 1 h) and
    # .0 (2 × 2 h). Only the allocation line counts: 8 GPU-hours in W47, not 8 + a built 8.
    whole = [_job("802", 4, "2026-11-17T10:00:00", 7200), *_steps("802")]
    w47 = _write(tmp_path / "w47.psv", whole)
    w48 = _write(tmp_path / "w48.psv", [_job("701", 8, "2026-11-24T10:00:00", 3600)])
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        reconcile(book, WeeklyInputs(sacct=[w47], week="2026-W47", plan=PLAN), None)
        result = reconcile(book, WeeklyInputs(sacct=[w48], week="2026-W48", plan=PLAN), None)
        cached = _rows(book, "SELECT allocated_gpu_seconds, allocation_count FROM week_allocations")
    assert cached == [(4 * 2 * 3600, 1)]
    assert _actual(result) == {"unknown": 8 + 8}


def test_a_line_that_ran_past_its_end_counts_in_every_week_it_ran(tmp_path: Path) -> None:
    # 604 prints End 21:00 on Sunday of W47 but Start 20:00 + Elapsed 10 h: it ran (by the
    # accounting's start + elapsed) 4 h in W47 and 6 h in W48, 9 h past its End. The review's
    # scans skip lines by when they stopped running (run_end_time, migration 018), not by End.
    ran_on = sacct_line("604", submit="2026-11-22T20:00:00", start="2026-11-22T20:00:00",
                        end="2026-11-22T21:00:00", elapsed_raw="36000", elapsed="",
                        tres="billing=1,cpu=8,gres/gpu=2,node=1")  # fmt: skip
    w47 = _write(tmp_path / "w47.psv", [ran_on])
    w48 = _write(tmp_path / "w48.psv", [_job("701", 8, "2026-11-24T10:00:00", 3600)])
    w49 = _write(tmp_path / "w49.psv", [_job("801", 1, "2026-12-01T10:00:00", 3600)])
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        first = reconcile(book, WeeklyInputs(sacct=[w47], week="2026-W47", plan=PLAN), None)
        second = reconcile(book, WeeklyInputs(sacct=[w48], week="2026-W48", plan=PLAN), None)
        third = reconcile(book, WeeklyInputs(sacct=[w49], week="2026-W49", plan=PLAN), None)
        cached = _rows(book, "SELECT week_start, allocated_gpu_seconds FROM week_allocations"
                             " ORDER BY week_start")  # fmt: skip
    assert first.review.totals["allocated_gpu_hours"] == 2 * 4
    assert second.review.totals["allocated_gpu_hours"] == 2 * 6 + 8
    assert third.review.totals["allocated_gpu_hours"] == 1
    # W48's cached row (filled by W49's review) holds 604's six hours too.
    assert [(str(start.date()), seconds) for start, seconds in cached] == [
        ("2026-11-16", 2 * 4 * 3600), ("2026-11-23", (2 * 6 + 8) * 3600)
    ]  # fmt: skip
    assert _actual(third) == {"unknown": 2 * 10 + 8 + 1}


def test_migration_018_gives_the_lines_landed_before_it_their_run_end(tmp_path: Path) -> None:
    # Start (else Submit) + Elapsed, whatever End says: 604 9 h past its End, 605 still
    # running (no End, 1 h so far), 606 pending (no Start: its submit time, 0 s).
    late = sacct_line("604", submit="2026-11-22T20:00:00", start="2026-11-22T20:00:00",
                      end="2026-11-22T21:00:00", elapsed_raw="36000", elapsed="")  # fmt: skip
    running = sacct_line("605", "RUNNING", submit="2026-11-24T09:00:00",
                         start="2026-11-24T09:00:00", end="Unknown")  # fmt: skip
    pending = sacct_line("606", "PENDING", submit="2026-11-25T09:00:00", start="Unknown",
                         end="Unknown", elapsed_raw="0", elapsed="00:00:00")  # fmt: skip
    path = tmp_path / "ledger.duckdb"
    with Ledger.open(path) as book:
        land_sacct(book, _write(tmp_path / "one.psv", [late, running, pending]))
        landed = _rows(book, "SELECT job_id, run_end_time FROM sacct_rows ORDER BY 1")
        book.con.execute("ALTER TABLE sacct_rows DROP COLUMN run_end_time; "
                         "DELETE FROM schema_version WHERE version = 18")  # fmt: skip
    with Ledger.open(path, migrate=False) as book:  # a ledger of release 017, upgraded
        assert book.migrate() == [18]
        backfilled = _rows(book, "SELECT job_id, run_end_time FROM sacct_rows ORDER BY 1")
    expected = [("604", "2026-11-23T06:00:00"), ("605", "2026-11-24T10:00:00"),
                ("606", "2026-11-25T09:00:00")]  # fmt: skip
    assert [(job, end.astimezone(UTC).isoformat()[:19]) for job, end in landed] == expected
    assert backfilled == landed


def _ran(job_id: str, gpus: int, submit: str, start: str, seconds: int) -> str:
    from datetime import datetime, timedelta

    end = (datetime.fromisoformat(start) + timedelta(seconds=seconds)).isoformat()
    return sacct_line(job_id, submit=submit, start=start, end=end, elapsed_raw=str(seconds),
                      elapsed="", tres=f"billing=1,cpu=8,gres/gpu={gpus},node=1")  # fmt: skip


def test_a_landing_stales_the_weeks_its_lines_and_the_rows_they_replace_ran_in(
    tmp_path: Path,
) -> None:
    # 601 ran in W47 (8 GPUs × 2 h); W49's export has it requeued (the same submit time, so it
    # replaces that row) and run in W48 instead, 1 h. 901 was submitted in W47 and waited
    # until W50: the weeks it waited in keep their cached rows.
    w47 = _write(tmp_path / "w47.psv", [
        _job("601", 8, "2026-11-17T10:00:00", 7200), _job("602", 1, "2026-11-18T10:00:00", 3600),
    ])  # fmt: skip
    w48 = _write(tmp_path / "w48.psv", [_job("701", 2, "2026-11-24T12:00:00", 3600)])
    w49 = _write(tmp_path / "w49.psv", [
        _ran("601", 8, "2026-11-17T10:00:00", "2026-11-24T10:00:00", 3600),
        _job("801", 4, "2026-12-01T10:00:00", 3600),
    ])  # fmt: skip
    w50 = _write(tmp_path / "w50.psv", [
        _ran("901", 1, "2026-11-18T09:00:00", "2026-12-08T10:00:00", 3600),
    ])  # fmt: skip
    cached = "SELECT week_start, allocated_gpu_seconds, computed_at FROM week_allocations"
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        for file, week in ((w47, "2026-W47"), (w48, "2026-W48")):
            reconcile(book, WeeklyInputs(sacct=[file], week=week, plan=PLAN), None)
        assert [(str(s.date()), n) for s, n, _ in _rows(book, cached)] == [
            ("2026-11-16", (16 + 1) * 3600)
        ]
        reconcile(book, WeeklyInputs(sacct=[w49], week="2026-W49", plan=PLAN), None)
        after_w49 = sorted(_rows(book, cached))
        # W47 without 601's 16 GPU-hours (the row it replaced is gone), W48 with its 8.
        assert [(str(s.date()), n) for s, n, _ in after_w49] == [
            ("2026-11-16", 1 * 3600), ("2026-11-23", (8 + 2) * 3600)
        ]  # fmt: skip
        result = reconcile(book, WeeklyInputs(sacct=[w50], week="2026-W50", plan=PLAN), None)
        after_w50 = sorted(_rows(book, cached))
    assert after_w50[:2] == after_w49  # computed once, not again: 901 ran in none of them
    assert [(str(s.date()), n) for s, n, _ in after_w50[2:]] == [("2026-11-30", 4 * 3600)]
    assert _actual(result) == {"unknown": 1 + 8 + 2 + 4 + 1}


@pytest.mark.parametrize(
    ("job_id", "raw", "named"),
    [("9_1", "10", "9"), ("9_1", "10", "10"), ("123+1", "124", "123")],
    ids=["array job", "JobIDRaw", "het job"],
)
def test_a_registry_row_links_a_job_by_an_id_outside_its_job_ids(
    tmp_path: Path, job_id: str, raw: str, named: str
) -> None:
    # The only job's id sorts after the id the registry names it by ("10" < "9" < "9_1",
    # "123" < "123+1"): the registry rows read are bounded by every id the jobs go by, not
    # by their job ids alone. 8 GPUs × 1 h, evaluation.
    line = sacct_line(job_id, raw=raw, submit="2026-11-24T10:00:00",
                      start="2026-11-24T10:00:00", end="2026-11-24T11:00:00")  # fmt: skip
    sacct = _write(tmp_path / "w48.psv", [line])
    registry = tmp_path / "registry.csv"
    registry.write_text(f"job_id,experiment_id,work_class\n{named},exp-a,evaluation\n")
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        inputs = WeeklyInputs(sacct=[sacct], registry=registry, plan=PLAN, week="2026-W48")
        result = reconcile(book, inputs, None)
    assert _actual(result) == {"evaluation": 8}

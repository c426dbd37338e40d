"""Local times at a DST change, and jobs that run across a review week's bound."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.ledger import Ledger
from trainbudget.reconcile.land import land_sacct

from .conftest import HEADER, sacct_line


def _reconcile(cli, tmp_path: Path, *args: str) -> dict:
    result = cli("--ledger", str(tmp_path / "l.duckdb"), "reconcile", *args, "--json")
    assert result.code == 0, result.stderr
    return result.json()


def _row(ledger: Ledger, job_id: str) -> tuple:
    return ledger.con.execute(
        "SELECT start_time, end_time, elapsed_seconds, time_flags FROM sacct_rows "
        "WHERE job_id = ? AND step IS NULL",
        [job_id],
    ).fetchone()


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# --- local times ------------------------------------------------------------------------


def test_fall_back_ambiguous_times_are_flagged_and_placed_by_elapsedraw(
    cli, write_sacct, tmp_path
) -> None:
    # Europe/Amsterdam, 2026-10-25: 03:00 CEST goes back to 02:00 CET, so 02:00-03:00 comes
    # twice. The job started at 02:50 CEST (00:50Z) and ended at 02:10 CET (01:10Z): 1,200 s.
    path = write_sacct([
        sacct_line("1", elapsed="00:20:00", elapsed_raw="1200", submit="2026-10-25T01:00:00",
                   start="2026-10-25T02:50:00", end="2026-10-25T02:10:00"),
    ])  # fmt: skip
    out = _reconcile(cli, tmp_path, "--sacct", str(path), "--cluster-tz", "Europe/Amsterdam")
    (job,) = out["jobs"]
    assert {"start-time-ambiguous", "end-time-ambiguous"} <= set(job["flags"])
    assert (job["start_time"], job["end_time"]) == ("2026-10-25T00:50:00Z", "2026-10-25T01:10:00Z")
    assert job["elapsed_seconds"] == 1200
    # (per-job GPU-hours are rounded in --json until the exact-JSON change lands)
    assert job["allocated_gpu_hours"] == pytest.approx(8 * 1200 / 3600, abs=1e-6)
    allocated = out["diagnosis"][0]
    assert allocated["local_time_ambiguous_jobs"] == 1
    assert "ambiguous local time" in allocated["summary"]


def test_one_ambiguous_end_is_start_plus_elapsedraw(ledger, write_sacct) -> None:
    # Start 01:30 CEST is sound (23:30Z); End 02:30 is ambiguous; ElapsedRaw says 2 h later.
    path = write_sacct([
        sacct_line("2", elapsed_raw="7200", start="2026-10-25T01:30:00",
                   end="2026-10-25T02:30:00", submit="2026-10-24T12:00:00"),
    ])  # fmt: skip
    land_sacct(ledger, path, cluster_tz="Europe/Amsterdam")
    start, end, elapsed, flags = _row(ledger, "2")
    assert start == _utc("2026-10-24T23:30:00") and end == _utc("2026-10-25T01:30:00")
    assert (elapsed, flags) == (7200, ["end-time-ambiguous"])


def test_spring_forward_nonexistent_start_is_end_minus_elapsedraw(
    cli, write_sacct, tmp_path
) -> None:
    # 2026-03-29: 02:00 CET jumps to 03:00 CEST; 02:30 never happens on that clock.
    path = write_sacct([
        sacct_line("3", elapsed_raw="3600", submit="2026-03-28T12:00:00",
                   start="2026-03-29T02:30:00", end="2026-03-29T04:00:00"),
        sacct_line("4", elapsed_raw="3600", submit="2026-03-28T12:00:00",
                   start="2026-03-29T01:30:00", end="2026-03-29T03:30:00"),
    ])  # fmt: skip
    out = _reconcile(cli, tmp_path, "--sacct", str(path), "--cluster-tz", "Europe/Amsterdam")
    jobs = {j["job_id"]: j for j in out["jobs"]}
    assert "start-time-nonexistent" in jobs["3"]["flags"]
    # End 04:00 CEST = 02:00Z; Start = End - 3,600 s.
    assert (jobs["3"]["start_time"], jobs["3"]["end_time"]) == (
        "2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z")  # fmt: skip
    # 01:30 CET and 03:30 CEST are ordinary times around the gap: no flag.
    assert not any(f.endswith(("-ambiguous", "-nonexistent")) for f in jobs["4"]["flags"])
    assert (jobs["4"]["start_time"], jobs["4"]["end_time"]) == (
        "2026-03-29T00:30:00Z", "2026-03-29T01:30:00Z")  # fmt: skip
    assert out["diagnosis"][0]["local_time_nonexistent_jobs"] == 1


def test_utc_times_are_never_flagged(ledger, write_sacct) -> None:
    path = write_sacct([sacct_line("5", start="2026-10-25T02:30:00", end="2026-10-25T03:30:00")])
    land_sacct(ledger, path)
    assert _row(ledger, "5")[3] is None


# --- a job across a week bound ----------------------------------------------------------


def test_sunday_to_monday_job_gives_each_week_its_hours(cli, write_sacct, tmp_path) -> None:
    # 8 GPUs from Sunday 2026-11-22 23:00 (ISO week 47) to Monday 01:00 (week 48). Its last
    # accepted checkpoint is at 00:30: useful 23:00-00:30, lost 00:30-01:00 (it failed).
    sacct = write_sacct([
        sacct_line("900", "FAILED", exit_code="1:0", elapsed_raw="7200",
                   submit="2026-11-22T22:00:00", start="2026-11-22T23:00:00",
                   end="2026-11-23T01:00:00"),
    ])  # fmt: skip
    progress = tmp_path / "progress.jsonl"
    events = [
        {"job_id": "900", "time": "2026-11-22T23:00:00Z", "event": "start", "resumed_from_step": 0},
        {"job_id": "900", "time": "2026-11-23T00:30:00Z", "event": "checkpoint", "step": 200,
         "accepted": True},
        {"job_id": "900", "time": "2026-11-23T00:50:00Z", "event": "step", "step": 250},
    ]  # fmt: skip
    progress.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    args = ("--sacct", str(sacct), "--progress", str(progress))
    expected = {  # GPU-hours by hand: 8 GPUs × the hours of each class inside each week
        "2026-W47": {"allocated": 8, "useful": 8, "recovery": 0, "lost": 0, "unverified": 0},
        "2026-W48": {"allocated": 8, "useful": 4, "recovery": 0, "lost": 4, "unverified": 0},
    }
    for week, hours in expected.items():
        out = _reconcile(cli, tmp_path, *args, "--week", week)
        (job,) = out["jobs"]
        assert "split-across-weeks" in job["flags"], week
        for k, v in hours.items():
            assert Fraction(str(job[f"{k}_gpu_hours"])) == v, (week, k)
            assert Fraction(str(out["totals"][f"{k}_gpu_hours"])) == v, (week, k)
        parts = sum(Fraction(str(job[f"{k}_gpu_hours"])) for k in hours if k != "allocated")
        assert parts == Fraction(str(job["allocated_gpu_hours"]))
        assert out["diagnosis"][0]["split_across_weeks_jobs"] == 1
    # The week before and after see nothing of it.
    for week in ("2026-W46", "2026-W49"):
        assert _reconcile(cli, tmp_path, *args, "--week", week)["jobs"] == []


# --- property: the weeks' parts sum to the allocation -----------------------------------

_T0 = datetime(2026, 11, 9, tzinfo=UTC)  # a Monday


def _allocation_sql() -> str:
    return (
        "CREATE OR REPLACE TEMP TABLE allocations AS SELECT 1::BIGINT AS alloc_id, "
        "'c' AS cluster, 'j' AS job_id, 'j' AS job_id_raw, NULL::VARCHAR AS array_job_id, "
        "NULL::VARCHAR AS het_job_id, 'n' AS name, 'a' AS account, 'p' AS partition, "
        "'FAILED' AS state, 'FAILED' AS state_text, NULL::VARCHAR AS cancelled_by, "
        "1 AS exit_status, 0 AS exit_signal, ?::BIGINT AS elapsed_seconds, "
        "?::TIMESTAMPTZ AS submit_time, ?::TIMESTAMPTZ AS start_time, "
        "NULL::TIMESTAMPTZ AS end_time, ?::INTEGER AS gpus, NULL::VARCHAR AS gpu_type, "
        "'x' AS source_path, 1::BIGINT AS source_line, false AS from_steps, "
        "NULL::VARCHAR[] AS time_flags, ?::BIGINT AS allocated_gpu_seconds"
    )


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    with Ledger.open(tmp_path_factory.mktemp("weeks") / "l.duckdb") as ledger:
        ledger.execute("reconcile/review/job_splits")
        ledger.con.execute(
            "CREATE OR REPLACE TEMP TABLE registry_links AS SELECT 1::BIGINT AS alloc_id, "
            "'e' AS experiment_id, 'main' AS work_class, NULL AS code_revision, "
            "NULL AS data_snapshot, NULL::BOOLEAN AS result_valid, NULL AS diagnosed_cause, "
            "NULL::BOOLEAN AS cause_addressed LIMIT 0"
        )
        yield ledger


@settings(max_examples=60, deadline=None)
@given(
    start_s=st.integers(0, 21 * 86400),
    elapsed_s=st.integers(0, 16 * 86400),
    gpus=st.integers(1, 64),
    cuts=st.lists(st.integers(0, 16 * 86400), min_size=3, max_size=3),
    tail_lost=st.booleans(),
)
def test_week_parts_sum_to_the_allocation(book, start_s, elapsed_s, gpus, cuts, tail_lost):
    start = _T0 + timedelta(seconds=start_s)
    a, b, _ = sorted(min(x, elapsed_s) for x in cuts)
    r, u, rest = a, b - a, elapsed_s - b  # recovery, useful, then the tail
    lost, unverified = (rest, 0) if tail_lost else (0, rest)
    book.con.execute(_allocation_sql(), [elapsed_s, start, start, gpus, gpus * elapsed_s])
    book.con.execute("DELETE FROM job_splits")
    book.con.execute(
        "INSERT INTO job_splits (alloc_id, useful_s, recovery_s, lost_s, unverified_s, flags) "
        "VALUES (1, ?, ?, ?, ?, [])",
        [u, r, lost, unverified],
    )
    sums = dict.fromkeys(("allocated", "useful", "recovery", "lost", "unverified"), 0)
    weeks = 0
    for w in range(-1, 6):  # every week the job can touch, and one either side
        ws = _T0 + timedelta(weeks=w)
        book.execute("reconcile/review/job_accounting", has_registry=True,
                     week_start=ws, week_end=ws + timedelta(weeks=1))  # fmt: skip
        row = book.con.execute(
            "SELECT allocated_gpu_seconds, useful_gpu_seconds, recovery_gpu_seconds, "
            "lost_gpu_seconds, unverified_gpu_seconds, in_week FROM job_accounting"
        ).fetchone()
        allocated, *classes, in_week = row
        assert allocated == sum(classes)  # each week: the classes sum to its part exactly
        weeks += in_week
        for k, v in zip(sums, row[:5], strict=True):
            sums[k] += v
    assert sums == {"allocated": gpus * elapsed_s, "useful": gpus * u, "recovery": gpus * r,
                    "lost": gpus * lost, "unverified": gpus * unverified}  # fmt: skip
    assert weeks >= 1
    # The table by ISO week (here UTC's) splits the same way, exactly, class by class.
    starts = [_T0 + timedelta(weeks=w) for w in range(-1, 6)]
    book.execute("reconcile/closed/use", in_use=False)  # no closed jobs: job_accounting alone
    book.execute("reconcile/review/job_accounting_all")
    by_week = book.records(
        "reconcile/summarize/accounting_by_week",
        starts=starts,
        ends=[s + timedelta(weeks=1) for s in starts],
        names=[f"{s:%G-W%V}" for s in starts],
    )
    assert {k: sum(int(w[k]) for w in by_week) for k in sums} == sums
    for w in by_week:
        assert w["allocated"] == w["useful"] + w["recovery"] + w["lost"] + w["unverified"]


# --- property: what Slurm prints in a DST zone lands as the instants it printed -------------

_AMS = ZoneInfo("Europe/Amsterdam")
_CHANGES = (datetime(2026, 10, 25, 1, tzinfo=UTC), datetime(2026, 3, 29, 1, tzinfo=UTC))
_seq = iter(range(10**6))


def _printed(moment: datetime) -> tuple[str, bool]:
    """The local time sacct prints for an instant, and whether that wall time is ambiguous."""
    wall = moment.astimezone(_AMS).replace(tzinfo=None)
    folds = {wall.replace(fold=f, tzinfo=_AMS).utcoffset() for f in (0, 1)}
    return wall.strftime("%Y-%m-%dT%H:%M:%S"), len(folds) == 2


@settings(max_examples=40, deadline=None)
@given(
    change=st.sampled_from(_CHANGES),
    offset_s=st.integers(-3 * 3600, 3 * 3600),
    elapsed_s=st.integers(0, 3 * 3600),
)
def test_printed_local_times_land_as_their_instants(book, tmp_path_factory, change, offset_s,
                                                    elapsed_s) -> None:  # fmt: skip
    start = change + timedelta(seconds=offset_s)
    end = start + timedelta(seconds=elapsed_s)
    (start_text, start_amb), (end_text, end_amb) = _printed(start), _printed(end)
    job = str(next(_seq) + 10_000)
    path = tmp_path_factory.mktemp("dst") / "sacct.psv"
    path.write_text(
        f"{HEADER}\n"
        + sacct_line(job, elapsed_raw=str(elapsed_s), submit=start_text, start=start_text,
                     end=end_text) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    landed = land_sacct(book, path, cluster_tz="Europe/Amsterdam")
    assert landed.rows_quarantined == 0
    got_start, got_end, got_elapsed, flags = _row(book, job)
    flags = set(flags or [])
    assert ("start-time-ambiguous" in flags) == start_amb
    assert ("end-time-ambiguous" in flags) == end_amb
    assert not any(f.endswith("-nonexistent") for f in flags)  # Slurm never prints one
    assert got_elapsed == elapsed_s and got_end - got_start == timedelta(seconds=elapsed_s)
    if not (start_amb and end_amb):
        assert (got_start, got_end) == (start, end)
    else:  # both ambiguous: a reading of each, ElapsedRaw apart
        assert _printed(got_start)[0] == start_text and _printed(got_end)[0] == end_text

"""The two bounds history.py and the landing take over every landed line, against the rule
each stands for, worked line by line in Python (hypothesis): the first start
(history.first_start: the minimum of start else submit, read through constant bounds on
start_time and submit_time), and the cached weeks a landing drops (sacct_stale_weeks.sql, its
lines folded per day into spans)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from trainbudget.ledger import Ledger
from trainbudget.reconcile.history import allocated_by_week, first_start, week_of, weeks_between
from trainbudget.reconcile.land import land_sacct

from .conftest import sacct_line

ORIGIN = datetime(2026, 9, 28, tzinfo=UTC)  # a Monday (2026-W40)
ZONE = "Europe/Berlin"  # its weeks are 167 or 169 hours long across a clock change
HOUR = 3600


def _seconds(most: int) -> st.SearchStrategy[int]:
    """Seconds up to `most`, often whole hours: a line then ends exactly where a week starts
    (a zone's week starts on an hour), the bound every overlap test turns on."""
    return st.one_of(st.integers(0, most), st.integers(0, most // HOUR).map(lambda h: h * HOUR))


# A line: its start (None: never started), its submit before that, and its Elapsed, seconds.
_lines = st.lists(
    st.tuples(
        st.one_of(st.none(), _seconds(70 * 24 * HOUR)),
        _seconds(9 * 24 * HOUR),
        st.one_of(st.just(0), _seconds(20 * 24 * HOUR)),
    ),
    max_size=12,
)


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory):
    """One ledger for every example; each example's rows are rolled back."""
    ledger = Ledger.open(tmp_path_factory.mktemp("history") / "ledger.duckdb")
    yield ledger
    ledger.close()


def _insert(book: Ledger, lines: list[tuple[int | None, int, int]], source_id: int) -> None:
    """The lines as sacct_rows of landing `source_id`, with the start-derived run_end_time
    landing computes (start, else submit, + Elapsed)."""
    for number, (start, wait, elapsed) in enumerate(lines):
        submit = ORIGIN + timedelta(seconds=(start or 0) - wait)
        started = None if start is None else ORIGIN + timedelta(seconds=start)
        book.con.execute(
            "INSERT INTO sacct_rows BY NAME SELECT 'c' AS cluster, $id AS job_id, $id AS "
            "job_id_raw, 'COMPLETED' AS state, 'COMPLETED' AS state_text, $e AS "
            "elapsed_seconds, 1 AS gpus, $src AS source_id, $n AS source_line, $submit AS "
            "submit_time, $start AS start_time, coalesce($start, $submit) + to_seconds($e) AS "
            "run_end_time",
            {"id": f"{source_id}-{number}", "e": elapsed, "src": source_id, "n": number + 1,
             "submit": submit, "start": started},
        )  # fmt: skip


def _t0(line: tuple[int | None, int, int]) -> datetime:
    start, wait, _ = line
    return ORIGIN + timedelta(seconds=start if start is not None else -wait)


@settings(max_examples=100, deadline=None)
@given(lines=_lines, cached=st.one_of(st.none(), st.integers(-12, 80)))
# The one started line starts where the first cached week ends: none started before the bound.
@example(lines=[(7 * 24 * HOUR, 0, HOUR)], cached=7)
@example(lines=[(9 * 24 * HOUR, 0, HOUR), (None, 2 * 24 * HOUR, 0)], cached=7)
@example(lines=[(10 * 24 * HOUR, 0, HOUR), (0, 0, HOUR)], cached=7)  # one on either side
def test_the_first_start_is_the_earliest_start_else_submit(
    book: Ledger, lines, cached: int | None
) -> None:
    """Whatever week is cached first (its end, days from ORIGIN, before, among or after the
    lines; or none cached), the bound it gives only prunes: the first start is the same."""
    book.con.execute("BEGIN TRANSACTION")
    try:
        _insert(book, lines, 1)
        if cached is not None:
            end = ORIGIN + timedelta(days=cached)
            book.con.execute(
                "INSERT INTO week_allocations VALUES ($start, $end, 0, 0, $end)",
                {"start": end - timedelta(days=7), "end": end},
            )
        first = first_start(book)
    finally:
        book.con.execute("ROLLBACK")
    assert first == (min(_t0(line) for line in lines) if lines else None)


# The cached weeks start three weeks in: some lines end before every one of them.
WEEKS = weeks_between(ORIGIN + timedelta(days=21), ORIGIN + timedelta(days=100), ZONE)
# A started line ending exactly where a cached week starts (which week, its Elapsed in hours
# and seconds): the bound both overlap tests turn on, which random times would seldom hit.
_at_a_week_start = st.tuples(
    st.integers(0, len(WEEKS) - 1), st.integers(0, 20 * 24), st.sampled_from([0, 1])
).map(
    lambda a: (
        int((WEEKS[a[0]][0] - ORIGIN).total_seconds()) - a[1] * HOUR - a[2],
        0,
        a[1] * HOUR + a[2],
    )
)


def _around(week: int) -> list[tuple[int, int, int]]:
    """Two one-hour lines, ending 1 h before cached week `week` starts and starting 1 h after
    it ends (7 days and 3 hours apart): the week between them is not stale."""
    start, end = (int((t - ORIGIN).total_seconds()) for t in WEEKS[week])
    return [(start - 2 * HOUR, 0, HOUR), (end + HOUR, 0, HOUR)]


@settings(max_examples=100, deadline=None)
@given(lines=_lines, ending=st.lists(_at_a_week_start, max_size=4))
@example(lines=[line for week in (1, 4, 7, 10) for line in _around(week)], ending=[])
def test_a_landing_drops_exactly_the_cached_weeks_its_lines_ran_in(
    book: Ledger, lines, ending
) -> None:
    weeks, lines = WEEKS, lines + ending
    book.con.execute("BEGIN TRANSACTION")
    try:
        for start, end in weeks:
            book.con.execute(
                "INSERT INTO week_allocations VALUES ($s, $e, 0, 0, $s)", {"s": start, "e": end}
            )
        _insert(book, lines, 7)
        book.con.execute("CREATE OR REPLACE TEMP TABLE sacct_replaced "
                         "(run_start_time TIMESTAMPTZ, run_end_time TIMESTAMPTZ)")  # fmt: skip
        book.execute("reconcile/land/sacct_stale_weeks", source_id=7)
        kept = {r[0] for r in book.con.execute("SELECT week_start FROM week_allocations")
                .fetchall()}  # fmt: skip
    finally:
        book.con.execute("ROLLBACK")
    # A week is stale when a line ran in it: started (else submitted) before its end and ran
    # up to or past its start.
    stale = {
        start
        for start, end in weeks
        for line in lines
        if _t0(line) < end and _t0(line) + timedelta(seconds=line[2]) >= start
    }
    assert kept == {start for start, _ in weeks} - stale


def test_the_weeks_before_a_review_start_at_the_first_start_else_submit(
    tmp_path: Path, ledger: Ledger, write_sacct
) -> None:
    """Job 11 was submitted on Sat 7 Nov (W45) and started on Tue 10 Nov (W46); the pending
    job 12 was submitted on Wed 11 Nov. The campaign's weeks start at W46, not W45: job 11's
    hour on 1 GPU in W46, nothing in W47. A pending job submitted on Sun 1 Nov (W44), landed
    later, moves the first week to W44."""
    land_sacct(ledger, write_sacct([
        sacct_line("11", submit="2026-11-07T09:00:00", start="2026-11-10T00:00:00",
                   end="2026-11-10T01:00:00", tres="gres/gpu=1"),
        sacct_line("12", "PENDING", elapsed="00:00:00", elapsed_raw="0",
                   submit="2026-11-11T00:00:00", start="None", end="Unknown", tres=""),
    ], name="first.psv"))  # fmt: skip
    w46, w47, w48 = (week_of(datetime(2026, 11, d, tzinfo=UTC), "UTC") for d in (9, 16, 23))
    assert allocated_by_week(ledger, w48[0], "UTC") == {w46: 1 * HOUR, w47: 0}
    land_sacct(ledger, write_sacct([
        sacct_line("13", "PENDING", elapsed="00:00:00", elapsed_raw="0",
                   submit="2026-11-01T12:00:00", start="None", end="Unknown", tres=""),
    ], name="later.psv"))  # fmt: skip
    w44, w45 = (week_of(datetime(2026, 11, d, tzinfo=UTC), "UTC") for d in (1, 2))
    assert allocated_by_week(ledger, w48[0], "UTC") == {w44: 0, w45: 0, w46: 1 * HOUR, w47: 0}

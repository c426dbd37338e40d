"""Invariants of the badput causes on random job timelines (hypothesis).

The stretches are built in SQL (goodput_stretches.sql) from a job's split and its measured
checkpoint writes; here they are checked against their class bounds and against the rule
written out one write at a time, in Python, in this test.
"""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import pairwise

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.ledger.sql_files import load_sql
from trainbudget.reconcile.accounting import JobTimeline, split_job
from trainbudget.reconcile.timelines import TrackedJob, restart_seconds

START = 1_000_000


@st.composite
def tracked_jobs(draw) -> tuple[TrackedJob, list[tuple[int, int]]]:
    elapsed = draw(st.integers(1, 100_000))
    times = sorted(draw(st.lists(st.integers(START, START + elapsed), max_size=8)))
    steps = tuple((t, draw(st.integers(0, 5000))) for t in times)
    ckpts = tuple(
        (t, draw(st.integers(0, 5000)))
        for t in sorted(draw(st.lists(st.integers(START, START + elapsed), max_size=4)))
    )
    timeline = JobTimeline(
        gpus=8, start_s=START, elapsed_s=elapsed,
        state=draw(st.sampled_from(["COMPLETED", "NODE_FAIL", "TIMEOUT", "RUNNING"])),
        has_progress=True, resumed_from_step=draw(st.integers(0, 3000)),
        high_water_step=draw(st.integers(0, 5000)), steps=steps, accepted_checkpoints=ckpts,
        app_start_s=START, app_end_s=draw(st.none() | st.just(START + elapsed)),
    )  # fmt: skip
    job = TrackedJob(1, "7", timeline, split_job(timeline), "c", None, None, None)
    # (t, write seconds): some at a checkpoint's second, some two in one second.
    writes = [(t, draw(st.integers(0, 20_000))) for t, _ in ckpts]
    writes += [(t, draw(st.integers(0, 20_000))) for t, _ in draw(st.lists(st.sampled_from(
        ckpts), max_size=2))] if ckpts else []  # fmt: skip
    return job, sorted(set(writes))


def sql_stretches(job: TrackedJob, writes: list[tuple[int, int]]) -> list[tuple[str, int, int]]:
    """goodput_stretches.sql over one job: its split, its allocation and its writes."""
    con = duckdb.connect()
    s = job.split
    con.execute(
        "CREATE TEMP TABLE job_splits AS SELECT 1 AS alloc_id, $u AS useful_s, "
        "$r AS recovery_s, $restart AS restart_s",
        {"u": s.useful_s, "r": s.recovery_s, "restart": restart_seconds(job)},
    )
    con.execute(
        "CREATE TEMP TABLE allocations AS SELECT 1 AS alloc_id, '7' AS job_id, "
        "CAST($start AS TIMESTAMPTZ) AS start_time",
        {"start": datetime.fromtimestamp(job.timeline.start_s, UTC)},
    )
    con.execute("CREATE TEMP TABLE measured_writes (job_id VARCHAR, t BIGINT, write_s BIGINT)")
    for t, w in writes:
        con.execute("INSERT INTO measured_writes VALUES ('7', ?, ?), ('8', ?, ?)", [t, w, t, 1])
    con.execute(load_sql("reconcile/review/goodput_stretches"))
    return sorted(con.execute("SELECT cause, start_s, end_s FROM goodput_stretches").fetchall())


def one_write_at_a_time(job: TrackedJob, writes: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The rule: in time order (the longer of two in one second first), a write inside the
    useful stretch ends at its event and starts no earlier than the stretch's start or the
    previous counted write's end."""
    t0, s = job.timeline.start_s, job.split
    low, high = t0 + s.recovery_s, t0 + s.recovery_s + s.useful_s
    cursor, spans = low, []
    for t, w in sorted(writes, key=lambda x: (x[0], -x[1])):
        if low < t <= high and max(cursor, t - w) < t:
            spans.append((max(cursor, t - w), t))
            cursor = t
    return spans


@settings(max_examples=150, deadline=None)
@given(tracked_jobs())
def test_cause_stretches_stay_inside_their_class(case) -> None:
    job, writes = case
    t0, s = job.timeline.start_s, job.split
    restart = restart_seconds(job)
    assert 0 <= restart <= s.recovery_s
    rows = sql_stretches(job, writes)
    assert [(b, e) for c, b, e in rows if c == "restart"] == (
        [(t0, t0 + restart)] if restart else []
    )
    spans = [(b, e) for c, b, e in rows if c == "checkpoint_writes"]
    assert spans == one_write_at_a_time(job, writes)  # job 8's writes are not job 7's
    low, high = t0 + s.recovery_s, t0 + s.recovery_s + s.useful_s
    for begin, end in spans:
        assert low <= begin < end <= high  # inside the useful stretch
    for (_, end), (begin, _) in pairwise(spans):
        assert end <= begin  # writes never overlap, so never counted twice
    assert sum(e - b for b, e in spans) <= s.useful_s

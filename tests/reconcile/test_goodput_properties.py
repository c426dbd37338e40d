"""Invariants of the badput causes on random job timelines (hypothesis)."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.reconcile.accounting import JobTimeline, split_job
from trainbudget.reconcile.goodput import goodput_stretch_rows, restart_seconds
from trainbudget.reconcile.timelines import TrackedJob


@st.composite
def tracked_jobs(draw) -> tuple[TrackedJob, list[dict]]:
    elapsed = draw(st.integers(1, 100_000))
    start = 1_000_000
    times = sorted(draw(st.lists(st.integers(start, start + elapsed), max_size=8)))
    steps = tuple((t, draw(st.integers(0, 5000))) for t in times)
    ckpts = tuple(
        (t, draw(st.integers(0, 5000)))
        for t in sorted(draw(st.lists(st.integers(start, start + elapsed), max_size=4)))
    )
    timeline = JobTimeline(
        gpus=8, start_s=start, elapsed_s=elapsed,
        state=draw(st.sampled_from(["COMPLETED", "NODE_FAIL", "TIMEOUT", "RUNNING"])),
        has_progress=True, resumed_from_step=draw(st.integers(0, 3000)),
        high_water_step=draw(st.integers(0, 5000)), steps=steps, accepted_checkpoints=ckpts,
        app_start_s=start, app_end_s=draw(st.none() | st.just(start + elapsed)),
    )  # fmt: skip
    split = split_job(timeline)
    job = TrackedJob(1, "7", timeline, split, "c", None, None, None)
    writes = [{"job_id": "7", "t": t, "write_s": draw(st.integers(0, 20_000))} for t, _ in ckpts]
    return job, writes


@settings(max_examples=200, deadline=None)
@given(tracked_jobs())
def test_cause_stretches_stay_inside_their_class(case) -> None:
    job, writes = case
    t0, s = job.timeline.start_s, job.split
    restart = restart_seconds(job)
    assert 0 <= restart <= s.recovery_s
    rows = goodput_stretch_rows([job], writes)
    spans = sorted((r["start_s"], r["end_s"]) for r in rows if r["cause"] == "checkpoint_writes")
    low, high = t0 + s.recovery_s, t0 + s.recovery_s + s.useful_s
    for begin, end in spans:
        assert low <= begin < end <= high  # inside the useful stretch
    for (_, end), (begin, _) in pairwise(spans):
        assert end <= begin  # writes never overlap, so never counted twice
    assert sum(e - b for b, e in spans) <= s.useful_s

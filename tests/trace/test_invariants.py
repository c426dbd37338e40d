"""Properties every summary keeps, on random GPU timelines (no files involved)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.trace.parse import RankEvents
from trainbudget.trace.summary import summarize_events

NAMES = ["gemm", "ncclKernel_AllReduce", "Memcpy DtoD", "Stream Sync"]

timelines = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 10_000), st.integers(0, 500)), max_size=40
)


def _events(kernels) -> RankEvents:
    empty = np.empty(0)
    return RankEvents(
        path=Path("rank0.json"),
        meta={"distributedInfo": {"rank": 0}},
        json_bytes=0,
        event_count=len(kernels),
        names=NAMES,
        gpu_ts=np.array([float(t) for _, t, _ in kernels]),
        gpu_dur=np.array([float(d) for _, _, d in kernels]),
        gpu_name=np.array([n for n, _, _ in kernels], dtype=np.int32),
        gpu_corr=np.arange(len(kernels), dtype=np.int64),
        launch_ts=empty,
        launch_corr=np.empty(0, dtype=np.int64),
        steps=[],
        loader=[],
        memory=[],
    )


@settings(deadline=None)
@given(timelines)
def test_busy_idle_and_categories_are_consistent(kernels) -> None:
    s = summarize_events(_events(kernels))
    gpu = s.gpu
    assert gpu.busy_ns + gpu.idle_ns == gpu.span_ns
    assert 0 <= gpu.busy_ns <= gpu.span_ns
    categories = gpu.by_category_ns.values()
    assert all(0 <= c <= gpu.busy_ns for c in categories)
    # Categories split the events, so their unions cover the busy time at least once.
    assert sum(categories) >= gpu.busy_ns
    comm, comp = gpu.by_category_ns["communication"], gpu.by_category_ns["computation"]
    assert 0 <= gpu.overlap_ns <= min(comm, comp)
    assert gpu.busy_ns <= sum(d for _, _, d in kernels) * 1000


@settings(deadline=None)
@given(timelines, st.integers(-(10**6), 10**6))
def test_shifting_every_event_changes_no_figure(kernels, shift_us) -> None:
    base = summarize_events(_events(kernels)).gpu
    moved = [(n, t + shift_us + 10**6, d) for n, t, d in kernels]
    assert summarize_events(_events(moved)).gpu == base

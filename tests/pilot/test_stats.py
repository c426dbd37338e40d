"""Per-shape statistics: median, nearest-rank p95, throughput, checkpoint writes, exactness."""

from __future__ import annotations

from decimal import Decimal

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.estimate.exact import to_decimal
from trainbudget.pilot.ingest import read_step_log
from trainbudget.pilot.stats import (
    Shape,
    bucket_stats,
    checkpoint_stats,
    median,
    nearest_rank,
    with_tokens,
    without_warmup,
)

D = Decimal


@pytest.mark.parametrize(
    ("values", "expected"),
    [([3], 3), ([1, 2, 3, 4], D("2.5")), ([5, 1, 3], 3), ([D("0.1"), D("0.2")], D("0.15"))],
)
def test_median(values, expected) -> None:
    assert median([D(v) for v in values]) == D(expected)


@pytest.mark.parametrize(
    ("count", "expected"),
    # nearest rank: the ceil(0.95 n)-th smallest of 1..n
    [(1, 1), (10, 10), (19, 19), (20, 19), (21, 20), (100, 95), (101, 96)],
)
def test_p95_is_the_nearest_rank_value(count: int, expected: int) -> None:
    values = [D(v) for v in range(count, 0, -1)]  # unsorted on purpose
    assert nearest_rank(values, 95) == expected


@given(st.lists(st.decimals(-1e6, 1e6, allow_nan=False, places=3), min_size=1, max_size=50))
def test_p95_is_a_measured_value_between_median_and_max(values) -> None:
    p95 = nearest_rank(values, 95)
    assert p95 in values
    assert min(values) <= median(values) <= max(values)
    assert p95 <= max(values)
    assert sum(v <= p95 for v in values) >= 0.95 * len(values)


def test_measured_floats_are_exact_at_their_decimal_text() -> None:
    assert to_decimal(0.1) + to_decimal(0.2) == D("0.3")
    assert to_decimal(7) == D(7)


def test_shapes_are_never_pooled(make_log, row) -> None:
    short = [row(i, s) for i, s in enumerate([1.0, 1.2, 1.1, 5.0])]
    long = [
        row(10 + i, s, seq_len=8192, batch_size=2, tokens=16384, peak_memory_bytes=70 * 2**30)
        for i, s in enumerate([3.0, 3.5])
    ]
    steps = with_tokens(read_step_log(make_log(short + long)).steps)
    a, b = bucket_stats(steps)
    assert a.shape == Shape(2048, 8, 8) and b.shape == Shape(8192, 2, 8)
    # short shape by hand: sorted 1.0 1.1 1.2 5.0 -> median (1.1+1.2)/2; p95 = 4th of 4
    assert (a.steps, a.median_step_seconds) == (4, D("1.15"))
    assert (a.p95_step_seconds, a.max_step_seconds) == (D("5.0"), D("5.0"))
    assert a.tokens_per_second == D(16384) / D("1.15")
    assert a.tokens_per_gpu_second == D(16384) / D("1.15") / 8
    assert a.peak_memory_bytes == 40 * 2**30
    assert a.tokens == 4 * 16384
    assert b.median_step_seconds == D("3.25")
    assert b.peak_memory_bytes == 70 * 2**30


def test_samples_become_tokens_at_the_row_sequence_length() -> None:
    frame = pl.DataFrame({"tokens": [None, 100], "samples": [4, None], "seq_len": [512, 512]})
    assert with_tokens(frame)["tokens"].to_list() == [4 * 512, 100]


def test_warmup_steps_are_dropped_per_run() -> None:
    frame = pl.DataFrame({"run_id": ["a", "a", "a", "b", "b"], "step": [5, 3, 4, 0, 1]})
    kept = without_warmup(frame, 1).sort("run_id", "step")
    assert kept.rows() == [("a", 4), ("a", 5), ("b", 1)]
    assert without_warmup(frame, 0).height == 5


def test_checkpoint_statistics(make_log, row) -> None:
    rows = [
        row(0, 1.0),
        row(1, 1.0, checkpoint_seconds=20.0, checkpoint_bytes=4 * 10**9),
        row(2, 1.0, checkpoint_seconds=30.0, checkpoint_bytes=6 * 10**9),
        row(3, 1.0, checkpoint_seconds=40.0),  # a write whose size was not recorded
    ]
    stats = checkpoint_stats(read_step_log(make_log(rows)).steps)
    assert stats is not None
    assert (stats.writes, stats.median_seconds, stats.max_seconds) == (3, D(30), D(40))
    assert (stats.median_bytes, stats.max_bytes) == (D(5 * 10**9), 6 * 10**9)
    # bandwidth over the writes with both figures: 10 GB in 50 s
    assert stats.bytes_per_second == D(10 * 10**9) / 50


def test_no_checkpoint_gives_none(make_log, row) -> None:
    assert checkpoint_stats(read_step_log(make_log([row(0, 1.0)])).steps) is None


@given(
    st.lists(st.floats(1e-6, 1e6, allow_nan=False, allow_infinity=False), min_size=1, max_size=60)
)
def test_bucket_order_statistics_equal_the_exact_decimal_ones(seconds) -> None:
    n = len(seconds)
    frame = pl.DataFrame(
        {
            "run_id": ["r"] * n,
            "wall_seconds": seconds,
            "tokens": [100] * n,
            "seq_len": [1] * n,
            "batch_size": [1] * n,
            "gpus": [1] * n,
            "peak_memory_bytes": [None] * n,
        },
        schema_overrides={"peak_memory_bytes": pl.Int64},
    )
    (stats,) = bucket_stats(frame)
    decimals = [to_decimal(s) for s in seconds]
    assert stats.median_step_seconds == median(decimals)
    assert stats.p95_step_seconds == nearest_rank(decimals, 95)
    assert stats.max_step_seconds == max(decimals)

"""Interval union and overlap against a brute-force count of covered unit cells."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.trace.intervals import merge, overlap_length, span, union_length

intervals = st.lists(
    st.tuples(st.integers(0, 200), st.integers(0, 40)).map(lambda t: (t[0], t[0] + t[1])),
    max_size=30,
)


def _arrays(pairs):
    return (
        np.array([a for a, _ in pairs], dtype=np.int64),
        np.array([b for _, b in pairs], dtype=np.int64),
    )


def _cells(pairs) -> set[int]:
    return {x for a, b in pairs for x in range(a, b)}


def test_hand_cases() -> None:
    starts, ends = _arrays([(0, 10), (5, 15), (15, 20), (30, 40)])
    assert union_length(starts, ends) == 30  # [0,20) + [30,40); touching intervals join
    merged = merge(starts, ends)
    assert merged[0].tolist() == [0, 30] and merged[1].tolist() == [20, 40]
    assert span(starts, ends) == 40
    a, b = _arrays([(0, 10)]), _arrays([(5, 8), (9, 30)])
    assert overlap_length(*a, *b) == 3 + 1
    assert union_length(*_arrays([])) == 0 and span(*_arrays([])) == 0


@settings(deadline=None)  # timing is not under test; the machine may be busy
@given(intervals)
def test_union_is_the_covered_length(pairs) -> None:
    assert union_length(*_arrays(pairs)) == len(_cells(pairs))


@settings(deadline=None)  # timing is not under test; the machine may be busy
@given(intervals, intervals)
def test_overlap_is_the_doubly_covered_length(a, b) -> None:
    assert overlap_length(*_arrays(a), *_arrays(b)) == len(_cells(a) & _cells(b))


@settings(deadline=None)  # timing is not under test; the machine may be busy
@given(intervals)
def test_merged_intervals_are_disjoint_and_sorted(pairs) -> None:
    starts, ends = merge(*_arrays(pairs))
    assert np.all(starts[1:] > ends[:-1])
    assert int(np.sum(ends - starts)) == len(_cells(pairs))

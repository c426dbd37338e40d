"""Union and overlap of time intervals with numpy (integer nanoseconds, so sums are exact).

Lengths are summed interval by interval (`end - start` per merged interval), never as the
difference of two sums of absolute times: at epoch-µs magnitudes (1.7e15) float64 sums of
absolute timestamps lose whole microseconds.
"""

from __future__ import annotations

import numpy as np


def merge(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge intervals into disjoint ones (touching intervals join), sorted by start.

    Same grouping as HTA's `merge_kernel_intervals`: a new group starts where an interval
    begins after every earlier interval has ended.
    """
    if starts.size == 0:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    running_end = np.maximum.accumulate(e)
    new_group = np.empty(s.size, dtype=bool)
    new_group[0] = True
    new_group[1:] = s[1:] > running_end[:-1]
    group = np.cumsum(new_group) - 1
    group_start = s[new_group]
    group_end = np.full(group_start.size, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(group_end, group, e)
    return group_start, group_end


def union_length(starts: np.ndarray, ends: np.ndarray) -> int:
    """Total length covered by the intervals, each instant counted once."""
    merged_starts, merged_ends = merge(starts, ends)
    return int(np.sum(merged_ends - merged_starts, dtype=np.int64))


def overlap_length(
    a_starts: np.ndarray, a_ends: np.ndarray, b_starts: np.ndarray, b_ends: np.ndarray
) -> int:
    """Length covered by both sets: |A ∩ B| = |A| + |B| − |A ∪ B| (each set merged first)."""
    a = union_length(a_starts, a_ends)
    b = union_length(b_starts, b_ends)
    both = union_length(np.concatenate([a_starts, b_starts]), np.concatenate([a_ends, b_ends]))
    return a + b - both


def span(starts: np.ndarray, ends: np.ndarray) -> int:
    """From the first start to the last end (0 for no intervals)."""
    if starts.size == 0:
        return 0
    return int(ends.max()) - int(starts.min())

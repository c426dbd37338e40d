"""Which allocations count as interruptions (DESIGN.md's list)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.reliability.interruptions import is_interruption


@pytest.mark.parametrize(
    ("state", "cause", "expected"),
    [
        ("NODE_FAIL", None, True),
        ("BOOT_FAIL", None, True),
        ("PREEMPTED", "", True),
        ("REQUEUED", None, True),
        ("TIMEOUT", "NCCL all-reduce hang", True),
        ("FAILED", "node failure (GPU fell off the bus)", True),
        ("FAILED", "Xid 79 on gpu-12", True),
        ("FAILED", "micro-batch too large for 80 GB", False),  # the job's own fault
        ("FAILED", "harness crashed on a missing tokenizer file", False),
        ("FAILED", None, False),
        ("OUT_OF_MEMORY", "bad config", False),
        ("COMPLETED", "node failure", False),  # it completed: no interruption
        ("FAILED", "nodejs script error", False),  # a word, not a substring
    ],
)
def test_interruption_rule(state: str, cause: str | None, expected: bool) -> None:
    assert is_interruption(state, cause) is expected


@given(st.sampled_from(["NODE_FAIL", "BOOT_FAIL", "PREEMPTED", "REQUEUED"]), st.text())
def test_a_scheduler_interruption_counts_whatever_the_cause(state: str, cause: str) -> None:
    assert is_interruption(state, cause)

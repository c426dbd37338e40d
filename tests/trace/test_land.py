"""Landing in the ledger: provenance, idempotence, and all-or-nothing on a bad row."""

from __future__ import annotations

import dataclasses

import pytest

from trainbudget.trace.land import land_summaries
from trainbudget.trace.summary import summarize_rank


def _two_files(make_trace):
    paths = []
    for rank in (0, 1):
        t = make_trace(f"r{rank}")
        t.step(1, 0, 100)
        t.kernel("gemm", 10, 20 + rank)
        paths.append(t.write(f"rank{rank}.json", rank=rank))
    return paths


def test_rows_carry_provenance_and_relanding_is_a_no_op(ledger, make_trace) -> None:
    summaries = [summarize_rank(p) for p in _two_files(make_trace)]
    first = land_summaries(ledger, summaries, [0, 1], hta_compatible=False)
    assert [x["landed"] for x in first] == [True, True]
    rows = ledger.con.execute(
        "SELECT rank, gpu_busy_ns, source_path, length(source_sha256) FROM trace_ranks "
        "ORDER BY rank"
    ).fetchall()
    assert rows == [
        (0, 20_000, summaries[0].path, 64),
        (1, 21_000, summaries[1].path, 64),
    ]
    steps = ledger.con.execute("SELECT rank, step, duration_ns FROM trace_steps ORDER BY rank")
    assert steps.fetchall() == [(0, 1, 100_000), (1, 1, 100_000)]
    again = land_summaries(ledger, summaries, [0, 1], hta_compatible=False)
    assert [x["landed"] for x in again] == [False, False]
    assert ledger.con.execute("SELECT count(*) FROM trace_ranks").fetchone() == (2,)


def test_a_bad_row_lands_nothing(ledger, make_trace) -> None:
    good, bad = (summarize_rank(p) for p in _two_files(make_trace))
    broken_gpu = dataclasses.replace(
        bad.gpu, by_category_ns={**bad.gpu.by_category_ns, "computation": 10**9}
    )
    bad = dataclasses.replace(bad, gpu=broken_gpu)
    with pytest.raises(Exception, match="categories within busy time"):
        land_summaries(ledger, [good, bad], [0, 1], hta_compatible=False)
    assert ledger.con.execute("SELECT count(*) FROM trace_ranks").fetchone() == (0,)
    assert ledger.con.execute("SELECT count(*) FROM sources").fetchone() == (0,)

"""Rank discovery, file expansion and the cross-rank totals of combine_ranks."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from trainbudget.base.errors import InputError
from trainbudget.trace.combine import Peak, combine_ranks
from trainbudget.trace.ranks import summarize_files, trace_files


def _rank_trace(make_trace, subdir: str, name: str, rank: int | None, shift: float, step_us: float):
    t = make_trace(subdir)
    t.step(1, 0, step_us)
    t.step(2, step_us, 100)
    t.kernel("gemm", 10 + shift, 20)
    t.kernel("ncclKernel_AllReduce", 20 + shift, 20)
    t.cpu(
        "aten::mm",
        1,
        1,
        **{"Input Dims": [[10, 10], [10, 10]], "Input type": ["c10::BFloat16"] * 2},
    )
    t.memory(1, 1000 + rank if rank is not None else 1)
    return t.write(name, rank=rank)


def test_rank_from_distributed_info_then_file_name_then_zero(make_trace) -> None:
    a = _rank_trace(make_trace, "a", "anything.json", 5, 0, 100)
    b = _rank_trace(make_trace, "b", "job_rank-3.pt.trace.json", None, 0, 100)
    c = _rank_trace(make_trace, "c", "worker0.json", None, 0, 100)
    payload, warnings = combine_ranks(summarize_files([a, b, c], jobs=1), hta_compatible=False)
    assert [(r["rank"], r["rank_from"]) for r in payload["ranks"]] == [
        (0, "default"),
        (3, "file name"),
        (5, "distributedInfo"),
    ]
    assert any("taken as rank 0" in w for w in warnings)


def test_two_files_claiming_one_rank_is_an_error(make_trace) -> None:
    a = _rank_trace(make_trace, "a", "x.json", 1, 0, 100)
    b = _rank_trace(make_trace, "b", "y.json", 1, 0, 100)
    with pytest.raises(InputError, match=r"y\.json: claims rank 1, which .*x\.json already"):
        combine_ranks(summarize_files([a, b], jobs=1), hta_compatible=False)


def test_totals_across_ranks_and_slowest_step(make_trace) -> None:
    a = _rank_trace(make_trace, "a", "r0.json", 0, 0, 100)
    b = _rank_trace(make_trace, "b", "r1.json", 1, 5, 300)
    summaries = summarize_files([a, b], jobs=2)  # two worker processes
    peak = Peak("TEST", "bf16", Fraction(10**12))
    payload, _ = combine_ranks(summaries, hta_compatible=False, peak=peak)
    # Each rank: gemm [10,30) + nccl [20,40) → busy 30 µs, computation 20, communication 20.
    assert payload["gpu_busy_us"] == 60.0
    assert payload["gpu_kernel_us_by_category"] == {
        "computation": 40.0,
        "communication": 40.0,
        "memory": 0.0,
        "other": 0.0,
    }
    assert payload["memory_peak_bytes"] == 1001
    assert payload["steps"] == [
        {"step": 1, "duration_us": 300.0, "slowest_rank": 1},
        {"step": 2, "duration_us": 100.0, "slowest_rank": 0},
    ]
    flops = 2 * 10 * 10 * 10
    assert payload["flops"] == 2 * flops
    # Per rank: FLOPs over the steps' wall time (200 µs and 400 µs); MFU vs 1 TFLOP/s.
    rate0, rate1 = Fraction(flops, 200) * 10**6, Fraction(flops, 400) * 10**6
    assert payload["mfu"] == (rate0 + rate1) / 2 / 10**12
    assert payload["ranks"][1]["comm_comp_overlap_pct"] == pytest.approx(50.0)


def test_folders_expand_to_their_trace_files(tmp_path: Path) -> None:
    folder = tmp_path / "ranks"
    folder.mkdir()
    for name in ("rank1.json.gz", "rank0.json", "notes.txt"):
        (folder / name).write_text("{}")
    assert [p.name for p in trace_files([folder])] == ["rank0.json", "rank1.json.gz"]
    with pytest.raises(InputError, match="no such file or folder"):
        trace_files([tmp_path / "missing"])
    with pytest.raises(InputError, match="given more than once"):
        trace_files([folder, folder / "rank0.json"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="holds no"):
        trace_files([tmp_path / "empty"])

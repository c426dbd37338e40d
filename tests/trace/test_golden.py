"""HTA 0.5.0's own numbers on the real fixtures (tests/golden/trace/*/expected/hta.json).

The golden files were written by bench/hta_golden.py running HTA in a side venv (see
tests/golden/trace/README.md); this test only reads them. Percentages must agree within
0.5 percentage points, with --hta-compatible selection and rounding.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trainbudget.trace.summary import summarize_rank

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "trace"
TOLERANCE_PP = 0.5
CASES = [
    (case.name, rank)
    for case in sorted(GOLDEN.iterdir())
    if (case / "expected" / "hta.json").exists()
    for rank in json.loads((case / "expected" / "hta.json").read_text())["ranks"]
]


def _pct(part: int, whole: int) -> float:
    return 100 * part / whole


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[f"{c}-r{r['rank']}" for c, r in CASES])
def test_matches_hta(case: str, expected: dict, fixtures_dir: Path) -> None:
    s = summarize_rank(fixtures_dir / "traces" / expected["file"], hta_compatible=True)
    span_ns = s.gpu.span_ns
    assert span_ns == expected["kernel_time_us"] * 1000
    assert _pct(s.gpu.idle_ns, span_ns) == pytest.approx(
        expected["idle_time_pctg"], abs=TOLERANCE_PP
    )
    compute = s.gpu.by_category_ns["computation"]
    assert _pct(compute, span_ns) == pytest.approx(expected["compute_time_pctg"], abs=TOLERANCE_PP)
    assert _pct(s.gpu.busy_ns - compute, span_ns) == pytest.approx(
        expected["non_compute_time_pctg"], abs=TOLERANCE_PP
    )
    if expected["comp_comm_overlap_pctg"] is None:
        assert s.gpu.overlap_pct is None
    else:
        assert s.gpu.overlap_pct == pytest.approx(
            expected["comp_comm_overlap_pctg"], abs=TOLERANCE_PP
        )
    # HTA splits kernel time into exclusive regions ("A overlapping B"); a category's union is
    # the sum of the regions it takes part in. Compared as a share of the span.
    kinds = expected["kernel_type_us"]
    for ours, theirs in (
        ("computation", "COMPUTATION"),
        ("communication", "COMMUNICATION"),
        ("memory", "MEMORY"),
    ):
        hta_us = sum(v for k, v in kinds.items() if theirs in k)
        assert _pct(s.gpu.by_category_ns[ours], span_ns) == pytest.approx(
            _pct(hta_us * 1000, span_ns), abs=TOLERANCE_PP
        )


def test_golden_cases_cover_nvidia_amd_and_several_torch_versions() -> None:
    names = {c for c, _ in CASES}
    assert {
        "amd_mi250",
        "tracelens_mi300",
        "kineto_resnet50_nw0",
        "ns_resolution_v100",
        "sampled_2rank_a100",
    } <= names
    assert len(CASES) >= 10

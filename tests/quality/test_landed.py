"""The data-quality gate over what landed: bad lines were quarantined, so it passes."""

from __future__ import annotations

from pathlib import Path

from trainbudget.ledger import Ledger
from trainbudget.quality.landed import check_weekly_inputs
from trainbudget.reconcile.land import land_sacct
from trainbudget.reconcile.week import week_bounds

from ..reconcile.conftest import HEADER, sacct_line

_DAY = "2026-11-24"


def _line(job: str, elapsed_raw: str = "3600", tres: str = "gres/gpu=8", start: str = "00") -> str:
    """One --parsable2 line: 8 GPUs from {start}:00 to 01:00 on 24 November."""
    return sacct_line(
        job, elapsed_raw=elapsed_raw, tres=tres, submit=f"{_DAY}T00:00:00",
        start=f"{_DAY}T{start}:00:00", end=f"{_DAY}T01:00:00",
    )  # fmt: skip


def test_checkpoint_passes_on_what_landed_from_a_file_with_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "sacct.psv"
    lines = [HEADER, _line("1"), _line("2", elapsed_raw="-3600"), _line("3", tres="gres/gpu=-8"),
             _line("4", tres="gres/gpu=1e30"), _line("5", start="02"), _line("6")]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        landed = land_sacct(book, path)
        report = check_weekly_inputs(book, week_bounds("2026-W48"), None, "test")
    assert (landed.rows_landed, landed.rows_quarantined) == (2, 4)
    assert report.success, report.summary()

"""The audit of the main-run forecast against what the reviews measured, line by line."""

from __future__ import annotations

from decimal import Decimal

from trainbudget.reliability.audit import forecast_audit
from trainbudget.reliability.measured import Measured

H = 3600


def _measured(**changes) -> Measured:
    values = dict(
        campaign="c", week="2026-W48", cluster="x", main_gpus=8, ettr=Decimal(128) / 164,
        allocated_gpu_seconds=164 * H, productive_gpu_seconds=128 * H,
        restart_gpu_seconds=4 * H, recomputation_gpu_seconds=16 * H,
        lost_progress_gpu_seconds=16 * H, checkpoint_write_gpu_seconds=0,
        interruptions=1, job_seconds_at_risk=int(20.5 * H), restarts=1,
        restart_median_seconds=1800.0,
    )  # fmt: skip
    values.update(changes)
    return Measured(**values)


FORECAST = {
    "main_gpu_hours": 1000,
    "compute_gpu_hours": 900,
    "ettr": 0.9,
    "mtbf_hours": 25,
    "overhead_gpu_hours": {
        "checkpoint_writes": 20,
        "lost_progress": 50,
        "restarts": 10,
        "spares": 20,
    },
}


def test_lines_are_compared_as_shares_of_the_main_run() -> None:
    rows = {r["line"]: r for r in forecast_audit(FORECAST, _measured())}
    assert rows["ettr"]["forecast"] == Decimal("0.9")
    assert rows["ettr"]["actual"] == Decimal(128) / Decimal(164)
    # 20.5 job hours at risk, one interruption.
    assert rows["mtbf_hours"]["actual"] == Decimal("20.5")
    assert rows["mtbf_hours"]["actual_over_forecast"] == Decimal("20.5") / 25
    # lost progress: 16 of 164 GPU-h measured against 50 of 1,000 forecast.
    assert rows["lost_progress"]["actual"] == Decimal(16) / 164
    assert rows["lost_progress"]["forecast"] == Decimal("0.05")
    assert rows["restarts"]["actual"] == Decimal(4) / 164
    assert rows["recomputation"]["actual"] == Decimal(16) / 164
    # No write_seconds on checkpoint events: not measured, never a zero.
    assert rows["checkpoint_writes"]["actual"] is None
    assert rows["checkpoint_writes"]["actual_over_forecast"] is None


def test_no_interruption_yet_leaves_restarts_unmeasured() -> None:
    quiet = _measured(interruptions=0, restart_gpu_seconds=0, lost_progress_gpu_seconds=0)
    rows = {r["line"]: r for r in forecast_audit(FORECAST, quiet)}
    assert rows["restarts"]["actual"] is None and rows["mtbf_hours"]["actual"] is None

"""Audit each estimated run against what it used (seed 001), and keep the calibration.

For every run id with an estimate in the ledger: predicted against actual runtime and
GPU-hours, retries, recovery and lost overhead, evaluation cost. Completed runs feed the
calibration table (actual ÷ estimate per work class and cluster, with mean, spread and range),
which the estimator reads to offer `mfu_source: calibrated` (estimated MFU ÷ runtime ratio).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from trainbudget.reconcile.variance import gpu_hours

if TYPE_CHECKING:
    from trainbudget.reconcile.session import Session


def audit_estimates(session: Session) -> list[dict[str, Any]]:
    """One audit row per estimated run that has jobs; empty when no estimates were landed."""
    if not session.ledger.has_table("main.run_estimates"):
        return []
    return [
        {
            "run_id": r["run_id"],
            "cluster": r["cluster"],
            "work_class": r["work_class"],
            "completed": r["completed"],
            "estimated_wall_seconds": r["estimated_wall_seconds"],
            "actual_useful_wall_seconds": r["useful_wall_seconds"],
            "runtime_ratio": r["runtime_ratio"],
            "estimated_gpu_hours": r["estimated_gpu_hours"],
            "actual_gpu_hours": gpu_hours(r["training_gpu_seconds"] or 0),
            "gpu_hours_ratio": r["gpu_hours_ratio"],
            "retries": r["retries"],
            "recovery_and_lost_gpu_hours": gpu_hours(r["overhead_gpu_seconds"] or 0),
            "evaluation_gpu_hours": gpu_hours(r["evaluation_gpu_seconds"]),
            "estimated_mfu": r["mfu"],
        }
        for r in session.records("reconcile/calibrate/audit_runs")
    ]


def update_calibration(session: Session, audit: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Store actual ÷ estimate per work class and cluster; return the stored rows."""
    rows = [
        {
            "work_class": a["work_class"],
            "cluster": a["cluster"],
            "completed": bool(a["completed"]),
            "runtime_ratio": a["runtime_ratio"],
            "gpu_hours_ratio": a["gpu_hours_ratio"],
            "mfu": a["estimated_mfu"],
        }
        for a in audit
    ]
    if not any(r["completed"] for r in rows):
        return []
    session.build("audit_ratios")
    session.fill("audit_ratios", rows)
    session.execute("reconcile/calibrate/calibration_upsert", now=datetime.now(UTC))
    return session.ledger.records("reconcile/calibrate/calibration_rows")

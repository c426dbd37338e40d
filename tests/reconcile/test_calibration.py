"""Audit of the estimate (seed 001) and the calibration the estimator reads."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_estimate_audit_and_calibration(cli, tmp_path: Path, campaign) -> None:
    ledger = str(tmp_path / "ledger.duckdb")
    # 6·N·T = 6 · 1e9 · 3.2e10 = 1.92e20 FLOPs on 8 GPUs × 1,000 TFLOP/s × MFU 0.5
    # = 4e15 FLOP/s: 48,000 s predicted.
    estimate = cli("--ledger", ledger, "estimate", "--params", "1e9", "--tokens", "3.2e10",
                   "--gpus", "8", "--gpu-tflops", "1000", "--mfu", "0.5", "--price", "2.40",
                   "--run-id", "exp-main", "--json")  # fmt: skip
    assert estimate.code == 0, estimate.stderr
    assert estimate.json()["wall_seconds"] == pytest.approx(48_000)
    args = ["--ledger", ledger, "reconcile", "--json"]
    for key, path in campaign.items():
        args += [f"--{key}", str(path)]
    out = cli(*args)
    assert out.code == 0, out.stderr
    payload = out.json()
    (audit,) = payload["estimate_audit"]
    # exp-main's training jobs 101 and 102 were useful 8 h each: 57,600 s of runtime.
    assert audit["run_id"] == "exp-main" and audit["completed"] is True
    assert audit["actual_useful_wall_seconds"] == 16 * 3600
    assert audit["runtime_ratio"] == pytest.approx(57_600 / 48_000)
    assert audit["actual_gpu_hours"] == 164  # 80 + 84 allocated
    assert audit["gpu_hours_ratio"] == pytest.approx(164 / (8 * 48_000 / 3600))
    assert audit["retries"] == 1
    assert audit["recovery_and_lost_gpu_hours"] == 36
    assert audit["evaluation_gpu_hours"] == 5  # job 301, evaluation of exp-main
    rows = {(c["work_class"], c["quantity"]): c for c in payload["calibration"]}
    runtime = rows[("main", "runtime")]
    assert runtime["cluster"] == "default" and runtime["runs"] == 1
    assert runtime["ratio_mean"] == pytest.approx(1.2) and runtime["ratio_stddev"] is None
    assert runtime["mfu_calibrated"] == pytest.approx(0.5 / 1.2)
    assert rows[("main", "gpu_hours")]["ratio_mean"] == pytest.approx(164 / (8 * 48_000 / 3600))

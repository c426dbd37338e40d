"""`--no-ledger`: the command prints its answer and leaves no ledger behind."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
RECONCILE = REPO / "examples" / "reconcile"
CASES = {
    "admit": [
        *("admit", "--estimated-gpu-hours", "28", "--budget-gpu-hours", "23"),
        *("--expected-interruptions", "2"),
    ],
    "decide": [
        *("decide", "--params", "7e9", "--tokens", "1e11", "--gpus", "8", "--gpu-tflops"),
        *("312", "--mfu", "0.4", "--price", "1.50", "--gain", "0.05"),
        *("--gain-uncertainty", "0.02", "--min-gain", "0.03"),
    ],
    "stop-rules": ["stop-rules", "--wall-hours", "10", "--spent-usd", "5", "--max-wall-hours", "8"],
    "reconcile": [
        *("reconcile", "--sacct", str(RECONCILE / "sacct.psv"), "--week", "2026-W48"),
        *("--plan", str(REPO / "examples" / "demo-7b.plan.yaml")),
    ],
}


@pytest.mark.parametrize("name", CASES)
def test_no_ledger_writes_nothing_and_the_default_writes(cli, tmp_path: Path, name: str) -> None:
    book = tmp_path / "team.duckdb"
    env = {"TRAINBUDGET_LEDGER": str(book)}
    dry = cli(*CASES[name], "--no-ledger", "--json", cwd=tmp_path, env=env)
    assert dry.code == 0, dry.stderr
    assert list(tmp_path.iterdir()) == []
    if "decision_id" in dry.json():
        assert dry.json()["decision_id"] is None
    real = cli(*CASES[name], "--json", cwd=tmp_path, env=env)
    assert real.code == 0, real.stderr
    assert book.exists()

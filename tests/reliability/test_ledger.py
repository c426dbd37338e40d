"""`mtbf: ledger` and `trainbudget reliability` on the demo's landed history."""

from __future__ import annotations

import csv
import hashlib
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from trainbudget.base.errors import InputError
from trainbudget.demo_data import DEMO_CLUSTER, demo_inputs
from trainbudget.ledger import Ledger
from trainbudget.reliability import ledger_curve
from trainbudget.reliability.measured import latest
from trainbudget.weekly import WeeklyInputs, reconcile

DEMO = demo_inputs()


def _land(path: Path, history: bool) -> Path:
    inputs = WeeklyInputs(
        sacct=[*(DEMO.history if history else ()), *DEMO.sacct],
        registry=DEMO.registry,
        progress=DEMO.progress,
        plan=DEMO.plan,
        week="2026-W47",
        cluster=DEMO_CLUSTER,
    )
    with Ledger.open(path) as book:
        reconcile(book, inputs, None)
    return path


@pytest.fixture(scope="module")
def demo_ledger(tmp_path_factory) -> Path:
    return _land(tmp_path_factory.mktemp("rel") / "ledger.duckdb", history=True)


def _history_counts() -> tuple[int, int]:
    """(allocations, interruptions) of the bundled history file, read here from the sacct text."""
    (path,) = DEMO.history
    with path.open(encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle, delimiter="|") if "." not in r["JobID"]]
    failed = {"NODE_FAIL", "PREEMPTED", "REQUEUED", "BOOT_FAIL"}
    return len(rows), sum(r["State"] in failed for r in rows)


def test_ledger_curve_fits_the_demo_history(demo_ledger: Path) -> None:
    with Ledger.open_existing(demo_ledger) as book:
        curve = ledger_curve(book, None, "demo-1b", bootstrap=300)
    assert curve.source == "ledger" and len(curve.draws) > 250
    # The generator's truth (tools/demo_data/history.py): 40 h × (n / 8)^−0.6.
    exponents = sorted(float(b) for _, b in curve.draws)
    low, high = exponents[int(0.005 * len(exponents))], exponents[-1 - int(0.005 * len(exponents))]
    assert low <= -0.6 <= high
    mtbf_low, mtbf_high = curve.interval_at(8, Decimal("0.99"))
    assert mtbf_low <= 40 <= mtbf_high
    assert "interruptions on cluster demo-cluster" in curve.note


def test_the_review_stored_the_main_runs_measurements(demo_ledger: Path) -> None:
    with Ledger.open_existing(demo_ledger) as book:
        measured = latest(book, "demo-1b")
    assert measured is not None and measured.week == "2026-W47"
    assert measured.cluster == DEMO_CLUSTER and measured.main_gpus == 8
    # Main run (story.py): 2001 REQUEUED after 22.5 h, 2001 TIMEOUT (NCCL hang) after 24 h,
    # retry 2002 completed in 20.5 h; 8 GPUs each.
    assert measured.interruptions == 2
    assert measured.job_seconds_at_risk == (22.5 + 24 + 20.5) * 3600
    # Kept new progress, by the hourly step events: 2001a 08:00-04:00 (20 h), 2001b back past
    # 8,100 at 10:30, kept to the 12,600 checkpoint at 22:30 (12 h), 2002 from 10:30 (19 h).
    assert measured.ettr == Decimal(8 * (20 + 12 + 19)) / Decimal(8 * 67)
    # Restarts: 07:00 → first step 08:30, and 09:00 → 10:30.
    assert measured.restarts == 2 and measured.restart_median_seconds == 5400
    assert Fraction(measured.observed_mtbf_hours) == Fraction(67, 2)


def test_reliability_command_json_is_exact_and_read_only(cli, demo_ledger: Path) -> None:
    before = hashlib.sha256(demo_ledger.read_bytes()).hexdigest()
    result = cli("--ledger", str(demo_ledger), "reliability", "--json", "--bootstrap", "200")
    assert result.code == 0, result.stderr
    assert hashlib.sha256(demo_ledger.read_bytes()).hexdigest() == before
    out = result.json()
    jobs, interruptions = _history_counts()
    # The campaign's 23 allocations that ran (the pending-cancelled one did not) add 2.
    assert out["jobs"] == jobs + 23 and out["interruptions"] == interruptions + 2
    assert sum(r["interruptions"] for r in out["history"]) == out["interruptions"]
    eight = next(r for r in out["history"] if r["gpus"] == 8)
    assert eight["gpu_hours_at_risk"] == 8 * eight["job_hours_at_risk"]
    assert out["fit"]["parameters"] == "floats from the Poisson GLM"
    assert out["fit"]["method"] == "poisson-glm" and out["thin"] is None
    assert out["fleet_prior"]["reference_gpus"] == 1024
    assert out["restarts_measured"] == 2 and out["restart_median_seconds"] == 5400


def test_without_the_history_it_is_too_thin_and_says_so(cli, tmp_path: Path) -> None:
    ledger = _land(tmp_path / "thin.duckdb", history=False)
    with Ledger.open_existing(ledger) as book, pytest.raises(InputError, match="too thin"):
        ledger_curve(book, DEMO_CLUSTER, None)
    result = cli("--ledger", str(ledger), "reliability")
    assert result.code == 0, result.stderr
    assert "No fit: reliability: the failure history of cluster demo-cluster is too thin" in (
        " ".join(result.stdout.split())
    )
    bad = cli("--ledger", str(ledger), "reliability", "--cluster", "nope", "--json")
    assert bad.code == 2 and bad.stdout == ""
    assert bad.stderr.startswith("trainbudget: error: cluster: no scheduler records of cluster")

"""Goodput of the main run: DESIGN.md's worked example (jobs 101/102), worked out by hand."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from trainbudget.ledger import Ledger
from trainbudget.reconcile.goodput import CAUSES, CLASSES
from trainbudget.weekly import WeeklyInputs, reconcile

from .conftest import sacct_line

REPO = Path(__file__).resolve().parents[2]
PLAN = REPO / "examples" / "demo-7b.plan.yaml"


@pytest.fixture
def worked(tmp_path: Path, write_sacct) -> dict[str, Path]:
    """Jobs 101/102 of DESIGN.md, plus: 102's first new step at 12:30 (step 810), a 10-minute
    blocking write on 101's accepted checkpoint, 102 queued 1 h, a pilot that is not main and
    a main job cancelled while pending (it never started)."""
    sacct = write_sacct([
        sacct_line("101", "NODE_FAIL", elapsed_raw="36000", start="2026-11-23T00:00:00",
                   end="2026-11-23T10:00:00"),
        sacct_line("102", elapsed_raw="37800", submit="2026-11-23T11:00:00",
                   start="2026-11-23T12:00:00", end="2026-11-23T22:30:00"),
        sacct_line("201", elapsed_raw="10800", start="2026-11-24T00:00:00",
                   end="2026-11-24T03:00:00", tres="cpu=32,gres/gpu=4"),
        sacct_line("501", "CANCELLED by 1001", elapsed="00:00", elapsed_raw="0",
                   start="None", end="2026-11-25T00:05:00", tres=""),
    ])  # fmt: skip
    registry = tmp_path / "registry.csv"
    registry.write_text(
        "job_id,experiment_id,work_class,code_revision,data_snapshot,result_valid\n"
        "101,exp-main,main,abc,snap1,\n"
        "102,exp-main,main,abc,snap1,true\n"
        "201,exp-pilot,pilot,abc,snap1,true\n"
        "501,exp-main,main,abc,snap1,\n",
        encoding="utf-8",
    )
    events = [
        ("101", "2026-11-23T00:00:00Z", "start", {"resumed_from_step": 0}),
        ("101", "2026-11-23T08:00:00Z", "checkpoint",
         {"step": 800, "accepted": True, "write_seconds": 600}),
        ("101", "2026-11-23T10:00:00Z", "step", {"step": 1000}),
        ("102", "2026-11-23T12:00:00Z", "start", {"resumed_from_step": 800}),
        ("102", "2026-11-23T12:30:00Z", "step", {"step": 810}),
        ("102", "2026-11-23T14:30:00Z", "step", {"step": 1000}),
        ("102", "2026-11-23T22:30:00Z", "step", {"step": 2000}),
        ("102", "2026-11-23T22:30:00Z", "end", {}),
        ("201", "2026-11-24T00:00:00Z", "start", {}),
        ("201", "2026-11-24T03:00:00Z", "end", {}),
    ]  # fmt: skip
    progress = tmp_path / "progress.jsonl"
    progress.write_text(
        "".join(
            json.dumps({"job_id": j, "time": t, "event": e, **x}) + "\n" for j, t, e, x in events
        ),
        encoding="utf-8",
    )
    return {"sacct": sacct, "registry": registry, "progress": progress}


def _review(tmp_path: Path, files: dict[str, Path]):
    inputs = WeeklyInputs(
        sacct=[files["sacct"]],
        registry=files["registry"],
        progress=files["progress"],
        plan=PLAN,
        week="2026-W48",
    )
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        return reconcile(book, inputs, None).review


def test_worked_example_causes_and_ettr(tmp_path: Path, worked) -> None:
    (week,) = _review(tmp_path, worked).goodput
    h = 3600
    # By hand, GPU-seconds (8 GPUs): 101 is 00:00-10:00, 102 is 12:00-22:30; the pilot is not main.
    allocated = 8 * 10 * h + 8 * Fraction(21, 2) * h  # 80 + 84 GPU-h
    restart = 8 * h // 2  # 12:00 → 12:30, the first step beyond 800
    recomputation = 8 * 2 * h  # 12:30 → 14:30, back at 1,000
    lost = 8 * 2 * h  # 101: 08:00 → 10:00 after its last accepted checkpoint
    writes = 8 * 600  # the blocking write ending at 08:00, inside 101's useful stretch
    useful = 8 * 8 * h + 8 * 8 * h  # 101 00:00-08:00, 102 14:30-22:30
    assert week.week == "2026-W48" and week.campaign == "demo-7b"
    assert week.allocated == allocated
    assert week.causes == {
        "restart": restart,
        "recomputation": recomputation,
        "lost_progress": lost,
        "invalid_result": 0,
        "checkpoint_writes": writes,
        "unverified": 0,
    }
    # DESIGN.md: recovery 20 GPU-h, lost 16.
    assert Fraction(restart + recomputation, h) == 20
    assert Fraction(lost, h) == 16
    assert abs(Fraction(week.ettr) - Fraction(useful - writes) / allocated) < Fraction(1, 10**25)
    assert week.queue_wait_seconds == h and week.queue_wait_gpu_seconds == 8 * h
    assert week.jobs_started == 2


def test_causes_sum_back_to_the_four_classes(tmp_path: Path, worked) -> None:
    review = _review(tmp_path, worked)
    (week,) = review.goodput
    assert set(CAUSES.values()) == set(CLASSES)
    main = [j for j in review.tracked if j.job_id in {"101", "102"}]
    expected = {
        "useful": sum(8 * j.split.useful_s for j in main),
        "recovery": sum(8 * j.split.recovery_s for j in main),
        "lost": sum(8 * j.split.lost_s for j in main),
        "unverified": sum(8 * j.split.unverified_s for j in main),
    }
    assert week.by_class() == expected
    assert sum(week.by_class().values()) == week.allocated


def test_reconcile_json_carries_goodput(cli, tmp_path: Path, worked) -> None:
    args = ["--ledger", str(tmp_path / "l.duckdb"), "reconcile"]
    for key, path in worked.items():
        args += [f"--{key}", str(path)]
    result = cli(*args, "--plan", str(PLAN), "--week", "2026-W48", "--json")
    assert result.code == 0, result.stderr
    goodput = result.json()["goodput"]
    assert goodput["campaign"] == "demo-7b"
    (week,) = goodput["weeks"]
    assert week["badput_gpu_hours"]["restart"] == 4
    assert week["badput_gpu_hours"]["recomputation"] == 16
    assert week["badput_gpu_hours"]["lost_progress"] == 16
    assert week["queue_wait_hours"] == 1
    assert week["ettr"] == pytest.approx((128 - 8 * 600 / 3600) / 164)
    assert goodput["total"]["allocated_gpu_hours"] == 164
    # The terminal table shows it too.
    screen = cli(*args, "--plan", str(PLAN), "--week", "2026-W48")
    assert screen.code == 0, screen.stderr
    assert "ETTR" in screen.stdout

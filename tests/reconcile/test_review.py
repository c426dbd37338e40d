"""A small campaign end to end through `trainbudget reconcile`, worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import sacct_line

REPO = Path(__file__).resolve().parents[2]
PLAN = REPO / "examples" / "demo-7b.plan.yaml"


def run(cli, tmp_path: Path, files: dict[str, Path], *extra: str):
    args = ["--ledger", str(tmp_path / "ledger.duckdb"), "reconcile"]
    for key, path in files.items():
        args += [f"--{key}", str(path)]
    return cli(*args, *extra, "--json")


def test_campaign_split_variance_and_diagnosis(cli, tmp_path, campaign) -> None:
    result = run(cli, tmp_path, campaign, "--plan", str(PLAN), "--week", "2026-W48")
    assert result.code == 0, result.stderr
    out = result.json()
    jobs = {j["job_id"]: j for j in out["jobs"]}
    classes = ("allocated", "useful", "recovery", "lost", "unverified")
    split = {k: [j[f"{c}_gpu_hours"] for c in classes] for k, j in jobs.items()}
    assert split == {
        "101": [80, 64, 0, 16, 0],  # DESIGN.md worked example
        "102": [84, 64, 20, 0, 0],  # 12:00-14:30 recovery; +01:00 event is 14:30 UTC
        "201": [12, 12, 0, 0, 0],  # 4 GPUs × 3 h, accepted end
        "301": [5, 5, 0, 0, 0],  # 2 GPUs × 2.5 h
        "401": [1, 0, 0, 0, 1],  # no registry row, no progress
        "501": [0, 0, 0, 0, 0],  # cancelled while pending
    }
    assert jobs["102"]["recovery_caused_by"] == "101"
    assert jobs["401"]["work_class"] == "untracked" and jobs["401"]["experiment_id"] is None
    assert jobs["102"]["job_id_raw"] == "102" and jobs["102"]["name"] == "train"
    assert jobs["102"]["account"] == "proj" and jobs["102"]["elapsed_seconds"] == 37800
    hours = {"allocated": 182, "useful": 145, "recovery": 20, "lost": 16, "unverified": 1}
    assert out["totals"] == {
        **{f"{k}_gpu_hours": h for k, h in hours.items()},
        **{f"{k}_gpu_seconds": h * 3600 for k, h in hours.items()},  # the exact integers
        "jobs": 6,
        # Only 101's AllocTRES carries billing= (billing=8): 8 × 10 h (reconcile/billing.py).
        "allocated_billing_hours": 80,
        "allocated_billing_seconds": 80 * 3600,
    }
    # f = (16 lost + 20 recovery) / (64 + 64 useful) of the main run.
    assert out["failure_fraction"] == pytest.approx(36 / 128)
    variance = out["variance"]
    by_class = {r["work_class"]: r for r in variance["by_work_class"]}
    assert by_class["main"]["actual_gpu_hours"] == 164
    assert by_class["main"]["variance_gpu_hours"] == 164 - 960
    assert by_class["pilot"]["variance_usd"] == pytest.approx((12 - 72) * 2.40)
    assert by_class["untracked"]["planned_gpu_hours"] == 0
    # remaining = pilot 60 + main 796 + evaluation 55 + retry 160
    assert variance["remaining_plan_gpu_hours"] == 60 + 796 + 55 + 160
    assert variance["projected_gpu_hours"] == 182 + 1071
    assert variance["continuation"]["outcome"] == "continue"
    sens = {c["attempts"]: c["gpu_hours"] for c in variance["sensitivity_at_measured_f"]}
    assert sens[1] == pytest.approx(72 + 960 * (1 + 36 / 128) + 60)
    assert sens[2] == pytest.approx(72 + 2 * 960 * (1 + 36 / 128) + 60)
    steps = [f["step"] for f in out["diagnosis"]]
    assert steps == ["allocated-hours", "failed-and-cancelled", "recovered-vs-recomputed",
                     "evaluation-invocations", "retained-artifacts", "double-counts",
                     "idle-allocations", "oversized-evaluation"]  # fmt: skip
    allocated, failures, recovery, evaluation, artifacts, double = out["diagnosis"][:6]
    assert double["probable_double_counts"] == 0
    assert allocated["balanced"] and allocated["untracked_jobs"] == 1
    assert allocated["sum_over_lines_gpu_hours"] == 182 + 80  # the .batch line repeats 101
    groups = {(g["state"], g["exit_code"]): g for g in failures["groups"]}
    assert groups[("NODE_FAIL", "0:0")]["diagnosed_cause"] == "node failure"
    assert groups[("CANCELLED", "0:0")]["cancelled_while_pending"] == 1
    assert groups[("FAILED", "1:0")]["unverified_gpu_hours"] == 1
    (resume,) = recovery["resumes"]
    assert resume == {
        "job_id": "102", "resumed_from_step": 800, "high_water_step": 1000,
        "recomputed_steps": 200, "recovery_gpu_hours": 20, "caused_by_job": "101",
        "caused_by_state": "NODE_FAIL", "resumed_from_accepted_checkpoint": True,
    }  # fmt: skip
    assert (evaluation["jobs_to_date"], evaluation["scheduled_jobs"]) == (1, 12)
    month = 365.25 / 12
    assert artifacts["gb_months"] == pytest.approx(180 * 60 / month + 180 * 365 / month)
    assert artifacts["over_retention"] == 1  # the final kept 12 months against a 2-month plan
    landed = {item["kind"]: item for item in out["landed"]}
    assert landed["progress"]["rows_quarantined"] == 1  # the event without a zone
    assert landed["registry"]["rows_landed"] == 5


def test_rerunning_the_week_changes_nothing(cli, tmp_path, campaign) -> None:
    first = run(cli, tmp_path, campaign, "--week", "2026-W48").json()
    second = run(cli, tmp_path, campaign, "--week", "2026-W48").json()
    assert first["jobs"] == second["jobs"] and first["totals"] == second["totals"]
    assert all(item["already_landed"] for item in second["landed"])
    info = cli("--ledger", str(tmp_path / "ledger.duckdb"), "ledger", "info", "--json").json()
    counts = {t["table"]: t["rows"] for t in info["tables"]}
    assert counts["sacct_rows"] == 7 and counts["progress_events"] == 11


def test_a_later_export_replaces_the_job_not_adds_it(cli, tmp_path, write_sacct) -> None:
    week1 = write_sacct([sacct_line("900", "RUNNING", elapsed_raw="3600", end="Unknown")], "a.psv")
    week2 = write_sacct(
        [sacct_line("900", elapsed_raw="10800", end="2026-11-23T03:00:00")], "b.psv"
    )
    run(cli, tmp_path, {"sacct": week1})
    out = run(cli, tmp_path, {"sacct": week2}).json()
    assert [(j["job_id"], j["state"], j["allocated_gpu_hours"]) for j in out["jobs"]] == [
        ("900", "COMPLETED", 24)
    ]


def test_sacct_alone_reports_unknown_and_unverified(cli, tmp_path, campaign) -> None:
    out = run(cli, tmp_path, {"sacct": campaign["sacct"]}).json()
    assert {j["work_class"] for j in out["jobs"]} == {"unknown"}
    assert out["totals"]["unverified_gpu_hours"] == out["totals"]["allocated_gpu_hours"] == 182
    assert out["variance"] is None
    by = {(b["dimension"], b["value"]): b["allocated_gpu_hours"] for b in out["breakdown"]}
    assert by[("account", "proj")] == 182 and by[("state", "NODE_FAIL")] == 80


def test_bad_input_exits_2_and_writes_nothing(cli, tmp_path, campaign) -> None:
    missing = tmp_path / "nope.jsonl"
    result = run(cli, tmp_path, {"sacct": campaign["sacct"], "progress": missing})
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.strip() == f"trainbudget: error: {missing}: no such file"
    # The failed run wrote nothing: not even the ledger it would have created is left.
    assert not (tmp_path / "ledger.duckdb").exists()
    bad_week = run(cli, tmp_path, {"sacct": campaign["sacct"]}, "--week", "2026-W99")
    assert bad_week.code == 2 and "error: week: 2026 has no week 99" in bad_week.stderr
    assert len(bad_week.stderr.strip().splitlines()) == 1


def test_requeued_earlier_run_is_its_own_allocation(cli, tmp_path, write_sacct) -> None:
    # sacct --duplicates: the requeued first run and the final run share JobID 700 but not
    # their submit time; both occupied GPUs (8 × 0.5 h and 8 × 2 h).
    path = write_sacct([
        sacct_line("700", "REQUEUED", elapsed_raw="1800", submit="2026-11-23T00:00:00",
                   start="2026-11-23T00:00:00", end="2026-11-23T00:30:00"),
        sacct_line("700", elapsed_raw="7200", submit="2026-11-23T00:31:00",
                   start="2026-11-23T00:35:00", end="2026-11-23T02:35:00"),
    ])  # fmt: skip
    out = run(cli, tmp_path, {"sacct": path}).json()
    assert sorted((j["state"], j["allocated_gpu_hours"]) for j in out["jobs"]) == [
        ("COMPLETED", 16), ("REQUEUED", 4)
    ]  # fmt: skip
    assert out["totals"]["allocated_gpu_hours"] == 20


def test_clock_disagreement_keeps_both_figures(cli, tmp_path, write_sacct) -> None:
    sacct = write_sacct([sacct_line("800", elapsed_raw="3600", start="2026-11-23T00:00:00",
                                    end="2026-11-23T01:00:00")])  # fmt: skip
    progress = tmp_path / "p.jsonl"
    progress.write_text(
        '{"job_id": "800", "time": "2026-11-23T00:00:00Z", "event": "start"}\n'
        '{"job_id": "800", "time": "2026-11-23T03:00:00Z", "event": "end"}\n',
        encoding="utf-8",
    )
    out = run(cli, tmp_path, {"sacct": sacct, "progress": progress}).json()
    (job,) = out["jobs"]
    assert "clock-disagreement" in job["flags"]
    assert job["elapsed_seconds"] == 3600 and job["app_elapsed_seconds"] == 3 * 3600
    assert job["allocated_gpu_hours"] == 8  # the allocation stays the scheduler's
    assert out["diagnosis"][0]["clock_disagreements"] == 1


def test_table_output_needs_no_jobs_array(cli, tmp_path, campaign) -> None:
    """Without --json the command skips writing the jobs array but shows the same totals."""
    args = ["--ledger", str(tmp_path / "ledger.duckdb"), "reconcile"]
    for key, path in campaign.items():
        args += [f"--{key}", str(path)]
    result = cli(*args, "--plan", str(PLAN), "--week", "2026-W48")
    assert result.code == 0, result.stderr
    # 80 + 84 + 12 + 5 + 1 + 0 GPU-hours over the six allocations (hand-computed above).
    headline = " ".join(result.stdout.split())
    assert "6 allocations, 182.00 GPU-hours allocated" in headline
    assert "Largest allocations" in result.stdout and "102" in result.stdout

"""The weekly report shows the largest N jobs; jobs.csv beside it holds every job, exactly."""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path

import orjson

from trainbudget.reconcile.job_files import largest_jobs, write_jobs_csv
from trainbudget.report.html import render_html
from trainbudget.report.jobs import TOP_JOBS, JobList, jobs_table
from trainbudget.report.model import Report


def _job(number: int, gpu_seconds: int) -> dict:
    """A job as reconcile/summarize/jobs_copy writes it (hours exact to 12 places)."""
    hours = Decimal(gpu_seconds) / 3600
    return {
        "job_id": str(number), "state": "COMPLETED", "gpus": 8,
        "allocated_gpu_hours": round(hours, 12), "useful_gpu_hours": round(hours, 12),
        "recovery_gpu_hours": 0, "lost_gpu_hours": 0, "unverified_gpu_hours": 0,
        "allocated_gpu_seconds": gpu_seconds, "useful_gpu_seconds": gpu_seconds,
        "recovery_gpu_seconds": 0, "lost_gpu_seconds": 0, "unverified_gpu_seconds": 0,
        "cluster": "c", "name": f"run-{number}", "account": "a", "partition": "gpu",
        "exit_code": "0:0", "elapsed_seconds": gpu_seconds // 8,
        "submit_time": "2026-11-16T07:55:00Z", "start_time": "2026-11-16T08:00:00Z",
        "end_time": "2026-11-16T10:30:00Z", "work_class": "main", "experiment_id": "main-1b",
        "diagnosed_cause": None, "recovery_caused_by": None,
        "flags": ["result-invalid"] if number == 7 else [],
    }  # fmt: skip


def test_top_n_by_allocated_hours_and_the_csv_holds_every_job(tmp_path: Path) -> None:
    # 40 jobs; job k has 21 · k · 8 GPU-seconds (21 s is not a whole number of GPU-hours).
    jobs = [_job(k, 21 * k * 8) for k in range(1, 41)]
    json_path = tmp_path / "jobs.json"
    json_path.write_bytes(orjson.dumps(jobs, default=str))
    csv_path = tmp_path / "jobs.csv"
    write_jobs_csv(json_path, csv_path)
    with csv_path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == len(jobs) == 40
    total = sum(Decimal(r["allocated_gpu_hours"]) for r in rows)
    assert total == sum(round(Decimal(21 * k * 8) / 3600, 12) for k in range(1, 41))
    assert next(r for r in rows if r["job_id"] == "7")["flags"] == "result-invalid"
    largest = largest_jobs(csv_path, TOP_JOBS)
    assert [j["job_id"] for j in largest] == [str(k) for k in range(40, 15, -1)]
    assert largest[0]["allocated_gpu_hours"] == round(Decimal(21 * 40 * 8) / 3600, 12)
    table = jobs_table("2026-W47", JobList(largest, len(rows), "jobs.csv"))
    assert len(table.rows) == TOP_JOBS == 25
    assert table.title == "Jobs of 2026-W47"
    assert table.note.startswith("The 25 largest of 40 jobs. By allocated GPU-hours")
    assert {"Lost", "Unverified", "Recovery", "Allocated GPU-hours"} <= set(table.columns)
    assert "Flags" not in table.columns  # job 7 is not among the largest
    page = render_html(Report("r", "s", tables=[table]))
    assert '<a href="jobs.csv">All 40 jobs as CSV (jobs.csv)</a>' in page
    assert page.count("<tr>") == 1 + 25  # header + the largest, never every job

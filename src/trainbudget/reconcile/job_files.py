"""The week's jobs beside the weekly report: the whole list as jobs.csv and jobs.parquet, and
its largest N.

DuckDB streams the jobs JSON (reconcile.review.write_jobs) into the CSV and reads the top N
back in one top-N scan, on a private in-memory connection (never the ledger), so a
million-job week costs two file scans and no Python objects per job. The report gets only the
N rows (report.jobs.JobList).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from trainbudget.ledger.sql_files import load_sql

CSV_NAME = "jobs.csv"
PARQUET_NAME = "jobs.parquet"


def write_job_files(jobs_json: Path, folder: Path, limit: int) -> list[dict[str, Any]]:
    """Every job of the JSON array `jobs_json` as jobs.csv and jobs.parquet in `folder`;
    return the `limit` largest by allocated GPU-hours (what the report's table shows)."""
    csv = folder / CSV_NAME
    write_jobs_csv(jobs_json, csv)
    write_jobs_parquet(jobs_json, folder / PARQUET_NAME)
    return largest_jobs(csv, limit)


def write_jobs_csv(jobs_json: Path, csv_path: Path) -> None:
    """Write every job of the JSON array `jobs_json` to `csv_path` (header first)."""
    with _connection() as con:
        con.execute(_sql("report/jobs/csv_copy"), {"json": str(jobs_json), "csv": str(csv_path)})


def write_jobs_parquet(jobs_json: Path, parquet_path: Path) -> None:
    """Write every job of the JSON array `jobs_json` to `parquet_path`, every key a column
    (the hours as exact decimals): the same file `reconcile --jobs F.parquet` writes."""
    with _connection() as con:
        con.execute(
            _sql("report/jobs/parquet_copy"), {"json": str(jobs_json), "parquet": str(parquet_path)}
        )


def largest_jobs(csv_path: Path, limit: int) -> list[dict[str, Any]]:
    """The `limit` jobs of `csv_path` with the most allocated GPU-hours, as dicts."""
    with _connection() as con:
        cursor = con.execute(_sql("report/jobs/largest"), {"csv": str(csv_path), "limit": limit})
        columns = [d[0] for d in cursor.description or []]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def _connection() -> Any:
    return duckdb.connect(":memory:", config={"threads": 2, "memory_limit": "512MB"})


def _sql(name: str) -> str:
    return load_sql(name)

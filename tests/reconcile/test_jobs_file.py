"""`reconcile --jobs PATH`: every reviewed job in a Parquet, CSV or JSONL file instead of inline.

Each format read back equals the inline `jobs` array exactly: numbers are compared as the
decimal text the JSON printed (json parse_float=str), so a rounded double would fail. The rest
of the `--json` object is byte-identical, with `jobs_file` and `job_count` in place of `jobs`.
"""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest
from tests.conftest import run_cli
from tests.reconcile.conftest import sacct_line


@pytest.fixture
def inputs(campaign: dict[str, Path], write_sacct) -> list[str]:
    """The campaign, plus a 21-second one-GPU job (0.005833333333 GPU-hours: not a double's
    exact value) whose name holds a comma and quotes (CSV quoting)."""
    line = sacct_line("601", name='eval,"q"', elapsed="00:00:21", elapsed_raw="21",
                      start="2026-11-26T00:00:00", end="2026-11-26T00:00:21",
                      tres="gres/gpu=1")  # fmt: skip
    odd = write_sacct([line], name="odd.psv")
    return [
        "reconcile", "--sacct", str(campaign["sacct"]), "--sacct", str(odd),
        "--registry", str(campaign["registry"]), "--progress", str(campaign["progress"]),
        "--week", "2026-W48", "--json",
    ]  # fmt: skip


def _inline(args: list[str], ledger: Path) -> tuple[str, list[dict[str, Any]]]:
    done = run_cli(*args, "--ledger", str(ledger))
    assert done.code == 0, done.stderr
    head, _, _ = done.stdout.rpartition(',"jobs":[')
    return head, json.loads(done.stdout, parse_float=str)["jobs"]


def _to_file(args: list[str], ledger: Path, path: Path) -> tuple[str, dict[str, Any]]:
    done = run_cli(*args, "--ledger", str(ledger), "--jobs", str(path))
    assert done.code == 0, done.stderr
    body = json.loads(done.stdout)
    head, _, _ = done.stdout.rpartition(',"jobs_file":')
    return head, body


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_each_format_reads_back_as_the_inline_jobs(
    inputs: list[str], tmp_path: Path, suffix: str
) -> None:
    head, jobs = _inline(inputs, tmp_path / "a.duckdb")
    path = tmp_path / f"jobs{suffix}"
    other, body = _to_file(inputs, tmp_path / "b.duckdb", path)
    assert other == head  # everything but the jobs, byte for byte
    assert "jobs" not in body
    assert body["jobs_file"] == str(path)
    assert body["job_count"] == len(jobs) == body["totals"]["jobs"] == 7
    odd = next(j for j in jobs if j["job_id"] == "601")
    assert odd["allocated_gpu_hours"] == "0.005833333333"  # 21 / 3600, half up at 12 places
    assert _READ[suffix](path) == [_as_text(job) for job in jobs]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no partial


def _as_text(job: dict[str, Any]) -> dict[str, Any]:
    """A job with its numbers as text (the JSON literal: a Decimal in fixed point, all its
    places), as the readers below return them."""
    return {k: _text(v) for k, v in job.items()}


def _text(value: Any) -> Any:
    if isinstance(value, Decimal):
        return f"{value:f}"
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _read_parquet(path: Path) -> list[dict[str, Any]]:
    """Parquet rows; the hours come back as Decimal (DECIMAL(38, 12) columns), never floats."""
    rel = duckdb.sql(f"SELECT * FROM read_parquet('{path}')")
    types = dict(zip(rel.columns, map(str, rel.types), strict=True))
    assert types["allocated_gpu_hours"] == "DECIMAL(38,12)"
    assert types["allocated_gpu_seconds"] == "BIGINT"
    rows = [dict(zip(rel.columns, row, strict=True)) for row in rel.fetchall()]
    return [_as_text(row) for row in rows]


def _read_csv(path: Path) -> list[dict[str, Any]]:
    """CSV rows (Python's csv module): NULL is an empty field, flags joined by spaces,
    booleans true/false; so map them back to the JSON's values."""
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    out = []
    for row in rows:
        job: dict[str, Any] = {k: (None if v == "" else v) for k, v in row.items()}
        job["flags"] = row["flags"].split()
        for key in ("from_steps", "result_valid"):
            job[key] = None if job[key] is None else job[key] == "true"
        out.append(job)
    return out


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [_as_text(json.loads(line, parse_float=str)) for line in lines]


_READ = {".parquet": _read_parquet, ".csv": _read_csv, ".jsonl": _read_jsonl}


def test_an_existing_file_is_replaced_whole(inputs: list[str], tmp_path: Path) -> None:
    path = tmp_path / "jobs.jsonl"
    path.write_text("old\n" * 100, encoding="utf-8")
    _, body = _to_file(inputs, tmp_path / "b.duckdb", path)
    assert len(path.read_text(encoding="utf-8").splitlines()) == body["job_count"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("jobs.json", "the suffix names the format: .parquet, .csv or .jsonl (found '.json')"),
        ("jobs", "the suffix names the format: .parquet, .csv or .jsonl (found 'no suffix')"),
        ("missing/jobs.csv", "not a file in an existing folder"),
        ("folder.csv", "not a file in an existing folder"),
    ],
)
def test_other_paths_are_refused_before_anything_is_landed(
    inputs: list[str], tmp_path: Path, name: str, expected: str
) -> None:
    (tmp_path / "folder.csv").mkdir()
    ledger = tmp_path / "ledger.duckdb"
    done = run_cli(*inputs, "--ledger", str(ledger), "--jobs", str(tmp_path / name))
    assert done.code == 2
    assert done.stdout == ""
    assert done.stderr.strip() == f"trainbudget: error: --jobs {tmp_path / name}: {expected}"
    assert not ledger.exists()


def test_the_table_view_writes_the_file_too(inputs: list[str], tmp_path: Path) -> None:
    path = tmp_path / "jobs.parquet"
    args = [a for a in inputs if a != "--json"]
    done = run_cli(*args, "--ledger", str(tmp_path / "b.duckdb"), "--jobs", str(path))
    assert done.code == 0, done.stderr
    assert duckdb.sql(f"SELECT count(*) FROM read_parquet('{path}')").fetchall() == [(7,)]

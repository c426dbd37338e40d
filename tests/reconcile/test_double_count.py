"""One job, one count: a cluster's --parsable2 export and its sacct --json of the same jobs."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from .conftest import HB_FIELDS

FIXTURE = "hb-jobinfo_sacct_snowman.txt"


def _seconds(text: str) -> int:
    """[DD-]HH:MM:SS as seconds."""
    days, _, clock = text.rpartition("-")
    h, m, s = (int(x) for x in clock.split(":"))
    return int(days or 0) * 86400 + h * 3600 + m * 60 + s


def _epoch(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


def _gpu_jobs(fixtures_dir: Path) -> list[dict[str, str]]:
    """The fixture's allocation lines (no step, no array task) that hold GPUs and started."""
    fields = HB_FIELDS.split(",")
    text = (fixtures_dir / "sacct" / FIXTURE).read_text(encoding="utf-8")
    rows = [dict(zip(fields, line.split("☃"), strict=False)) for line in text.splitlines()]
    return [
        r
        for r in rows
        if re.fullmatch(r"\d+", r["JobID"])
        and re.search(r"gres/gpu=\d+", r["AllocTRES"])
        and r["Start"] not in ("None", "Unknown")
    ]


def _as_sacct_json(rows: list[dict[str, str]], cluster: str) -> dict:
    """What `sacct --json` prints for the same jobs (it names its cluster; times in epoch s)."""
    return {"jobs": [
        {"job_id": int(r["JobID"]), "name": r["JobName"], "cluster": cluster,
         "partition": r["Partition"], "state": {"current": [r["State"].split()[0]]},
         "time": {"elapsed": _seconds(r["Elapsed"]), "submission": _epoch(r["Submit"]),
                  "start": _epoch(r["Start"]),
                  "end": _epoch(r["End"]) if r["End"] not in ("None", "Unknown") else 0},
         "tres": {"allocated": [{"type": "gres", "name": "gpu", "count": int(
             re.search(r"gres/gpu=(\d+)", r["AllocTRES"]).group(1))}]}}
        for r in rows
    ]}  # fmt: skip


@pytest.fixture
def exports(fixtures_dir: Path, tmp_path: Path) -> tuple[Path, Path, list[dict[str, str]]]:
    rows = _gpu_jobs(fixtures_dir)
    doc = tmp_path / "snowman.json"
    doc.write_text(json.dumps(_as_sacct_json(rows, "snowman")), encoding="utf-8")
    return fixtures_dir / "sacct" / FIXTURE, doc, rows


def _run(cli, tmp_path: Path, psv: Path, doc: Path, *extra: str):
    return cli(
        "--ledger", str(tmp_path / "l.duckdb"), "reconcile", "--sacct", str(psv),
        "--sacct", str(doc), "--sacct-format", HB_FIELDS, *extra, "--json",
    )  # fmt: skip


def test_text_and_json_of_one_cluster_are_a_probable_double_count(cli, tmp_path, exports):
    psv, doc, rows = exports
    result = _run(cli, tmp_path, psv, doc)
    assert result.code == 0, result.stderr
    out = result.json()
    twice = {r["JobID"] for r in rows}
    assert len(twice) == 9  # the fixture's GPU jobs (test_sacct's hand count)
    flagged = {j["job_id"] for j in out["jobs"] if "probable-double-count" in j["flags"]}
    assert flagged == twice
    assert {j["cluster"] for j in out["jobs"] if j["job_id"] in twice} == {"default", "snowman"}
    (finding,) = [f for f in out["diagnosis"] if f["step"] == "double-counts"]
    assert finding["probable_double_counts"] == 9
    assert {tuple(p["clusters"]) for p in finding["jobs"]} == {("default", "snowman")}
    gpu_seconds = sum(
        _seconds(r["Elapsed"]) * int(re.search(r"gres/gpu=(\d+)", r["AllocTRES"]).group(1))
        for r in rows
    )
    assert finding["excess_gpu_hours"] == pytest.approx(gpu_seconds / 3600)
    assert "--cluster" in finding["summary"]
    warnings = [line for line in result.stderr.splitlines() if "probable double count" in line]
    assert len(warnings) == 1 and "9 jobs" in warnings[0]


def test_the_cluster_named_on_the_text_export_counts_each_job_once(cli, tmp_path, exports):
    psv, doc, rows = exports
    result = _run(cli, tmp_path, psv, doc, "--cluster", "snowman")
    assert result.code == 0, result.stderr
    out = result.json()
    assert not any("probable-double-count" in j["flags"] for j in out["jobs"])
    assert [j["job_id"] for j in out["jobs"]].count(rows[0]["JobID"]) == 1
    assert "probable double count" not in result.stderr
    (finding,) = [f for f in out["diagnosis"] if f["step"] == "double-counts"]
    assert finding["probable_double_counts"] == 0

"""Range checks at the landing for times and sizes (issue 15, item 5): an sacct time, a
progress event or an artifact's creation outside 2000-01-01 .. 2100-01-01, or an artifact over
a petabyte, is quarantined with its reason, and the week's totals keep only the good rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainbudget.reconcile.land import land_manifest, land_progress, land_sacct

from .conftest import sacct_line

WINDOW = "must be from 2000-01-01 to before 2100-01-01, found "
GOOD = sacct_line("500", tres="gres/gpu=8")  # 8 GPUs x 1 h

BAD_TIMES = [
    ("Submit at the epoch", sacct_line("501", submit="1970-01-01T00:00:00", tres="gres/gpu=8"),
     f"Submit: {WINDOW}1970-01-01T00:00:00Z"),
    ("Start in 1999", sacct_line("502", submit="1999-12-31T23:00:00",
                                 start="1999-12-31T23:00:00", tres="gres/gpu=8"),
     f"Submit: {WINDOW}1999-12-31T23:00:00Z"),
    ("End in 2150", sacct_line("503", end="2150-01-01T00:00:00", tres="gres/gpu=8"),
     f"End: {WINDOW}2150-01-01T00:00:00Z"),
    ("Start and End in 2100", sacct_line("504", submit="2026-11-23T00:00:00",
                                         start="2100-01-01T00:00:00", end="2100-01-01T01:00:00",
                                         tres="gres/gpu=8"),
     f"Start: {WINDOW}2100-01-01T00:00:00Z"),
]  # fmt: skip


def _gpu_seconds(ledger) -> int:
    return ledger.con.execute(
        "SELECT coalesce(sum(gpus * elapsed_seconds), 0) FROM sacct_rows"
    ).fetchone()[0]


@pytest.mark.parametrize(("case", "line", "reason"), BAD_TIMES, ids=[c[0] for c in BAD_TIMES])
def test_an_sacct_time_outside_the_window_is_quarantined(ledger, write_sacct, case, line, reason):
    landed = land_sacct(ledger, write_sacct([GOOD, line]))
    assert (landed.rows_landed, landed.rows_quarantined) == (1, 1)
    assert ledger.con.execute("SELECT source_line, reason, raw FROM quarantine").fetchall() == [
        (3, reason, line)
    ]
    assert _gpu_seconds(ledger) == 8 * 3600


def test_an_sacct_json_time_before_the_epoch_is_quarantined(ledger, tmp_path: Path) -> None:
    def job(job_id: int, submit: int) -> dict:
        return {
            "job_id": job_id, "name": "t", "account": "p", "partition": "gpu",
            "state": {"current": ["COMPLETED"]},
            "exit_code": {"status": ["SUCCESS"], "return_code": 0},
            "time": {"elapsed": 3600, "submission": submit, "start": 1795392000,
                     "end": 1795395600},
            "tres": {"allocated": [{"type": "gres", "name": "gpu", "count": 4}]},
        }  # fmt: skip

    path = tmp_path / "sacct.json"
    path.write_text(json.dumps({"jobs": [job(1, 1795392000), job(2, -86400)]}), encoding="utf-8")
    landed = land_sacct(ledger, path)
    assert (landed.rows_landed, landed.rows_quarantined) == (1, 1)
    (reason,) = ledger.con.execute("SELECT reason FROM quarantine").fetchone()
    assert reason == f"Submit: {WINDOW}1969-12-31T00:00:00Z"
    assert _gpu_seconds(ledger) == 4 * 3600


def test_a_progress_event_outside_the_window_is_quarantined(ledger, tmp_path: Path) -> None:
    path = tmp_path / "progress.jsonl"
    path.write_text(
        '{"job_id": "1", "time": "2026-11-23T00:00:00Z", "event": "start"}\n'
        '{"job_id": "1", "time": "1970-01-01T00:00:00Z", "event": "step", "step": 5}\n'
        '{"job_id": "1", "time": "2226-11-23T00:00:00Z", "event": "end"}\n',
        encoding="utf-8",
    )
    landed = land_progress(ledger, path)
    assert (landed.rows_landed, landed.rows_quarantined) == (1, 2)
    assert ledger.con.execute(
        "SELECT source_line, reason FROM quarantine ORDER BY source_line"
    ).fetchall() == [
        (2, f"time: {WINDOW}1970-01-01T00:00:00Z"),
        (3, f"time: {WINDOW}2226-11-23T00:00:00Z"),
    ]


def test_an_absurd_artifact_size_or_creation_is_quarantined(ledger, tmp_path: Path) -> None:
    path = tmp_path / "manifest.csv"
    petabyte = 10**15
    path.write_text(
        "artifact_id,experiment_id,job_id,step,size_bytes,created,role\n"
        f"a,e,1,1,{petabyte},2026-11-23T00:00:00Z,recovery\n"
        f"b,e,1,2,{petabyte + 1},2026-11-23T00:00:00Z,recovery\n"
        "c,e,1,3,5,1999-01-01T00:00:00Z,recovery\n"
        "d,e,1,4,-5,2026-11-23T00:00:00Z,recovery\n",
        encoding="utf-8",
    )
    landed = land_manifest(ledger, path)
    assert (landed.rows_landed, landed.rows_quarantined) == (1, 3)
    reasons = [r for (r,) in ledger.con.execute(
        "SELECT reason FROM quarantine ORDER BY source_line").fetchall()]  # fmt: skip
    assert reasons[0] == f"size_bytes: must be at most {petabyte}, found {petabyte + 1}"
    assert reasons[1] == f"created: {WINDOW}1999-01-01T00:00:00Z"
    assert reasons[2].startswith("size_bytes:")
    assert ledger.con.execute("SELECT sum(size_bytes) FROM manifest").fetchone() == (petabyte,)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(year=st.integers(1, 9999), gpus=st.integers(-(10**7), 10**7))
def test_no_landed_row_makes_the_total_negative_or_leaves_the_window(
    ledger, write_sacct, year: int, gpus: int
) -> None:
    ledger.con.execute("DELETE FROM sources; DELETE FROM sacct_rows; DELETE FROM quarantine")
    when = f"{year:04d}-06-01T00:00:00"
    line = sacct_line("600", submit=when, start=when, end=f"{year:04d}-06-01T01:00:00",
                      tres=f"gres/gpu={gpus}")  # fmt: skip
    landed = land_sacct(ledger, write_sacct([line]))
    assert landed.rows_landed + landed.rows_quarantined == 1
    expected = 2000 <= year < 2100 and 0 <= gpus <= 1_000_000
    assert landed.rows_landed == int(expected)
    assert _gpu_seconds(ledger) == (gpus * 3600 if expected else 0)

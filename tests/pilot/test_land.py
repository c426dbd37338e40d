"""Landing pilot data: provenance, quarantine, idempotence, all-or-nothing."""

from __future__ import annotations

import shutil
from decimal import Decimal

import pytest

from trainbudget.base.errors import InputError
from trainbudget.pilot.land import SOURCE_KIND, land_pilot
from trainbudget.pilot.summary import PilotOptions


def count(ledger, table: str) -> int:
    return dict(ledger.table_counts())[table]


def test_steps_land_with_provenance_and_rejects_are_quarantined(ledger, make_log, row) -> None:
    path = make_log([row(0, 1.0), row(1, -2.0), row(2, 1.5)])
    result = land_pilot(ledger, [path], PilotOptions())
    assert result.landed_files == [path]
    assert result.analysis_landed
    landed = ledger.con.execute(
        "SELECT step, wall_seconds, source_path, source_line, source_sha256 FROM pilot_steps "
        "ORDER BY step"
    ).fetchall()
    assert [(s, w, line) for s, w, _, line, _ in landed] == [(0, 1.0, 2), (2, 1.5, 4)]
    assert {p for _, _, p, _, _ in landed} == {str(path)}
    quarantined = ledger.con.execute(
        "SELECT source_path, source_line, reason FROM quarantine"
    ).fetchall()
    assert quarantined == [(str(path), 3, "wall_seconds: must be greater than 0, found -2.0")]
    source = ledger.con.execute(
        "SELECT kind, rows_landed, rows_quarantined FROM sources"
    ).fetchall()
    assert source == [(SOURCE_KIND, 2, 1)]
    assert count(ledger, "pilot_analyses") == 1
    assert count(ledger, "pilot_buckets") == 1


def test_running_twice_lands_nothing_new(ledger, make_log, row) -> None:
    path = make_log([row(0, 1.0), row(1, 1.0)])
    land_pilot(ledger, [path], PilotOptions())
    before = dict(ledger.table_counts())
    again = land_pilot(ledger, [path], PilotOptions())
    assert again.landed_files == [] and not again.analysis_landed
    assert dict(ledger.table_counts()) == before
    # other options are another analysis of the same (not re-landed) steps
    other = land_pilot(ledger, [path], PilotOptions(params=Decimal("1e9")))
    assert other.analysis_landed
    assert count(ledger, "pilot_steps") == 2
    assert count(ledger, "pilot_analyses") == 2


def test_a_bad_file_among_good_ones_writes_nothing(ledger, make_log, row, tmp_path) -> None:
    good = make_log([row(0, 1.0)])
    bad = tmp_path / "bad.csv"
    bad.write_text("run_id,step\nr1,0\n")
    with pytest.raises(InputError, match=r"bad\.csv: missing column"):
        land_pilot(ledger, [good, bad], PilotOptions())
    assert all(rows == 0 for table, rows in ledger.table_counts() if table != "schema_version")


def test_the_same_step_in_two_files_is_counted_once(ledger, make_log, row) -> None:
    first = make_log([row(0, 1.0), row(1, 1.0)], "a.csv")
    second = make_log([row(1, 9.0), row(2, 1.0)], "b.jsonl")
    result = land_pilot(ledger, [first, second], PilotOptions())
    assert result.summary.steps == 3
    assert result.logs[1].rejected[0].line == 1
    assert "already in" in result.logs[1].rejected[0].reason
    assert count(ledger, "pilot_steps") == 3
    assert count(ledger, "quarantine") == 1


def test_a_copied_file_is_used_once(ledger, make_log, row, tmp_path) -> None:
    first = make_log([row(0, 1.0), row(1, 3.0)])
    copy = tmp_path / "copy.csv"
    shutil.copy(first, copy)
    result = land_pilot(ledger, [first, copy], PilotOptions())
    assert result.summary.steps == 2
    assert result.logs[1].duplicate_of == first
    assert count(ledger, "pilot_steps") == 2


def test_without_a_ledger_nothing_is_written(make_log, row, ledger_path) -> None:
    result = land_pilot(None, [make_log([row(0, 1.0)])], PilotOptions())
    assert result.summary.steps == 1
    assert not ledger_path.exists()


def test_the_estimator_can_read_the_newest_pilot_mfu(ledger, make_log, row) -> None:
    from trainbudget.estimate.catalog import get_accelerator
    from trainbudget.pilot.land import latest_pilot_mfu

    assert latest_pilot_mfu(ledger) is None
    path = make_log([row(0, 2.0, tokens=1_000_000)])
    options = PilotOptions(params=Decimal("1e9"), gpu="A100-80GB")
    land_pilot(ledger, [path], options, get_accelerator("A100-80GB"))
    found = latest_pilot_mfu(ledger, gpu="a100-80gb")
    # 6 * 1e9 * 1e6 / (2 s * 8 GPUs * 312e12) = 6e15 / 4.992e15
    assert found["mfu_source"] == "pilot"
    assert float(found["mfu"]) == pytest.approx(6e15 / 4.992e15, rel=1e-15)
    assert found["gpu"] == "A100-80GB"
    assert latest_pilot_mfu(ledger, gpu="H100-SXM") is None

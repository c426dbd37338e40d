"""Landing bookkeeping (issue 15, item 6): a source with no accepted row is not landed, a
source is its bytes *and* the parse options that change its rows, and an error after a write
keeps nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from trainbudget.base.errors import InputError
from trainbudget.ledger import Ledger
from trainbudget.reconcile.land import land_registry, land_sacct, require_rows
from trainbudget.weekly import WeeklyInputs, reconcile

from .conftest import HEADER, sacct_line

LINES = [sacct_line(str(600 + i), tres="gres/gpu=8") for i in range(8)]  # 8 GPUs x 1 h each
# `sacct --delimiter=,` does not quote AllocTRES, whose commas split it: every line is bad.
SPLIT = [sacct_line(str(600 + i)) for i in range(8)]


def _export(tmp_path: Path, delimiter: str, name: str = "week.csv", lines=LINES) -> Path:
    path = tmp_path / name
    rows = [HEADER, *lines]
    path.write_text("\n".join(r.replace("|", delimiter) for r in rows) + "\n", encoding="utf-8")
    return path


def _dump(ledger_path: Path) -> dict[str, list[tuple]]:
    """Every row of the tables this landing writes, for before/after comparisons."""
    with duckdb.connect(str(ledger_path), read_only=True) as con:
        return {
            t: sorted(con.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
            for t in ("sources", "quarantine", "sacct_rows", "trace_ranks", "trace_steps")
        }


def test_a_wholly_rejected_export_is_not_landed_and_lands_with_the_right_delimiter(
    tmp_path: Path,
) -> None:
    csv = _export(tmp_path, ",")
    split = _export(tmp_path, ",", "split.csv", lines=SPLIT)
    with Ledger.open(tmp_path / "l.duckdb") as book:
        # Read with the wrong delimiter: one field a line, so no header is found, and a
        # headerless file whose rows do not read in the default order is refused whole.
        with pytest.raises(InputError, match=r"line 1: has 1 fields.*--sacct-delimiter"):
            land_sacct(book, csv, delimiter=";")
        assert book.con.execute("SELECT count(*) FROM sources").fetchone() == (0,)
        # A header, and every line splits AllocTRES: quarantined, the source not landed.
        first = land_sacct(book, split, delimiter=",")
        assert (first.rows_landed, first.rows_quarantined, first.rejected) == (0, 8, True)
        (status,) = book.con.execute("SELECT status FROM sources").fetchone()
        assert status == "rejected"
        again = land_sacct(book, split, delimiter=",")  # retried, its quarantine replaced
        assert (again.already_landed, again.rows_quarantined) == (False, 8)
        assert book.con.execute("SELECT count(*) FROM quarantine").fetchone() == (8,)
        right = land_sacct(book, csv, delimiter=",")
        assert (right.rows_landed, right.rows_quarantined, right.already_landed) == (8, 0, False)
        assert land_sacct(book, csv, delimiter=",").already_landed
        statuses = book.con.execute("SELECT status FROM sources ORDER BY source_id").fetchall()
        assert statuses == [("rejected",), ("landed",)]
        assert book.con.execute("SELECT count(*) FROM sacct_rows").fetchone() == (8,)


@pytest.mark.parametrize(
    ("options", "new"),
    [
        ({}, False),
        ({"cluster": "default", "cluster_tz": "UTC"}, False),  # the defaults: the same source
        ({"cluster": "gpu-a"}, True),
        ({"cluster_tz": "Europe/Berlin"}, True),
        ({"delimiter": "|"}, True),
    ],
)
def test_the_same_bytes_with_other_options_are_another_source(
    tmp_path: Path, options: dict, new: bool
) -> None:
    psv = _export(tmp_path, "|", "week.psv")
    with Ledger.open(tmp_path / "l.duckdb") as book:
        assert land_sacct(book, psv).rows_landed == 8
        again = land_sacct(book, psv, **options)
        assert again.already_landed is not new
        assert again.rows_landed == (8 if new else 0)
        (sources,) = book.con.execute("SELECT count(*) FROM sources").fetchone()
        assert sources == (2 if new else 1)


def test_nothing_landed_from_any_input_is_exit_2_naming_the_file(tmp_path: Path) -> None:
    csv = _export(tmp_path, ",", lines=SPLIT)
    ledger_path = tmp_path / "l.duckdb"
    Ledger.open(ledger_path).close()
    before = _dump(ledger_path)
    inputs = WeeklyInputs(sacct=[csv], week="2026-W48")
    with Ledger.open(ledger_path) as book, pytest.raises(InputError) as caught:
        reconcile(book, inputs, None)
    message = str(caught.value)
    assert message.startswith(f"{csv}: nothing landed: all 8 rows quarantined (line 2: ")
    assert "--sacct-delimiter" in message
    assert _dump(ledger_path) == before  # the error rolled the quarantine back too


def test_a_rejected_file_beside_a_good_one_is_reported_and_kept_in_quarantine(
    tmp_path: Path,
) -> None:
    csv = _export(tmp_path, ",", lines=SPLIT)
    good = tmp_path / "good.psv"
    good.write_text(f"{HEADER}\n{sacct_line('700')}\n", encoding="utf-8")
    inputs = WeeklyInputs(sacct=[good, csv], week="2026-W48")
    with Ledger.open(tmp_path / "l.duckdb") as book:
        result = reconcile(book, inputs, None)
        rows = book.con.execute("SELECT source_path, status FROM sources ORDER BY 1").fetchall()
        (kept,) = book.con.execute("SELECT count(*) FROM quarantine").fetchone()
    assert rows == [(str(good), "landed"), (str(csv), "rejected")]
    assert kept == 8
    assert any(
        w.startswith(f"{csv}: nothing landed: 8 rows quarantined, so it is not marked landed")
        for w in result.warnings
    )


def test_require_rows_accepts_a_rerun_and_refuses_an_empty_registry(tmp_path: Path) -> None:
    registry = tmp_path / "registry.csv"
    registry.write_text("job_id,experiment_id,work_class\n", encoding="utf-8")
    with Ledger.open(tmp_path / "l.duckdb") as book:
        empty = land_registry(book, registry)
        with pytest.raises(InputError, match=r"registry.csv: nothing landed: no rows in it$"):
            require_rows([empty])
        require_rows([])


def _trace_cli(args: list[str], stdout) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trainbudget", *args],
        stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.parametrize("as_json", [True, False])
def test_trace_output_failing_after_the_commit_keeps_the_landing(
    fixtures_dir: Path, tmp_path: Path, as_json: bool
) -> None:
    """Commit, then print (issue 23, deliverable 4): stdout on a full disk is exit 1, but the
    two ranks were landed before the first byte was written, and landing again adds nothing."""
    folder = fixtures_dir / "traces" / "hta_sampled_2rank_a100"
    ledger_path = tmp_path / "l.duckdb"
    Ledger.open(ledger_path).close()
    args = ["trace", str(folder), "--ledger", str(ledger_path), *(["--json"] if as_json else [])]
    with open("/dev/full", "w") as full:
        failed = _trace_cli(args, full)
    assert failed.returncode == 1
    assert "committed before printing" in failed.stderr
    landed = _dump(ledger_path)
    assert len(landed["trace_ranks"]) == 2  # the folder's two rank files
    again = _trace_cli(args, subprocess.PIPE)
    assert again.returncode == 0, again.stderr
    assert _dump(ledger_path) == landed


def test_reconcile_on_a_wholly_rejected_export_exits_2_with_one_line(cli, tmp_path: Path) -> None:
    csv = _export(tmp_path, ",", lines=SPLIT)
    ledger_path = tmp_path / "l.duckdb"
    result = cli("reconcile", "--sacct", str(csv), "--week", "2026-W48", "--ledger",
                 str(ledger_path), "--json")  # fmt: skip
    assert (result.code, result.stdout) == (2, "")
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"trainbudget: error: {csv}: nothing landed: all 8 rows quarantined")
    # With the delimiter it was written with, every job lands (8 GPUs x 1 h each).
    fixed = _export(tmp_path, ",", "fixed.csv")
    ok = cli("reconcile", "--sacct", str(fixed), "--sacct-delimiter", ",", "--week", "2026-W48",
             "--ledger", str(ledger_path), "--json")  # fmt: skip
    assert ok.code == 0, ok.stderr
    assert ok.json()["totals"]["allocated_gpu_hours"] == 8 * 8

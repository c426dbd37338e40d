"""The same behaviour on both stores: landing and re-landing through the CLI, quarantine,
idempotent decisions, `ledger maintain`, and a file ledger moved to the team ledger and back
(`ledger export` / `ledger import`) with identical tables."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal as D
from pathlib import Path

from trainbudget.gates.campaign import continue_main_run
from trainbudget.ledger import Ledger
from trainbudget.ledger.decisions import list_decisions, record_decision

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "src" / "trainbudget" / "demo_data"


def _tb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trainbudget", *args], capture_output=True, text=True
    )


def _reconcile(ledger: str, week: int, sacct: Path | None = None) -> dict:
    done = _tb(
        "--ledger", ledger, "reconcile", "--json", "--week", f"2026-W{week}",
        "--sacct", str(sacct or DEMO / "sacct" / f"sacct-2026-W{week}.psv"),
        "--registry", str(DEMO / "registry.csv"), "--progress", str(DEMO / "progress.jsonl"),
        "--manifest", str(DEMO / "manifest.csv"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n{") == 0  # one JSON object, printed once
    return json.loads(done.stdout)


def _counts(ledger: str) -> dict[str, int]:
    with Ledger.open_existing(ledger) as book:
        return dict(book.table_counts())


def test_relanding_is_a_no_op_and_quarantine_keeps_the_line(store_ledger: str, tmp_path):
    first = _reconcile(store_ledger, 45)
    counts = _counts(store_ledger)
    again = _reconcile(store_ledger, 45)
    assert _counts(store_ledger) == counts
    assert again["totals"] == first["totals"]
    # What the GPUs did lands on both stores: 1001.batch's TRESUsageInTot gres/gpuutil=288
    # over its 4 GPUs (Slurm 24.05.1+ sums them) is 72 % a GPU; re-landing adds no row.
    assert {j["job_id"]: j["gpu_util_pct"] for j in first["jobs"]}["1001"] == 288 / 4
    assert counts["gpu_usage"] > 0
    lines = (DEMO / "sacct" / "sacct-2026-W46.psv").read_text().splitlines()
    bad = tmp_path / "bad.psv"
    # The second data line's state is no Slurm state: quarantined with its line number (3).
    fields = lines[2].split("|")
    header = lines[0].split("|")
    fields[header.index("State")] = "EXPLODED"
    bad.write_text("\n".join([lines[0], lines[1], "|".join(fields), *lines[3:]]) + "\n")
    _reconcile(store_ledger, 46, bad)
    with Ledger.open_existing(store_ledger) as book:
        rows = book.con.execute("SELECT source_line, reason FROM quarantine").fetchall()
    assert [line for line, _ in rows] == [3]


def test_the_same_decision_twice_is_one_row(ledger) -> None:
    outcome = continue_main_run(D(600), D(652), D(2000))
    first = record_decision(ledger, outcome, campaign_id="c", run_id="r")
    assert record_decision(ledger, outcome, campaign_id="c", run_id="r") == first
    record_decision(ledger, outcome, campaign_id="d", run_id="r")
    assert len(list_decisions(ledger)) == 2


def test_maintain_says_what_it_did(store_ledger: str) -> None:
    _reconcile(store_ledger, 45)
    done = _tb("--ledger", store_ledger, "ledger", "maintain", "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    if store_ledger.startswith("ducklake:"):
        assert payload["store"] == "team"
        steps = [s["step"] for s in payload["steps"]]
        assert steps == ["flush_inlined", "merge_files", "expire_snapshots", "cleanup_files",
                         "delete_orphans"]  # fmt: skip
    else:
        assert payload == {"ledger": store_ledger, "store": "file", "steps": [
            {"step": "checkpoint", "what": "write-ahead log folded into the file",
             "count": None, "skipped": None}]}  # fmt: skip
    # Maintenance changes no row.
    assert _reconcile(store_ledger, 45)["totals"] == _reconcile(store_ledger, 45)["totals"]


def _tables(ledger: str) -> dict[str, list[tuple]]:
    """Every table's rows in a canonical order (schema_version aside: migration times)."""
    with Ledger.open_existing(ledger) as book:
        names = [t for t, _ in book.table_counts() if t != "schema_version"]
        return {
            t: sorted(book.con.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr) for t in names
        }


def test_file_to_team_and_back_gives_identical_tables(new_team_ledger, tmp_path) -> None:
    file = str(tmp_path / "file.duckdb")
    for week in (45, 46):
        _reconcile(file, week)
    out = tmp_path / "export"
    assert _tb("--ledger", file, "ledger", "export", str(out)).returncode == 0
    team = new_team_ledger()
    done = _tb("--ledger", team, "ledger", "import", str(out), "--json")
    assert done.returncode == 0, done.stderr
    assert _tables(team) == _tables(file)
    back_out = tmp_path / "export-back"
    assert _tb("--ledger", team, "ledger", "export", str(back_out)).returncode == 0
    back = str(tmp_path / "back.duckdb")
    assert _tb("--ledger", back, "ledger", "import", str(back_out)).returncode == 0
    assert _tables(back) == _tables(file)
    # The team ledger's ids continue past the imported ones; a second import is refused.
    _reconcile(team, 47)
    with Ledger.open_existing(team) as book:
        ids = [r[0] for r in book.con.execute("SELECT source_id FROM sources").fetchall()]
    assert len(ids) == len(set(ids))
    again = _tb("--ledger", team, "ledger", "import", str(out))
    assert again.returncode == 2 and "already holds rows" in again.stderr

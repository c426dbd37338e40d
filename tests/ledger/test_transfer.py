"""`ledger export` / `ledger import`: Parquet by ISO week, read back row for row."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from trainbudget.base.errors import InputError
from trainbudget.ledger import Ledger
from trainbudget.ledger.transfer import MANIFEST, export_ledger, import_ledger

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "src" / "trainbudget" / "demo_data"
FIXTURES = ROOT / "tests" / "fixtures" / "traces"
BIG_FLOPS = 10**30 + 7  # beyond a double's 53 bits: a lossy copy would change it


@pytest.fixture
def landed(tmp_path: Path, cli) -> Path:
    """A ledger with three real weeks landed through the CLI, plus one exact HUGEINT."""
    path = tmp_path / "source.duckdb"
    for week in (45, 46, 47):
        result = cli(
            "reconcile", "--ledger", str(path), "--json",
            "--sacct", str(DEMO / "sacct" / f"sacct-2026-W{week}.psv"),
            "--registry", str(DEMO / "registry.csv"),
            "--progress", str(DEMO / "progress.jsonl"),
            "--manifest", str(DEMO / "manifest.csv"),
        )  # fmt: skip
        assert result.code == 0, result.stderr
    trace = FIXTURES / "hta_ns_resolution_v100" / "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
    result = cli("trace", str(trace), "--ledger", str(path), "--json")
    assert result.code == 0, result.stderr
    with Ledger.open(path) as book:
        book.con.execute("UPDATE trace_ranks SET flops = $f", {"f": BIG_FLOPS})
    return path


def _differences(left: Path, right: Path) -> dict[str, tuple[int, int]]:
    con = duckdb.connect()
    con.execute(f"ATTACH '{left}' AS a (READ_ONLY)")
    con.execute(f"ATTACH '{right}' AS b (READ_ONLY)")
    tables = [
        r[0]
        for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = 'a' "
            "AND table_name <> 'schema_version'"
        ).fetchall()
    ]
    found = {}
    for t in tables:
        ab = con.execute(f'SELECT count(*) FROM (FROM a."{t}" EXCEPT ALL FROM b."{t}")').fetchone()
        ba = con.execute(f'SELECT count(*) FROM (FROM b."{t}" EXCEPT ALL FROM a."{t}")').fetchone()
        if ab[0] or ba[0]:
            found[t] = (ab[0], ba[0])
    return found


def test_round_trip_is_identical(landed: Path, tmp_path: Path):
    folder = tmp_path / "export [weekly]*"  # pattern characters are plain characters
    with Ledger.open_existing(landed) as book:
        exported = export_ledger(book, folder)
        sacct_weeks = {
            r[0]
            for r in book.con.execute(
                "SELECT DISTINCT strftime(start_time AT TIME ZONE 'UTC', '%G-W%V') "
                "FROM sacct_rows WHERE start_time IS NOT NULL"
            ).fetchall()
        }
    on_disk = {p.name for p in (folder / "sacct_rows").iterdir()}
    assert on_disk >= {f"week={w}" for w in sacct_weeks} and len(sacct_weeks) >= 3
    restored = tmp_path / "restored.duckdb"
    import_ledger(folder, restored)
    assert _differences(landed, restored) == {}
    with Ledger.open_existing(restored) as book:
        assert book.con.execute("SELECT flops FROM trace_ranks").fetchone()[0] == BIG_FLOPS
    counts = {t.table: t.rows for t in exported.tables}
    assert counts["sacct_rows"] > 0 and counts["progress_events"] > 0


def test_new_rows_after_import_get_fresh_ids(landed: Path, tmp_path: Path):
    with Ledger.open_existing(landed) as book:
        highest = book.con.execute("SELECT max(source_id) FROM sources").fetchone()[0]
        export_ledger(book, tmp_path / "out")
    restored = tmp_path / "restored.duckdb"
    import_ledger(tmp_path / "out", restored)
    with Ledger.open(restored) as book, book.transaction():
        source = book.begin_source(DEMO / "ablations.csv", "ablations")
    assert source is not None and source.source_id == highest + 1


def test_cli_round_trip_and_json(landed: Path, tmp_path: Path, cli):
    out = tmp_path / "out"
    exported = cli("ledger", "export", str(out), "--ledger", str(landed), "--json")
    assert exported.code == 0, exported.stderr
    payload = json.loads(exported.stdout)
    manifest = json.loads((out / MANIFEST).read_text())
    assert payload["tables"] == manifest["tables"]
    imported = cli("ledger", "import", str(out), "--ledger", str(tmp_path / "r.duckdb"), "--json")
    assert imported.code == 0, imported.stderr
    assert json.loads(imported.stdout)["tables"] == manifest["tables"]


@pytest.mark.parametrize(
    "case", ["non-empty folder", "existing ledger", "bad manifest", "missing rows"]
)
def test_refusals_write_nothing(case: str, landed: Path, tmp_path: Path, cli):
    out = tmp_path / "out"
    with Ledger.open_existing(landed) as book:
        export_ledger(book, out)
    target = tmp_path / "new.duckdb"
    if case == "non-empty folder":
        args = ["ledger", "export", str(out), "--ledger", str(landed)]
        target = None
    elif case == "existing ledger":
        target = landed
        args = ["ledger", "import", str(out), "--ledger", str(landed)]
    elif case == "bad manifest":
        (out / MANIFEST).write_text("{not json")
        args = ["ledger", "import", str(out), "--ledger", str(target)]
    else:
        for part in (out / "sacct_rows").rglob("*.parquet"):
            part.unlink()
            break
        args = ["ledger", "import", str(out), "--ledger", str(target)]
    before = landed.read_bytes()
    result = cli(*args)
    assert result.code == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "error" in result.stderr
    assert landed.read_bytes() == before
    if target is not None and target != landed:
        assert not target.exists()


def test_manifest_newer_than_this_version_is_refused(landed: Path, tmp_path: Path):
    with Ledger.open_existing(landed) as book:
        export_ledger(book, tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / MANIFEST).read_text())
    manifest["schema_version"] += 1
    (tmp_path / "out" / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="newer than"):
        import_ledger(tmp_path / "out", tmp_path / "r.duckdb")


def test_an_export_from_before_migration_018_gets_its_run_end_times(
    landed: Path, tmp_path: Path
) -> None:
    """An export written before sacct_rows.run_end_time existed (simulated: its Parquet
    rewritten without the column) imports with the column derived, as 018 derives it."""
    with Ledger.open_existing(landed) as book:
        export_ledger(book, tmp_path / "out")
        expected = book.con.execute(
            "SELECT count(*), count(run_end_time), "
            "count(*) FILTER (WHERE run_end_time = coalesce(start_time, submit_time) "
            "+ to_seconds(elapsed_seconds)) FROM sacct_rows"
        ).fetchone()
    con = duckdb.connect()
    for part in (tmp_path / "out" / "sacct_rows").rglob("*.parquet"):
        con.execute(
            f"COPY (SELECT * EXCLUDE (run_end_time) FROM read_parquet('{part}')) "
            f"TO '{part}.old' (FORMAT parquet)"
        )
        Path(f"{part}.old").replace(part)
    restored = tmp_path / "restored.duckdb"
    import_ledger(tmp_path / "out", restored)
    assert _differences(landed, restored) == {}
    assert expected[0] > 0 and expected[0] == expected[1] == expected[2]

"""The ledger: migrations once, transactions all-or-nothing, idempotent landing, locking."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from trainbudget.base.errors import InputError, LedgerBusyError
from trainbudget.ledger import Ledger, migrations, resolve_ledger_path
from trainbudget.plan import land_plan

REPO_ROOT = Path(__file__).resolve().parents[2]
PLAN = REPO_ROOT / "examples" / "demo-7b.plan.yaml"


def test_migrations_apply_once(ledger_path: Path) -> None:
    expected = [v for v, _, _ in migrations()]
    with Ledger.open(ledger_path, migrate=False) as book:
        assert book.migrate() == expected
        assert book.migrate() == []
    with Ledger.open(ledger_path) as book:  # reopening migrates nothing either
        assert book.applied_versions() == expected
        assert book.migrate() == []
        rows = book.con.execute("SELECT count(*) FROM schema_version").fetchone()[0]
        assert rows == len(expected)


def test_migration_008_keeps_landed_sacct_rows(ledger_path: Path) -> None:
    """A ledger landed under 007 keeps its sacct rows; the dropped columns read back through
    sacct_records as 007 stored them."""
    source = {"source_path": "week.psv", "source_sha256": "ab" * 32}
    stored = {  # what 007 stored for an array task's batch step and a het job component
        ("9_1", "batch"): {"array_job_id": "9", "array_task": "1", "het_job_id": None,
                           "het_offset": None, "state_text": "CANCELLED by 40123",
                           "cancelled_by": "40123"},
        ("123+1", None): {"array_job_id": None, "array_task": None, "het_job_id": "123",
                          "het_offset": 1, "state_text": "COMPLETED", "cancelled_by": None},
    }  # fmt: skip
    with Ledger.open(ledger_path, migrate=False) as book:
        book.applied_versions()
        for version, name, sql in migrations():
            if version <= 7:
                book.con.execute(sql)
                book.con.execute("INSERT INTO schema_version VALUES (?, ?, now())", [version, name])
        landed_at = book.con.execute(
            "INSERT INTO sources (kind, source_path, source_sha256, size_bytes, landed_at) "
            "VALUES ('sacct', $source_path, $source_sha256, 10, now()) RETURNING landed_at",
            source,
        ).fetchone()[0]
        for line, ((job_id, step), derived) in enumerate(stored.items(), start=2):
            book.con.execute(
                "INSERT INTO sacct_rows (cluster, job_id, step, job_id_raw, array_job_id,"
                " array_task, het_job_id, het_offset, state, state_text, cancelled_by,"
                " elapsed_seconds, gpus, source_id, source_path, source_line, source_sha256,"
                " landed_at) VALUES ('c', $job_id, $step, '12', $array_job_id, $array_task,"
                " $het_job_id, $het_offset, split_part($state_text, ' ', 1), $state_text,"
                " $cancelled_by, 60, 8, 1, $source_path, $line, $source_sha256, $landed_at)",
                {**derived, **source, "job_id": job_id, "step": step, "line": line,
                 "landed_at": landed_at},
            )  # fmt: skip
        assert book.migrate()[0] == 8  # 008 first; later migrations follow
        cursor = book.con.execute("SELECT * FROM sacct_records ORDER BY source_line")
        names = [d[0] for d in cursor.description]
        got = [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]
    assert len(got) == len(stored)
    for row, ((job_id, step), derived) in zip(got, stored.items(), strict=True):
        assert (row["job_id"], row["step"]) == (job_id, step)
        assert {k: row[k] for k in derived} == derived
        assert {k: row[k] for k in source} == source
        assert row["landed_at"] == landed_at


def test_exception_inside_transaction_leaves_no_rows(ledger: Ledger) -> None:
    with pytest.raises(RuntimeError, match="boom"), ledger.transaction():
        source = ledger.begin_source(PLAN, "plan")
        assert source is not None
        ledger.quarantine_rows(source, [(3, "raw", "testing")])
        raise RuntimeError("boom")
    counts = dict(ledger.table_counts())
    assert counts["sources"] == 0
    assert counts["quarantine"] == 0


def test_landing_the_same_file_twice_is_a_no_op(ledger: Ledger, tmp_path: Path) -> None:
    land_plan(ledger, PLAN)
    first = dict(ledger.table_counts())
    copy = tmp_path / "same-content.yaml"
    copy.write_bytes(PLAN.read_bytes())  # same bytes under another name: still the same input
    land_plan(ledger, copy)
    land_plan(ledger, PLAN)
    assert dict(ledger.table_counts()) == first
    assert first["plans"] == 1 and first["sources"] == 1
    source_path, sha = ledger.con.execute("SELECT source_path, source_sha256 FROM plans").fetchone()
    assert source_path == str(PLAN)
    import hashlib

    assert sha == hashlib.sha256(PLAN.read_bytes()).hexdigest()


def test_changed_file_lands_again(ledger: Ledger, tmp_path: Path) -> None:
    changed = tmp_path / "plan.yaml"
    changed.write_text(PLAN.read_text().replace("gpu_hours: 2000", "gpu_hours: 2500"))
    land_plan(ledger, PLAN)
    land_plan(ledger, changed)
    assert dict(ledger.table_counts())["plans"] == 2
    (plan_json,) = ledger.query("ledger/latest_plan", campaign="demo-7b")[0][:1]
    assert '"gpu_hours":"2500"' in plan_json.replace(" ", "")


def test_quarantine_keeps_reason_and_line(ledger: Ledger) -> None:
    with ledger.transaction():
        source = ledger.begin_source(PLAN, "plan")
        ledger.quarantine_rows(source, [(7, "main: {gpus: -8}", "main.gpus: must be positive")])
        ledger.finish_source(source, 0)
    row = ledger.con.execute("SELECT source_line, raw, reason FROM quarantine").fetchone()
    assert row == (7, "main: {gpus: -8}", "main.gpus: must be positive")
    assert ledger.con.execute("SELECT rows_quarantined FROM sources").fetchone()[0] == 1


def test_second_writer_gets_a_clear_error(ledger_path: Path) -> None:
    Ledger.open(ledger_path).close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys, time, duckdb
                con = duckdb.connect({str(ledger_path)!r})
                print("locked", flush=True)
                sys.stdin.read()
                """
            ),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(LedgerBusyError, match=r"is in use by another process"):
            Ledger.open(ledger_path, wait_s=0)
        proc = subprocess.run(
            [sys.executable, "-m", "trainbudget", "--ledger", str(ledger_path), "ledger", "info"],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 1  # the environment, not the input: exit 1
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1
        assert f"ledger {ledger_path} is in use by another process" in lines[0]
    finally:
        holder.communicate("")
    with Ledger.open(ledger_path) as book:  # still a good file afterwards
        assert "sources" in dict(book.table_counts())


def _hold_for(ledger_path: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process that holds the ledger for `seconds`, then exits; returns once it holds."""
    code = (
        "import sys, time, duckdb; con = duckdb.connect(sys.argv[1]); print('locked', flush=True);"
        f" time.sleep({seconds}); con.close()"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(ledger_path)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout.readline().strip() == "locked"
    return holder


def _cli_reconcile(ledger_path: Path, sacct: Path, wait: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "trainbudget", "reconcile", "--ledger", str(ledger_path),
            "--sacct", str(sacct), "--wait", wait, "--json"]  # fmt: skip
    return subprocess.run(argv, capture_output=True, text=True)


def test_a_cli_writer_waits_for_the_ledger(ledger_path: Path, tmp_path: Path) -> None:
    Ledger.open(ledger_path).close()
    sacct = tmp_path / "week.psv"
    sacct.write_text(
        "JobID|JobIDRaw|JobName|Account|Partition|State|ExitCode|Elapsed|ElapsedRaw|Submit|Start|"
        "End|AllocTRES|ReqTRES|NNodes|AllocCPUS|TRESUsageInTot\n"
        "501|501|train|proj|gpu|COMPLETED|0:0|01:00:00|3600|2026-11-23T00:00:00|"
        "2026-11-23T00:00:00|2026-11-23T01:00:00|gres/gpu=8|gres/gpu=8|1|64|\n",
        encoding="utf-8",
    )
    # Held for 4 s: the refused run starts (about 1 s) well inside it; the waiting one outlasts it.
    holder = _hold_for(ledger_path, 4)
    try:
        refused = _cli_reconcile(ledger_path, sacct, "0")
        waited = _cli_reconcile(ledger_path, sacct, "10")
    finally:
        holder.wait(timeout=30)
    assert refused.returncode == 1 and refused.stdout == ""
    (line,) = refused.stderr.strip().splitlines()
    assert (
        line == f"trainbudget: error: ledger {ledger_path} is in use by another process; "
        "try again when it has finished"
    )
    assert waited.returncode == 0, waited.stderr
    assert [job["job_id"] for job in json.loads(waited.stdout)["jobs"]] == ["501"]


def test_a_non_duckdb_file_is_a_clear_error(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.duckdb"
    bogus.write_text("this is not a database\n" * 100)
    with pytest.raises(InputError, match=str(bogus)):
        Ledger.open(bogus)


def test_location_option_then_env_then_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAINBUDGET_LEDGER", "/tmp/from-env.duckdb")
    assert resolve_ledger_path("/tmp/opt.duckdb") == Path("/tmp/opt.duckdb")
    assert resolve_ledger_path(None) == Path("/tmp/from-env.duckdb")
    monkeypatch.delenv("TRAINBUDGET_LEDGER")
    assert resolve_ledger_path(None) == Path("trainbudget.duckdb")


def test_named_sql_takes_parameters_not_formatting(ledger: Ledger) -> None:
    hostile = "x'); DROP TABLE sources; --"
    assert (
        ledger.query(
            "ledger/find_source", kind=hostile, source_sha256=hostile, parse_options=hostile
        )
        == []
    )
    assert "sources" in dict(ledger.table_counts())


SQL_ROOT = REPO_ROOT / "sql"
CODE_FOLDERS = ("src", "flows", "tests", "bench")


def _sql_names_in_code() -> dict[str, list[str]]:
    """Every string literal in the code that looks like a query name ("<stage>/…"), with
    where it occurs; a stage is a folder of sql/ (the migrations in sql/schema/ excepted)."""
    stages = {p.name for p in SQL_ROOT.iterdir() if p.is_dir() and p.name != "schema"}
    name = re.compile(r"^([a-z]+)/[a-z0-9_]+(/[a-z0-9_]+)*$")
    found: dict[str, list[str]] = {}
    for folder in CODE_FOLDERS:
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    match = name.match(node.value)
                    if match and match.group(1) in stages:
                        where = f"{path.relative_to(REPO_ROOT)}:{node.lineno}"
                        found.setdefault(node.value, []).append(where)
    return found


def test_every_query_name_in_the_code_is_a_file_in_sql() -> None:
    names = _sql_names_in_code()
    assert "reconcile/review/job_accounting" in names  # the scan sees the review's names
    dangling = {
        name: where for name, where in names.items() if not (SQL_ROOT / f"{name}.sql").is_file()
    }
    assert dangling == {}


def test_every_sql_file_is_run_by_name_and_says_what_goes_in_and_out() -> None:
    names = _sql_names_in_code()
    unused, headless = [], []
    for path in sorted(SQL_ROOT.rglob("*.sql")):
        name = path.relative_to(SQL_ROOT).with_suffix("").as_posix()
        if name.startswith("schema/"):
            continue
        if name not in names:
            unused.append(name)
        header = "".join(
            line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("--")
        )
        if "-- in:" not in header or "out:" not in header:
            headless.append(name)
    assert unused == []
    assert headless == []


def test_a_dangling_name_is_a_clear_error(ledger: Ledger) -> None:
    with pytest.raises(KeyError, match="reconcile/missing-query"):
        ledger.query("reconcile/missing-query")


def test_open_existing_never_creates(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "ledger.duckdb"
    with pytest.raises(InputError, match=f"no ledger at {re.escape(str(missing))}"):
        Ledger.open_existing(missing)
    assert list(tmp_path.iterdir()) == []


def test_open_existing_is_read_only(ledger_path: Path) -> None:
    Ledger.open(ledger_path).close()
    before = ledger_path.read_bytes()
    with Ledger.open_existing(ledger_path) as book:
        assert book.existing_versions() == [v for v, _, _ in migrations()]
        with pytest.raises(Exception, match="read-only"):
            book.con.execute("CREATE TABLE x (a INTEGER)")
    assert ledger_path.read_bytes() == before


def test_open_existing_refuses_a_duckdb_file_that_is_no_ledger(tmp_path: Path) -> None:
    import duckdb

    other = tmp_path / "other.duckdb"
    duckdb.connect(str(other)).close()
    with pytest.raises(InputError, match="not a trainbudget ledger"):
        Ledger.open_existing(other)


def test_a_failed_run_leaves_no_ledger_it_created(tmp_path: Path) -> None:
    path = tmp_path / "new" / "deeper" / "ledger.duckdb"
    with pytest.raises(InputError), Ledger.open(path):
        raise InputError("bad input after the ledger was created")
    assert list(tmp_path.iterdir()) == []


def test_a_failed_run_keeps_a_ledger_that_existed(ledger_path: Path) -> None:
    Ledger.open(ledger_path).close()
    with pytest.raises(InputError), Ledger.open(ledger_path):
        raise InputError("bad input")
    assert ledger_path.is_file()


def test_estimate_skips_a_busy_ledger_and_says_so(ledger_path: Path) -> None:
    Ledger.open(ledger_path).close()
    holder = _hold_for(ledger_path, 30)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "trainbudget", "estimate", "--params", "7e9", "--tokens",
             "1e11", "--gpus", "8", "--price", "2.4", "--gpu", "A100-80GB", "--ledger",
             str(ledger_path), "--json"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        holder.kill()
        holder.wait()
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["gpu_hours"]
    (line,) = proc.stderr.strip().splitlines()
    assert f"ledger {ledger_path} is in use by another process" in line
    assert "throughput prior" in line

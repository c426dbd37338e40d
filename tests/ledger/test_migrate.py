"""A new ledger takes every migration in one transaction; its schema is the one the migrations
make applied one by one (each its own commit), on the DuckDB file and on the team ledger."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from trainbudget.ledger import Ledger, migrations
from trainbudget.ledger.location import TeamLocation

from .conftest import psql, with_dbname

_COUNTER = itertools.count()

# Every table's and view's columns, types, nullability and defaults, in this catalog.
_COLUMNS = (
    "SELECT schema_name, table_name, column_index, column_name, data_type, is_nullable, "
    "column_default FROM duckdb_columns() WHERE database_name = current_database() "
    "AND schema_name <> 'information_schema' AND NOT internal ORDER BY ALL"
)
# What the file holds besides columns: keys and checks, indexes, sequences, views' SQL.
_FILE_ONLY = (
    "SELECT table_name, constraint_type, constraint_text FROM duckdb_constraints() "
    "WHERE database_name = current_database() ORDER BY ALL",
    "SELECT table_name, index_name, sql FROM duckdb_indexes() "
    "WHERE database_name = current_database() ORDER BY ALL",
    "SELECT sequence_name, start_value, increment_by FROM duckdb_sequences() "
    "WHERE database_name = current_database() ORDER BY ALL",
    "SELECT view_name, sql FROM duckdb_views() "
    "WHERE database_name = current_database() AND NOT internal ORDER BY ALL",
)


@pytest.fixture(params=["file", "team"])
def blank_ledgers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], object]]:
    """A factory of locations where no ledger is yet: a new file, or an empty catalog."""
    if request.param == "file":
        yield lambda: tmp_path / f"ledger-{next(_COUNTER)}.duckdb"
        return
    conninfo, _, _ = request.getfixturevalue("team_pg")
    made: list[str] = []

    def make() -> TeamLocation:
        name = f"tb_blank_{os.getpid()}_{next(_COUNTER)}"
        psql(conninfo, f"CREATE DATABASE {name}")
        made.append(name)
        data = tmp_path / f"{name}-data"
        data.mkdir()
        return TeamLocation(with_dbname(conninfo, name), str(data))

    yield make
    for name in made:
        psql(conninfo, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _schema(book: Ledger) -> list[list[tuple[object, ...]]]:
    queries = (_COLUMNS,) if book.is_team else (_COLUMNS, *_FILE_ONLY)
    return [book.con.execute(q).fetchall() for q in queries]


def test_one_transaction_makes_the_schema_of_one_migration_at_a_time(blank_ledgers) -> None:
    versions = [v for v, _, _ in migrations()]
    with Ledger.open(blank_ledgers(), migrate=False) as book:
        for version in versions:  # each migration its own transaction, as a ledger upgraded
            assert book.migrate(upto=version) == [version]  # release by release gets them
        stepwise = _schema(book)
        stepwise_rows = book.con.execute("SELECT version, name FROM schema_version").fetchall()
    with Ledger.open(blank_ledgers()) as book:  # a new ledger: all of them in one commit
        assert book.migrate() == []
        at_once = _schema(book)
        at_once_rows = book.con.execute("SELECT version, name FROM schema_version").fetchall()
    assert len(at_once[0]) > 100  # the comparison compares tables, not two empty lists
    assert at_once == stepwise
    assert sorted(at_once_rows) == sorted(stepwise_rows) == [(v, n) for v, n, _ in migrations()]


def test_a_failing_migration_leaves_the_new_ledger_without_any(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One transaction: a migration that fails rolls back the ones before it as well."""
    from trainbudget.ledger import schema

    broken = [*migrations(), (999, "999_broken", "CREATE TABLE broken (x NO_SUCH_TYPE);")]
    monkeypatch.setattr(schema, "migrations", lambda: broken)
    path = tmp_path / "ledger.duckdb"
    with Ledger.open(path, migrate=False) as book:
        with pytest.raises(Exception, match="NO_SUCH_TYPE"):
            book.migrate()
        tables = book.con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()"
        ).fetchall()
    assert tables == []


def test_migration_018_derives_run_end_time_on_a_ledger_with_lines(
    blank_ledgers, tmp_path: Path
) -> None:
    """018 on a ledger that already holds lines (as release 017 left it: simulated by dropping
    the column and its version) fills run_end_time from start, else submit, + Elapsed."""
    from trainbudget.reconcile.land import land_sacct

    export = tmp_path / "sacct.psv"
    export.write_text(
        "JobID|JobIDRaw|JobName|Account|Partition|State|ExitCode|Elapsed|ElapsedRaw|Submit|"
        "Start|End|AllocTRES|ReqTRES|NNodes|NCPUS|Reason\n"
        "71|71|train|p|gpu|COMPLETED|0:0|02:00:00|7200|2026-11-23T08:00:00|"
        "2026-11-23T09:00:00|2026-11-23T10:00:00|gres/gpu=8|gres/gpu=8|1|64|\n"
        "72|72|wait|p|gpu|PENDING|0:0|00:00:00|0|2026-11-24T08:00:00|Unknown|Unknown|"
        "gres/gpu=8|gres/gpu=8|1|64|\n",
        encoding="utf-8",
    )
    location = blank_ledgers()
    with Ledger.open(location) as book:
        with book.transaction():
            land_sacct(book, export)
        book.con.execute("ALTER TABLE sacct_rows DROP COLUMN run_end_time")
        book.con.execute("DELETE FROM schema_version WHERE version = 18")
    with Ledger.open(location, migrate=False) as book:
        assert book.migrate() == [18]
        rows = book.con.execute(
            "SELECT job_id, strftime(run_end_time AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M') "
            "FROM sacct_rows ORDER BY job_id"
        ).fetchall()
    # 71: started 09:00, 2 h (End says 10:00); 72: never started, so its submit time.
    assert rows == [("71", "2026-11-23T11:00"), ("72", "2026-11-24T08:00")]


def test_a_ledger_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    """An older trainbudget must not write a newer ledger (019 keeps tracked_lines in step with
    sacct_rows at every landing; code without it would leave a replaced line's copy)."""
    from trainbudget.base.errors import EnvironmentFailure

    path = tmp_path / "ledger.duckdb"
    newest = max(v for v, _, _ in migrations())
    with Ledger.open(path) as book:
        book.con.execute(
            "INSERT INTO schema_version SELECT $v, 'from_a_later_release', now()", {"v": newest + 1}
        )
    with (
        pytest.raises(EnvironmentFailure, match=f"schema \\({newest + 1:03d}\\) is newer"),
        Ledger.open(path),
    ):
        pass

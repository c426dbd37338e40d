"""The two stores for the ledger's tests: a DuckDB file, and the team ledger (DuckLake on the
throwaway PostgreSQL that `make test` starts and names in $TRAINBUDGET_TEST_PG).

Without $TRAINBUDGET_TEST_PG (or without the extension wheels for this DuckDB) the team
cases are skipped, except in CI (CI=true) or with TRAINBUDGET_REQUIRE_PG=1, where they fail.
Each team case gets its own catalog database, copied from one migrated template (a fresh
migration costs seconds), with its own data folder.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

PG_ENV = "TRAINBUDGET_TEST_PG"
_COUNTER = itertools.count()


def _required() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true"} or (
        os.environ.get("TRAINBUDGET_REQUIRE_PG") == "1"
    )


def _unavailable(reason: str) -> None:
    if _required():
        pytest.fail(f"team ledger tests need {reason} (CI or TRAINBUDGET_REQUIRE_PG=1)")
    pytest.skip(f"team ledger: {reason}")


def psql(conninfo: str, sql: str) -> str:
    """Run one SQL command through psql against `conninfo`; its output."""
    binary = shutil.which("psql") or "psql"
    done = subprocess.run(
        [binary, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", conninfo, "-c", sql],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"psql {sql!r}: {done.stderr.strip()}")
    return done.stdout.strip()


def with_dbname(conninfo: str, dbname: str) -> str:
    """`conninfo` (a libpq key=value string) naming database `dbname` instead."""
    parts = [p for p in conninfo.split() if not p.startswith("dbname=")]
    return " ".join([*parts, f"dbname={dbname}"])


@pytest.fixture(scope="session")
def team_pg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(server connection string, template database, its data folder) of a migrated team
    ledger."""
    conninfo = os.environ.get(PG_ENV)
    if not conninfo:
        _unavailable(f"a PostgreSQL server (${PG_ENV}; `make test` starts one)")
    from trainbudget.ledger.team import extension_file

    for package, name in (
        ("duckdb_extension_ducklake", "ducklake"),
        ("duckdb_extension_postgres_scanner", "postgres_scanner"),
    ):
        if extension_file(package, name) is None:
            _unavailable(f"the {name} extension wheel for this DuckDB (pip install '.[team]')")
    try:
        psql(conninfo, "SELECT 1")
    except (RuntimeError, OSError) as exc:
        _unavailable(f"a reachable PostgreSQL at {conninfo!r} ({exc})")
    template = f"tb_template_{os.getpid()}"
    psql(conninfo, f"DROP DATABASE IF EXISTS {template}")
    psql(conninfo, f"CREATE DATABASE {template}")
    from trainbudget.ledger import Ledger
    from trainbudget.ledger.location import TeamLocation

    data = tmp_path_factory.mktemp("team-template-data")
    Ledger.open(TeamLocation(with_dbname(conninfo, template), str(data))).close()
    yield conninfo, template, data
    psql(conninfo, f"DROP DATABASE IF EXISTS {template}")


@pytest.fixture
def new_team_ledger(team_pg: tuple[str, str, Path], tmp_path: Path) -> Iterator[Callable[[], str]]:
    """A factory of fresh, migrated team ledgers: each call returns a new `ducklake:postgres:`
    location whose data folder is under tmp_path; all are dropped after the test."""
    conninfo, template, template_data = team_pg
    made: list[str] = []

    def make() -> str:
        name = f"tb_{os.getpid()}_{next(_COUNTER)}"
        psql(conninfo, f"CREATE DATABASE {name} TEMPLATE {template}")
        made.append(name)
        data = tmp_path / f"{name}-data"
        # The migrations' one commit may write Parquet (schema_version's rows, past DuckLake's
        # inlining limit), recorded relative to the data path: the copy gets its own files.
        shutil.copytree(template_data, data)
        target = with_dbname(conninfo, name)
        psql(target, f"UPDATE ducklake_metadata SET value = '{data}/' WHERE key = 'data_path'")
        return f"ducklake:postgres:{target}"

    yield make
    for name in made:
        psql(conninfo, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(params=["file", "team"])
def store_ledger(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh ledger location of each store: a DuckDB file path, or a team ledger."""
    if request.param == "file":
        return str(tmp_path / "ledger.duckdb")
    return request.getfixturevalue("new_team_ledger")()


@pytest.fixture
def ledger(store_ledger: str):
    """An open, migrated ledger of each store (tests/ledger's cases run on both)."""
    from trainbudget.ledger import Ledger

    book = Ledger.open(store_ledger)
    yield book
    book.close()

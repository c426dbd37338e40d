"""The team ledger's connection: DuckLake with its catalog in PostgreSQL, rows in Parquet.

The two extensions load from their PyPI wheels (`duckdb-extension-ducklake`,
`duckdb-extension-postgres-scanner`, built for exactly one DuckDB version: the `team` extra
pins it) by path, with autoinstall and autoload off, so nothing is downloaded and nothing is
written under ~; without the wheels, an extension DuckDB's own `INSTALL` put in place is
loaded instead. What DuckLake lacks, the ledger provides here once:

- keys: `team_ddl` drops PRIMARY KEY / UNIQUE / indexes from the migrations (the file keeps
  them); the landing inserts only what is absent, and `claim` makes two runs that land the
  same thing at once conflict (a view of the same name in the `claims` schema), so one of them
  is retried and finds it landed;
- sequences: each CREATE SEQUENCE of a migration becomes a PostgreSQL sequence in the
  catalog database (`trainbudget_<name>`), which `next_id` draws from.
"""

from __future__ import annotations

import importlib.util
import re
import tempfile
from pathlib import Path

import duckdb

from trainbudget.base.errors import (
    EnvironmentFailure,
    InputError,
    LedgerConflict,
    environment_reason,
)
from trainbudget.ledger.location import TeamLocation

CATALOG = "ledger"  # the attached DuckLake's name; current_database() inside
METADATA = f"__ducklake_metadata_{CATALOG}"  # DuckLake's own attach of the PostgreSQL catalog
CLAIMS_SCHEMA = "claims"
_EXTENSIONS = (
    ("duckdb_extension_ducklake", "ducklake"),
    ("duckdb_extension_postgres_scanner", "postgres_scanner"),
)
# DuckLake retries a commit that races another without a logical conflict on its own; these
# are its settings (defaults 10 / 100 ms / 1.5). A logical conflict is retried by the run.
_DUCKLAKE_RETRY = {"ducklake_max_retry_count": 20, "ducklake_retry_wait_ms": 50,
                   "ducklake_retry_backoff": 1.5}  # fmt: skip
_CONFLICT_TEXTS = ("conflict", "failed to commit ducklake transaction")

__all__ = ["LedgerConflict", "claim", "connect", "next_id", "team_ddl"]


def extension_file(package: str, name: str) -> Path | None:
    """The extension binary inside its wheel for this DuckDB version, or None."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return None
    found = Path(spec.origin).parent / "extensions" / f"v{duckdb.__version__}"
    path = found / f"{name}.duckdb_extension"
    return path if path.is_file() else None


def connect(location: TeamLocation, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with the team ledger attached as `ledger` and in use."""
    con = duckdb.connect(
        ":memory:",
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False,
                "temp_directory": tempfile.gettempdir() + "/trainbudget-duckdb.tmp"},
    )  # fmt: skip
    try:
        con.execute("SET enable_progress_bar = false")
        _load_extensions(con)
        for setting, value in _DUCKLAKE_RETRY.items():
            con.execute(f"SET {setting} = {value}")
        _attach(con, location, read_only=read_only)
        con.execute(f"USE {CATALOG}")
    except BaseException:
        con.close()
        raise
    return con


def _load_extensions(con: duckdb.DuckDBPyConnection) -> None:
    for package, name in _EXTENSIONS:
        path = extension_file(package, name)
        try:
            con.execute(f"LOAD {_sql_string(str(path))}" if path else f"LOAD {name}")
        except duckdb.Error as exc:
            raise EnvironmentFailure(
                f"team ledger: cannot load DuckDB's {name} extension for DuckDB "
                f"{duckdb.__version__} ({_first_line(exc)}); install trainbudget[team] "
                "(it pins DuckDB with the extension wheels), or with network access run "
                f"INSTALL {name} once"
            ) from None


def _attach(con: duckdb.DuckDBPyConnection, location: TeamLocation, *, read_only: bool) -> None:
    options = []
    if location.data_path:
        options.append(f"DATA_PATH {_sql_string(location.data_path)}")
    if read_only:
        options.append("READ_ONLY")
    target = _sql_string(f"ducklake:postgres:{location.catalog}")
    clause = f" ({', '.join(options)})" if options else ""
    try:
        con.execute(f"ATTACH {target} AS {CATALOG}{clause}")
    except duckdb.Error as exc:
        text = _first_line(exc)
        lowered = text.lower()
        if "data_path" in lowered or "data path" in lowered:
            raise InputError(
                f"ledger {location}: a new team ledger needs its data folder "
                "(--ledger-data DIR or $TRAINBUDGET_LEDGER_DATA)"
            ) from None
        reason = environment_reason(text)
        if reason or "connect" in lowered or "connection" in lowered:
            raise EnvironmentFailure(
                f"ledger {location}: cannot reach the team ledger's catalog ({text})"
            ) from None
        raise InputError(f"ledger {location}: cannot open the team ledger ({text})") from None


def is_conflict(exc: BaseException) -> bool:
    """Whether a DuckDB error is a DuckLake commit conflict (retrying the run can succeed)."""
    lowered = str(exc).lower()
    return isinstance(exc, duckdb.Error) and any(text in lowered for text in _CONFLICT_TEXTS)


# --- the migrations' DDL, without what DuckLake cannot hold -----------------------------------

_COMMENT = re.compile(r"--[^\n]*")
_SEQUENCE = re.compile(r"CREATE\s+SEQUENCE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)[^;]*;", re.I)
_INDEX = re.compile(r"CREATE\s+(?:UNIQUE\s+)?INDEX\b[^;]*;", re.I)
_TABLE_KEY = re.compile(r",\s*(?:PRIMARY\s+KEY|UNIQUE)\s*\([^)]*\)", re.I)
_COLUMN_KEY = re.compile(r"\s+(?:PRIMARY\s+KEY|UNIQUE)\b(?!\s*\()", re.I)
_NEXTVAL = re.compile(r"\s+DEFAULT\s+nextval\(\s*'[^']*'\s*\)", re.I)


def team_ddl(sql: str) -> tuple[str, list[str]]:
    """A migration as DuckLake takes it, and the sequences it creates: comments, PRIMARY KEY,
    UNIQUE, indexes and `DEFAULT nextval(...)` removed (ids come from `next_id`)."""
    text = _COMMENT.sub("", sql)
    sequences = _SEQUENCE.findall(text)
    text = _SEQUENCE.sub("", text)
    text = _INDEX.sub("", text)
    text = _TABLE_KEY.sub("", text)
    text = _NEXTVAL.sub("", text)
    text = _COLUMN_KEY.sub("", text)
    return text, sequences


def create_sequences(con: duckdb.DuckDBPyConnection, names: list[str]) -> None:
    """Create the PostgreSQL sequences behind the migration's `names` (idempotent)."""
    for name in names:
        statement = f'CREATE SEQUENCE IF NOT EXISTS "trainbudget_{_identifier(name)}"'
        con.execute(f"CALL postgres_execute('{METADATA}', {_sql_string(statement)})")


def next_id(con: duckdb.DuckDBPyConnection, sequence: str) -> int:
    """The next value of the PostgreSQL sequence behind `sequence` (never handed out twice,
    also not by a run that rolls back, as with any sequence)."""
    query = f"SELECT nextval('\"trainbudget_{_identifier(sequence)}\"') AS id"
    (value,) = con.execute(
        f"SELECT id FROM postgres_query('{METADATA}', {_sql_string(query)})"
    ).fetchone()
    return int(value)


def advance_sequence(con: duckdb.DuckDBPyConnection, sequence: str, past: int) -> None:
    """Move the PostgreSQL sequence behind `sequence` so its next id is above `past`."""
    name = f"trainbudget_{_identifier(sequence)}"
    statement = f'SELECT setval(\'"{name}"\', greatest({int(past)}, last_value)) FROM "{name}"'
    con.execute(f"CALL postgres_execute('{METADATA}', {_sql_string(statement)})")


def claim(con: duckdb.DuckDBPyConnection, key: str) -> None:
    """Inside the run's transaction, claim `key` (what is about to be landed): a second run
    claiming the same key before this one commits fails its commit and is retried."""
    name = _identifier(key)
    con.execute(f'CREATE OR REPLACE VIEW {CLAIMS_SCHEMA}."{name}" AS SELECT 1 AS claimed')


def ensure_claims_schema(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(f"CREATE SCHEMA IF NOT EXISTS {CLAIMS_SCHEMA}")


def _identifier(text: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_.:-]+", text):
        raise ValueError(f"not a plain identifier: {text!r}")
    return text


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__

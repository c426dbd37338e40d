"""The DuckDB ledger: open or create the file, migrate it, run sql/ files by name.

Every landed input keeps its provenance (path, line, sha256, landed_at); landing the same
content twice is a no-op; rejected rows go to `quarantine`; one run's writes are one
transaction. SQL lives in sql/<stage>/[<phase>/]<name>.sql and is run by that name
("reconcile/review/job_accounting") with parameters, never string-formatted; the migrations
are sql/schema/NNN_name.sql.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from trainbudget.base.errors import InputError
from trainbudget.files.permissions import hold_private_umask
from trainbudget.ledger import team
from trainbudget.ledger.file import connect as _connect
from trainbudget.ledger.file import missing_folders as _missing_folders
from trainbudget.ledger.file import remove_created as _remove_created
from trainbudget.ledger.location import TeamLocation, resolve_location
from trainbudget.ledger.preflight import damage_reported
from trainbudget.ledger.sources import Source, SourceLanding, _now, sha256_of, source_options
from trainbudget.ledger.sql_files import load_sql, migrations

# SQL that means something only to the DuckDB file: on the team ledger CHECKPOINT would run
# DuckLake's whole maintenance (`trainbudget ledger maintain` does that, on a schedule).
_FILE_ONLY = {"ledger/checkpoint"}
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# How often a team ledger's first open re-reads the schema when another process migrates it.
_MIGRATE_TRIES = 5


def resolve_ledger_path(option: str | os.PathLike[str] | None = None) -> Path:
    """Ledger location as a path: the --ledger option, else $TRAINBUDGET_LEDGER, else
    ./trainbudget.duckdb. For the team ledger, its data folder (or the location's text):
    things a run writes beside the ledger (live sacct output) go next to it. InputError for
    a location that is no local path and no team ledger (classify_ledger_location)."""
    location = resolve_location(option)
    if isinstance(location, TeamLocation):
        return Path(location.data_path or ".") / "ledger"
    return location


def ledger_exists(option: str | os.PathLike[str] | None = None) -> bool:
    """Whether the ledger --ledger names is there to read: the file exists, or it is the team
    ledger (its catalog is checked when it is opened)."""
    location = resolve_location(option)
    return isinstance(location, TeamLocation) or location.is_file()


# Seconds a writer waits for a ledger another process holds before "in use" (CLI: --wait).
DEFAULT_WAIT_S = 10.0
_WAIT = {"seconds": DEFAULT_WAIT_S}


def set_default_wait(seconds: float) -> None:
    """Make `seconds` the wait of every later `Ledger.open` in this process that names none
    (the CLI's --wait SECONDS)."""
    _WAIT["seconds"] = float(seconds)


class Ledger(SourceLanding):
    """An open ledger: the DuckDB file, or the team ledger (DuckLake on PostgreSQL). Use
    `Ledger.open(location)`; close it, or use it as a context manager."""

    def __init__(
        self,
        path: Path,
        connection: duckdb.DuckDBPyConnection,
        location: TeamLocation | None = None,
    ) -> None:
        self.path = path
        self.con = connection
        self.team = location  # None for the DuckDB file
        self._in_transaction = False
        self._created: list[Path] = []  # what Ledger.open created: the file, then new folders
        self._release_umask: Callable[[], None] = _nothing  # Ledger.open's, until close()

    @property
    def location(self) -> str:
        """Where the ledger is, for messages: the file's path, or `ducklake:postgres:...`."""
        return str(self.team) if self.team else str(self.path)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        migrate: bool = True,
        wait_s: float | None = None,
    ) -> Ledger:
        """Open (creating if needed) the ledger at `path` and apply pending migrations; while
        another process holds it, retry for `wait_s` seconds (None: the process default, 10).

        A ledger this call creates is removed again, with the folders it made, if opening it
        fails or the `with` block using it raises: a failed run leaves no empty ledger behind.
        """
        location = resolve_location(path)
        if isinstance(location, TeamLocation):
            return cls._open_team(location, migrate=migrate, read_only=False)
        resolved = location
        # The ledger and its WAL hold users and accounts: 0600 while open, umask restored on close.
        release_umask = hold_private_umask()
        created = [] if resolved.exists() else [resolved, *_missing_folders(resolved.parent)]
        ledger = None
        try:
            resolved.parent.mkdir(parents=True, exist_ok=True)
            wait = _WAIT["seconds"] if wait_s is None else wait_s
            ledger = cls(resolved, _connect(resolved, read_only=False, wait_s=wait))
            ledger._created = created
            ledger._release_umask = release_umask
            if migrate:
                with damage_reported(resolved):
                    ledger.migrate()
        except BaseException:
            if ledger is not None:
                ledger.close()
            release_umask()
            _remove_created(created)
            raise
        return ledger

    @classmethod
    def open_existing(cls, path: str | os.PathLike[str] | None = None) -> Ledger:
        """Open a ledger that must exist, for reading: never creates the file or its folders.

        InputError `no ledger at X` when the file is missing. The connection is read-only;
        a ledger whose schema is behind this version is migrated first (the file exists, so
        nothing is created), as `Ledger.open` would.
        """
        location = resolve_location(path)
        if isinstance(location, TeamLocation):
            return cls._open_team(location, migrate=True, read_only=False)
        resolved = location
        if not resolved.is_file():
            raise InputError(
                f"ledger: no ledger at {resolved} (`trainbudget ledger init` creates one)"
            )
        ledger = cls(resolved, _connect(resolved, read_only=True))
        try:
            with damage_reported(resolved):
                versions = ledger.existing_versions()
            pending = {v for v, _, _ in migrations()} - set(versions)
        except BaseException:
            ledger.close()
            raise
        if pending:
            ledger.close()
            ledger = cls.open(resolved)
        return ledger

    @classmethod
    def _open_team(cls, location: TeamLocation, *, migrate: bool, read_only: bool) -> Ledger:
        release_umask = hold_private_umask()  # the Parquet files hold users and accounts too
        try:
            con = team.connect(location, read_only=read_only)
        except BaseException:
            release_umask()
            raise
        ledger = cls(resolve_ledger_path(location), con, location)
        ledger._release_umask = release_umask
        try:
            if migrate:
                ledger.migrate()
        except BaseException:
            ledger.close()
            raise
        return ledger

    @property
    def is_team(self) -> bool:
        """Whether this is the team ledger (DuckLake), where several writers commit at once."""
        return self.team is not None

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        self.close()
        if exc_type is not None and issubclass(exc_type, Exception):
            _remove_created(self._created)

    def close(self) -> None:
        self.con.close()
        self._release_umask()

    # --- schema -------------------------------------------------------------------------

    def applied_versions(self) -> list[int]:
        if not self._has_schema_version():
            with self.transaction():
                self._create_schema_version()
        return [row[0] for row in self.con.execute("SELECT version FROM schema_version").fetchall()]

    def _create_schema_version(self) -> None:
        self._ddl(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
            "name VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL);"
        )
        if self.is_team:
            team.ensure_claims_schema(self.con)

    def existing_versions(self) -> list[int]:
        """The applied schema versions, without creating anything (for read-only ledgers)."""
        if not self._has_schema_version():
            raise InputError(f"ledger {self.location}: a DuckDB file, but not a trainbudget ledger")
        return [row[0] for row in self.con.execute("SELECT version FROM schema_version").fetchall()]

    def _has_schema_version(self) -> bool:
        return self.has_table("main.schema_version")

    def has_table(self, qualified: str) -> bool:
        """Whether `qualified` (a table name from our own code: `name`, `schema.name` or
        `database.schema.name`, parts optionally in double quotes) names a table or view.

        On the file, duckdb_tables() is cheap, and a failed bind would abort an open
        transaction on DuckDB 2.x. On the team ledger duckdb_tables() lists every catalog,
        reading DuckLake's whole catalog from PostgreSQL (0.2-1 s a call), so the name is
        bound instead: the team extra pins DuckDB 1.5.5, where a catalog error leaves the
        transaction usable (tests/ledger/test_store.py checks both stores)."""
        parts = [part.strip('"') for part in qualified.split(".")]
        if len(parts) > 3 or not all(_PLAIN_NAME.fullmatch(part) for part in parts):
            raise ValueError(f"not a plain table name: {qualified!r}")
        if not self.is_team:  # literal names: a bound parameter makes DuckDB 1.5.5 load pandas
            *outer, name = parts
            where = [f"table_name = '{name}'"]
            if outer:
                where.append(f"schema_name = '{outer[-1]}'")
            where.append(f"database_name = '{outer[0]}'" if len(outer) == 2
                         else "database_name IN (current_database(), 'temp')")  # fmt: skip
            listed = (
                "SELECT database_name, schema_name, table_name FROM duckdb_tables() UNION ALL "
                "SELECT database_name, schema_name, view_name FROM duckdb_views() "
                "WHERE NOT internal"
            )
            return bool(
                self.con.execute(
                    f"SELECT count(*) FROM ({listed}) WHERE {' AND '.join(where)}"
                ).fetchall()[0][0]  # fetchall: on DuckDB 2.x a half-read result blocks the next
            )
        try:
            self.con.execute(
                f"SELECT NULL FROM {'.'.join(chr(34) + p + chr(34) for p in parts)} LIMIT 0"
            )
        except duckdb.CatalogException:
            return False
        return True

    def migrate(self, upto: int | None = None) -> list[int]:
        """Apply pending migrations (those numbered at most `upto`, if given), all in one
        transaction; return the versions applied.

        The files of sql/schema/ run in order, as written, each recorded in schema_version,
        and one commit lands them all (a new ledger: one WAL sync, not one per migration; a
        failing migration leaves the ledger as it was). On the team ledger two first opens may
        migrate at once: the one whose commit conflicts reads the schema again and goes on."""
        for attempt in range(_MIGRATE_TRIES):
            try:
                return self._migrate_once(upto)
            except team.LedgerConflict:
                if attempt == _MIGRATE_TRIES - 1:
                    raise
        return []

    def _migrate_once(self, upto: int | None) -> list[int]:
        with self.transaction():
            if self._has_schema_version():
                done = {row[0] for row in self.con.execute("SELECT version FROM schema_version")
                        .fetchall()}  # fmt: skip
            else:
                self._create_schema_version()
                done = set()
            pending = [(v, name, sql) for v, name, sql in migrations()
                       if v not in done and (upto is None or v <= upto)]  # fmt: skip
            for _, _, sql in pending:
                self._ddl(sql)
            if pending:
                self.con.execute(
                    "INSERT INTO schema_version SELECT unnest($versions), unnest($names), "
                    "$applied_at",
                    {"versions": [v for v, _, _ in pending],
                     "names": [name for _, name, _ in pending], "applied_at": _now()},
                )  # fmt: skip
        return [v for v, _, _ in pending]

    def _ddl(self, sql: str) -> None:
        """Run a migration's DDL: as written on the file; on the team ledger without the keys,
        indexes and sequences DuckLake lacks (team.team_ddl), its sequences in PostgreSQL."""
        if not self.is_team:
            self.con.execute(sql)
            return
        text, sequences = team.team_ddl(sql)
        team.create_sequences(self.con, sequences)
        if text.strip(" ;\n"):
            self.con.execute(text)

    def next_id(self, sequence: str) -> int:
        """The next id of `sequence` (e.g. 'source_id_seq'): DuckDB's sequence in the file,
        a PostgreSQL sequence for the team ledger. Ids are unique, not gap-free."""
        if self.is_team:
            return team.next_id(self.con, sequence)
        (value,) = self.con.execute("SELECT nextval($s)", {"s": sequence}).fetchone()
        return int(value)

    def claim(self, kind: str, key: str) -> None:
        """Inside the run's transaction, claim the landing of `key` (a content hash) of `kind`:
        on the team ledger a second run claiming it before this one commits conflicts and is
        retried, and then finds it landed. The file ledger has one writer: nothing to do."""
        if self.is_team:
            team.claim(self.con, f"{kind}:{key}")

    # --- running SQL by name ------------------------------------------------------------

    def execute(self, name: str, **params: Any) -> duckdb.DuckDBPyConnection:
        """Run sql/<name>.sql with named parameters ($name in the SQL)."""
        if self.is_team and name in _FILE_ONLY:
            return self.con
        return self.con.execute(load_sql(name), params or None)

    def query(self, name: str, **params: Any) -> list[tuple[Any, ...]]:
        """Run sql/<name>.sql and return all rows as tuples."""
        return self.execute(name, **params).fetchall()

    def records(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run sql/<name>.sql and return the rows as dicts keyed by column name."""
        cursor = self.execute(name, **params)
        columns = [d[0] for d in cursor.description or []]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]

    def insert_rows(self, table: str, rows: Sequence[Mapping[str, Any]]) -> int:
        """Insert dict rows into `table` (a name from our own code, checked against the catalog)
        in one statement, one list parameter per column: executemany costs milliseconds a row,
        and no Polars or Arrow import is needed. The rows share the first row's keys."""
        if not rows:
            return 0
        self._check_table(table)
        columns = list(rows[0])
        names = ", ".join(f'"{c}"' for c in columns)
        lists = ", ".join(f"unnest($c{i})" for i in range(len(columns)))
        self.con.execute(
            f'INSERT INTO "{table}" ({names}) SELECT {lists}',
            {f"c{i}": [row[c] for row in rows] for i, c in enumerate(columns)},
        )
        return len(rows)

    def insert_frame(self, table: str, frame: Any) -> int:
        """Insert a Polars DataFrame into `table`, matching columns by name."""
        if frame.height == 0:
            return 0
        self._check_table(table)
        self.con.register("_incoming_frame", _ArrowStream(frame))
        try:
            columns = ", ".join(f'"{c}"' for c in frame.columns)
            self.con.execute(
                f'INSERT INTO "{table}" ({columns}) SELECT {columns} FROM _incoming_frame'
            )
        finally:
            self.con.unregister("_incoming_frame")
        return frame.height

    def _check_table(self, table: str) -> None:
        """KeyError unless `table` is a plain name of a ledger or temporary table."""
        if not _PLAIN_NAME.fullmatch(table) or not self.has_table(table):
            raise KeyError(f"ledger has no table {table!r}")

    # --- transactions, provenance, quarantine -------------------------------------------

    @property
    def in_transaction(self) -> bool:
        """Whether a `transaction()` is open on this ledger."""
        return self._in_transaction

    @contextmanager
    def transaction(self) -> Iterator[Ledger]:
        """All writes inside land together or not at all. Nested uses join the outer one."""
        if self._in_transaction:
            yield self
            return
        self.con.execute("BEGIN TRANSACTION")
        self._in_transaction = True
        try:
            yield self
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        else:
            self._commit()
        finally:
            self._in_transaction = False

    def _commit(self) -> None:
        try:
            self.con.execute("COMMIT")
        except duckdb.Error as exc:
            if self.is_team and team.is_conflict(exc):
                with contextlib.suppress(duckdb.Error):
                    self.con.execute("ROLLBACK")
                raise team.LedgerConflict(
                    f"ledger {self.location}: another run committed a conflicting change "
                    f"({str(exc).strip().splitlines()[0]})"
                ) from None
            raise

    def table_counts(self) -> list[tuple[str, int]]:
        """(table, exact row count) for every table in the ledger, each table read whole (its
        rows hashed), so DuckDB checks every block's checksum: a damaged file is reported.
        All tables are read in one transaction (one snapshot)."""
        read_whole = 'SELECT count(*), sum(hash("{0}")) FROM "{0}"'
        # One transaction: on the team ledger every table is read at one snapshot, so a
        # reader beside writers sees each of their runs landed wholly or not at all.
        with damage_reported(self.path), self.transaction():
            names = [name for name, _ in self.query("ledger/table_counts")]
            # Table names come from DuckDB's own catalog, not from user input.
            return [
                (name, self.con.execute(read_whole.format(name)).fetchone()[0]) for name in names
            ]


class _ArrowStream:
    """A frame seen only through the Arrow PyCapsule interface (`__arrow_c_stream__`, which
    Polars frames have): DuckDB 2.x scans it without importing pyarrow, where a Polars frame
    registered as itself, or `frame.to_arrow()`, goes through pyarrow (~0.2 s to import)."""

    def __init__(self, frame: Any) -> None:
        self._frame = frame

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self._frame.__arrow_c_stream__(requested_schema)


def _nothing() -> None:
    pass


__all__ = [
    "Ledger",
    "Source",
    "ledger_exists",
    "resolve_ledger_path",
    "set_default_wait",
    "sha256_of",
    "source_options",
]

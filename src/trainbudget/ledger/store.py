"""The DuckDB ledger: open or create the file, migrate it, run sql/ files by name.

Every landed input keeps its provenance (path, line, sha256, landed_at); landing the same
content twice is a no-op; rejected rows go to `quarantine`; one run's writes are one
transaction. SQL lives in sql/<stage>/[<phase>/]<name>.sql and is run by that name
("reconcile/review/job_accounting") with parameters, never string-formatted; the migrations
are sql/schema/NNN_name.sql.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from trainbudget.errors import InputError
from trainbudget.ledger.file import connect as _connect
from trainbudget.ledger.file import missing_folders as _missing_folders
from trainbudget.ledger.file import remove_created as _remove_created
from trainbudget.ledger.sql_files import load_sql, migrations
from trainbudget.ledger_location import classify_ledger_location, damage_reported
from trainbudget.permissions import hold_private_umask

DEFAULT_LEDGER = "trainbudget.duckdb"
LEDGER_ENV = "TRAINBUDGET_LEDGER"


def resolve_ledger_path(option: str | os.PathLike[str] | None = None) -> Path:
    """Ledger location: the --ledger option, else $TRAINBUDGET_LEDGER, else ./trainbudget.duckdb.

    InputError for a location that is no local path (ledger_location.classify_ledger_location).
    """
    location = option or os.environ.get(LEDGER_ENV) or DEFAULT_LEDGER
    if classify_ledger_location(location) == "team":
        raise InputError(
            f"ledger {os.fspath(location)}: the team ledger (DuckLake) is not available in "
            "this build; give a ledger file"
        )
    return Path(location)


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def source_options(options: Mapping[str, Any] | None) -> str:
    """The parse options of a source as canonical JSON (sorted keys; '' when there are none)."""
    if not options:
        return ""
    return json.dumps(dict(options), sort_keys=True, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class Source:
    """An input file being landed: the provenance every row from it carries."""

    source_id: int
    kind: str
    source_path: str
    source_sha256: str
    landed_at: datetime

    def provenance(self, line: int | None) -> dict[str, Any]:
        """The provenance columns of one landed row (line = 1-based line or record number)."""
        return {
            "source_id": self.source_id,
            "source_path": self.source_path,
            "source_line": line,
            "source_sha256": self.source_sha256,
            "landed_at": self.landed_at,
        }


# Seconds a writer waits for a ledger another process holds before "in use" (CLI: --wait).
DEFAULT_WAIT_S = 10.0
_WAIT = {"seconds": DEFAULT_WAIT_S}


def set_default_wait(seconds: float) -> None:
    """Make `seconds` the wait of every later `Ledger.open` in this process that names none
    (the CLI's --wait SECONDS)."""
    _WAIT["seconds"] = float(seconds)


class Ledger:
    """An open ledger file. Use `Ledger.open(path)`; close it, or use it as a context manager."""

    def __init__(self, path: Path, connection: duckdb.DuckDBPyConnection) -> None:
        self.path = path
        self.con = connection
        self._in_transaction = False
        self._created: list[Path] = []  # what Ledger.open created: the file, then new folders
        self._release_umask: Callable[[], None] = _nothing  # Ledger.open's, until close()

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
        resolved = resolve_ledger_path(path)
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
        resolved = resolve_ledger_path(path)
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
        self.con.execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
            "version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL)"
        )
        return [row[0] for row in self.con.execute("SELECT version FROM schema_version").fetchall()]

    def existing_versions(self) -> list[int]:
        """The applied schema versions, without creating anything (for read-only ledgers)."""
        found = self.con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'schema_version'"
        ).fetchone()[0]
        if not found:
            raise InputError(f"ledger {self.path}: a DuckDB file, but not a trainbudget ledger")
        return [row[0] for row in self.con.execute("SELECT version FROM schema_version").fetchall()]

    def migrate(self) -> list[int]:
        """Apply pending migrations, each in its own transaction; return the versions applied."""
        done = set(self.applied_versions())
        applied = []
        for version, name, sql in migrations():
            if version in done:
                continue
            with self.transaction():
                self.con.execute(sql)
                self.con.execute(
                    "INSERT INTO schema_version VALUES ($version, $name, $applied_at)",
                    {"version": version, "name": name, "applied_at": _now()},
                )
            applied.append(version)
        return applied

    # --- running SQL by name ------------------------------------------------------------

    def execute(self, name: str, **params: Any) -> duckdb.DuckDBPyConnection:
        """Run sql/<name>.sql with named parameters ($name in the SQL)."""
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
        self.con.register("_incoming_frame", frame.to_arrow())
        try:
            columns = ", ".join(f'"{c}"' for c in frame.columns)
            self.con.execute(
                f'INSERT INTO "{table}" ({columns}) SELECT {columns} FROM _incoming_frame'
            )
        finally:
            self.con.unregister("_incoming_frame")
        return frame.height

    def _check_table(self, table: str) -> None:
        known = {
            r[0] for r in self.con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
        }
        if table not in known:
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
            self.con.execute("COMMIT")
        finally:
            self._in_transaction = False

    def begin_source(
        self,
        path: str | os.PathLike[str],
        kind: str,
        *,
        sha256: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Source | None:
        """Register an input file for landing; None if it was landed before.

        A source is its kind, its content hash and `options`, the parse options that change
        its rows (e.g. the sacct delimiter): the same bytes with other options are another
        source. `sha256` is the digest of the bytes the caller read, when it already hashed
        them (hashed here otherwise). A source whose every row was rejected is not landed:
        landing it again replaces its quarantine rows. Call inside `transaction()` so the
        source row and its data rows land together.
        """
        file_path = Path(path)
        digest = sha256 or sha256_of(file_path)
        identity = source_options(options)
        found = self.query(
            "ledger/find_source", kind=kind, source_sha256=digest, parse_options=identity
        )
        if found and found[0][3] != "rejected":
            return None
        landed_at = _now()
        now = {"source_path": str(file_path), "size_bytes": file_path.stat().st_size,
               "landed_at": landed_at}  # fmt: skip
        if found:
            source_id = found[0][0]
            self.execute("ledger/drop_quarantine", source_id=source_id)
            self.execute("ledger/reuse_source", source_id=source_id, **now)
        else:
            ((source_id,),) = self.query(
                "ledger/insert_source", kind=kind, source_sha256=digest, parse_options=identity,
                **now,
            )  # fmt: skip
        return Source(source_id, kind, str(file_path), digest, landed_at)

    def finish_source(self, source: Source, rows_landed: int) -> None:
        """Record how many rows a source landed (quarantined rows are counted from the table);
        with none landed its status is 'rejected': it is not landed."""
        self.execute(
            "ledger/count_source_rows", source_id=source.source_id, rows_landed=rows_landed
        )

    def quarantine_rows(
        self, source: Source, rejected: Sequence[tuple[int | None, str | None, str]]
    ) -> None:
        """Keep rejected rows, (line, raw text, reason) each, in one insert."""
        now = _now()
        self.insert_rows(
            "quarantine",
            [
                {
                    "source_id": source.source_id,
                    "source_path": source.source_path,
                    "source_line": line,
                    "raw": raw,
                    "reason": reason,
                    "quarantined_at": now,
                }
                for line, raw, reason in rejected
            ],
        )

    def table_counts(self) -> list[tuple[str, int]]:
        """(table, exact row count) for every table in the ledger, each table read whole (its
        rows hashed), so DuckDB checks every block's checksum: a damaged file is reported."""
        read_whole = 'SELECT count(*), sum(hash("{0}")) FROM "{0}"'
        with damage_reported(self.path):
            names = [name for name, _ in self.query("ledger/table_counts")]
            # Table names come from DuckDB's own catalog, not from user input.
            return [
                (name, self.con.execute(read_whole.format(name)).fetchone()[0]) for name in names
            ]


def _now() -> datetime:
    return datetime.now(UTC)


def _nothing() -> None:
    pass

"""Running the ledger's SQL: sql/ files by name with parameters, rows and frames inserted in one
statement, transactions and their commit, and every table's row count (mixed into
trainbudget.ledger.store.Ledger)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import duckdb

from trainbudget.ledger import team
from trainbudget.ledger.preflight import damage_reported
from trainbudget.ledger.schema import _PLAIN_NAME
from trainbudget.ledger.sql_files import load_sql

if TYPE_CHECKING:
    from trainbudget.ledger.store import Ledger

# SQL that means something only to the DuckDB file: on the team ledger CHECKPOINT would run
# DuckLake's whole maintenance (`trainbudget ledger maintain` does that, on a schedule).
_FILE_ONLY = {"ledger/checkpoint"}


class LedgerStatements:
    """The Ledger's SQL by name, inserts and transactions (mixed into
    trainbudget.ledger.store.Ledger)."""

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

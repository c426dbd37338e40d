"""The DuckDB ledger: open or create the file, migrate it, run sql/ files by name.

Every landed input keeps its provenance (path, line, sha256, landed_at); landing the same
content twice is a no-op; rejected rows go to `quarantine`; one run's writes are one
transaction. SQL lives in sql/<stage>/[<phase>/]<name>.sql and is run by that name
("reconcile/review/job_accounting") with parameters, never string-formatted; the migrations
are sql/schema/NNN_name.sql.

The Ledger class is put together here from one part per concern: `opening` (where the ledger
is, open / open_existing), `schema` (migrations, the catalog, ids and claims), `statements`
(SQL by name, inserts, transactions) and `sources` (provenance, re-landing, quarantine).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb

from trainbudget.ledger.file import remove_created as _remove_created
from trainbudget.ledger.location import TeamLocation
from trainbudget.ledger.opening import (
    DEFAULT_WAIT_S,
    LedgerOpening,
    ledger_exists,
    resolve_ledger_path,
    set_default_wait,
)
from trainbudget.ledger.schema import LedgerSchema
from trainbudget.ledger.sources import Source, SourceLanding, sha256_of, source_options
from trainbudget.ledger.statements import LedgerStatements


class Ledger(LedgerOpening, LedgerSchema, LedgerStatements, SourceLanding):
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


def _nothing() -> None:
    pass


__all__ = [
    "DEFAULT_WAIT_S",
    "Ledger",
    "Source",
    "ledger_exists",
    "resolve_ledger_path",
    "set_default_wait",
    "sha256_of",
    "source_options",
]

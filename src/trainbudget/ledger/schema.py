"""The ledger's schema: migrations (sql/schema/NNN_name.sql, recorded in schema_version), which
tables exist, ids from sequences and landing claims (mixed into trainbudget.ledger.store.Ledger)."""

from __future__ import annotations

import re

import duckdb

from trainbudget.base.errors import EnvironmentFailure, InputError
from trainbudget.ledger import team
from trainbudget.ledger.sources import _now
from trainbudget.ledger.sql_files import migrations

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# How often a team ledger's first open re-reads the schema when another process migrates it.
_MIGRATE_TRIES = 5


class LedgerSchema:
    """The Ledger's migrations and catalog (mixed into trainbudget.ledger.store.Ledger)."""

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
            known = migrations()
            latest = max(version for version, _, _ in known)
            newer = sorted(v for v in done if v > latest)
            if newer:
                # An older trainbudget would write a newer ledger without what its migrations
                # keep in step (019: a replaced line's copy in tracked_lines).
                raise EnvironmentFailure(
                    f"ledger {self.location}: its schema ({newer[-1]:03d}) is newer than this "
                    "trainbudget's; upgrade trainbudget to open it"
                )
            pending = [(v, name, sql) for v, name, sql in known
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

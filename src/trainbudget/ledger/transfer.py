"""Ledger ⇄ Parquet: every table written as Parquet partitioned by ISO week, and read back.

`export_ledger` writes DIR/<table>/week=2026-W45/data_0.parquet (DuckDB's
`COPY … (FORMAT parquet, PARTITION_BY (week))`) plus DIR/ledger-export.json, the list of
tables with their row counts, for object storage or a warehouse. `import_ledger` builds a new
ledger from such a folder, row for row. The week of a row is the ISO week (UTC) of its
table's first time column in `_WEEK_COLUMNS` order; tables without one are not partitioned.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trainbudget.base.errors import InputError
from trainbudget.files.literal import duckdb_path
from trainbudget.ledger import team
from trainbudget.ledger.location import TeamLocation, resolve_location
from trainbudget.ledger.sql_files import migrations
from trainbudget.ledger.store import Ledger

MANIFEST = "ledger-export.json"
FORMAT = "trainbudget-ledger-export/1"
# The column whose week a row belongs to, in order of preference.
_WEEK_COLUMNS = (
    "start_time", "submit_time", "event_time", "created", "decided_at", "landed_at",
    "computed_at", "estimated_at", "analyzed_at", "fitted_at", "chosen_at", "quarantined_at",
)  # fmt: skip
_NOT_EXPORTED = {"schema_version"}  # rebuilt by the migrations on import
# The id columns drawn from a sequence (Ledger.next_id): moved past the imported ids.
ID_SEQUENCES = {
    ("sources", "source_id"): "source_id_seq",
    ("run_estimates", "estimate_id"): "estimate_id_seq",
    ("decisions", "decision_id"): "decision_id_seq",
    ("scaling_fits", "fit_id"): "scaling_fit_id_seq",
}


@dataclass(frozen=True)
class TableExport:
    """One table of an export: its rows and the column its week partitions come from."""

    table: str
    rows: int
    week_column: str | None


@dataclass(frozen=True)
class ExportResult:
    folder: Path
    schema_version: int
    tables: list[TableExport]


def export_ledger(book: Ledger, folder: Path) -> ExportResult:
    """Write every table of `book` under `folder` (new or empty); all or nothing."""
    folder = Path(folder)
    _check_target_folder(folder)
    schema_version = max(book.existing_versions())
    columns = _table_columns(book)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        # One snapshot: on the team ledger a run committing between two tables' reads would
        # leave, say, a line in sacct_rows without its copy in tracked_lines (migration 019).
        with book.transaction():
            tables = [
                _export_table(book, table, cols, staging / table)
                for table, cols in columns.items()
                if table not in _NOT_EXPORTED
            ]
        manifest = {
            "format": FORMAT,
            "schema_version": schema_version,
            "exported_at": datetime.now(UTC).isoformat(),
            "tables": [t.__dict__ for t in tables],
        }
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        if folder.exists():
            folder.rmdir()  # empty, checked above
        os.replace(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return ExportResult(folder, schema_version, tables)


def import_ledger(
    folder: Path,
    ledger_path: Path | str | TeamLocation | None,
    before_commit: Callable[[ExportResult], None] | None = None,
) -> ExportResult:
    """Build the new ledger `ledger_path` (a file, or an empty team ledger) from an export
    folder, in one transaction.

    Columns a later migration added are left empty when the export predates them, but for
    those derived from a row's other columns (sacct_rows.run_end_time), which are filled;
    `before_commit` (e.g. printing the result) runs inside the transaction.
    """
    folder = Path(folder)
    manifest = _read_manifest(folder)
    location = resolve_location(ledger_path)
    if not isinstance(location, TeamLocation) and location.exists():
        raise InputError(
            f"ledger {location}: already exists; import into a new ledger file "
            "(the import must not mix two histories)"
        )
    known = max(version for version, _, _ in migrations())
    if manifest["schema_version"] > known:
        raise InputError(
            f"{folder / MANIFEST}: schema_version {manifest['schema_version']} is newer than "
            f"this trainbudget's ({known}); upgrade trainbudget to import it"
        )
    tables = [TableExport(**t) for t in manifest["tables"]]
    with Ledger.open(location) as book, duckdb_path(folder) as plain:
        columns = _table_columns(book)
        if book.is_team and any(
            rows for table, rows in book.table_counts() if table not in _NOT_EXPORTED
        ):
            raise InputError(
                f"ledger {book.location}: already holds rows; import into a new, empty team "
                "ledger (the import must not mix two histories)"
            )
        with book.transaction():
            for table in tables:
                if table.table not in columns:
                    raise InputError(
                        f"{folder / MANIFEST}: table {table.table!r} is not in the ledger"
                    )
                _import_table(book, table, columns[table.table], Path(plain) / table.table)
            book.execute("ledger/transfer/derived_columns")
            _advance_sequences(book, columns)
            result = ExportResult(Path(book.location), manifest["schema_version"], tables)
            if before_commit is not None:
                before_commit(result)
    return result


def _check_target_folder(folder: Path) -> None:
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InputError(f"{folder}: exists and is not an empty folder; export into a new one")
    if not folder.parent.is_dir():
        raise InputError(f"{folder}: its parent folder does not exist")


def _table_columns(book: Ledger) -> dict[str, list[tuple[str, str, str | None]]]:
    columns: dict[str, list[tuple[str, str, str | None]]] = {}
    for table, column, data_type, default in book.query("ledger/transfer/table_columns"):
        columns.setdefault(table, []).append((column, data_type, default))
    return columns


def _export_table(
    book: Ledger, table: str, columns: list[tuple[str, str, str | None]], target: Path
) -> TableExport:
    # Table and column names come from DuckDB's own catalog; the target folder is ours.
    names = {name for name, _, _ in columns}
    week_column = next((c for c in _WEEK_COLUMNS if c in names), None)
    select = ", ".join(_exported(name, data_type) for name, data_type, _ in columns)
    rows = book.con.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
    destination = _sql_string(str(target))
    if week_column is None:
        target.mkdir()
        book.con.execute(
            f'COPY (SELECT {select} FROM "{table}") TO {_sql_string(str(target / "data.parquet"))} '
            "(FORMAT parquet)"
        )
    elif rows:
        week = f"coalesce(strftime(\"{week_column}\" AT TIME ZONE 'UTC', '%G-W%V'), 'none')"
        book.con.execute(
            f'COPY (SELECT {select}, {week} AS week FROM "{table}") TO {destination} '
            "(FORMAT parquet, PARTITION_BY (week))"
        )
    else:
        target.mkdir()  # an empty table: its folder says it was exported
    return TableExport(table, rows, week_column)


def _exported(name: str, data_type: str) -> str:
    # Parquet has no 128-bit integer: DuckDB would write HUGEINT as a lossy DOUBLE.
    if data_type == "HUGEINT":
        return f'CAST("{name}" AS DECIMAL(38, 0)) AS "{name}"'
    return f'"{name}"'


def _import_table(
    book: Ledger, table: TableExport, columns: list[tuple[str, str, str | None]], folder: Path
) -> None:
    files = sorted(str(p) for p in folder.rglob("*.parquet")) if folder.is_dir() else []
    if not folder.is_dir():
        raise InputError(f"{folder}: missing from the export (its manifest lists {table.table})")
    if files:
        stored = {
            row[0]
            for row in book.con.execute(
                "DESCRIBE SELECT * FROM read_parquet($files, union_by_name = true)",
                {"files": files},
            ).fetchall()
        }
        names = ", ".join(f'"{name}"' for name, _, _ in columns if name in stored)
        book.con.execute(
            f'INSERT INTO "{table.table}" ({names}) SELECT {names} '
            "FROM read_parquet($files, hive_partitioning = false, union_by_name = true)",
            {"files": files},
        )
    found = book.con.execute(f'SELECT count(*) FROM "{table.table}"').fetchone()[0]
    if found != table.rows:
        raise InputError(
            f"{folder}: {found:,} rows read where the manifest says {table.rows:,}; "
            "the export is incomplete"
        )


def _advance_sequences(book: Ledger, columns: dict[str, list[tuple[str, str, str | None]]]) -> None:
    """Move each id sequence of the new ledger past the imported ids (DuckDB has no setval;
    the team ledger's sequences are PostgreSQL's, drawn until past them the same way)."""
    for (table, name), sequence in ID_SEQUENCES.items():
        if table not in columns:
            continue
        (highest,) = book.con.execute(
            f'SELECT coalesce(max("{name}"), 0) FROM "{table}"'
        ).fetchone()
        if book.is_team:
            if int(highest) > 0:
                team.advance_sequence(book.con, sequence, int(highest))
            continue
        used = dict(book.query("ledger/transfer/sequences"))
        behind = int(highest) - int(used.get(sequence) or 0)
        if behind > 0:
            book.con.execute(
                f"SELECT max(nextval({_sql_string(sequence)})) FROM range($n)", {"n": behind}
            )


def _read_manifest(folder: Path) -> dict[str, Any]:
    path = folder / MANIFEST
    if not path.is_file():
        raise InputError(f"{folder}: not a ledger export (no {MANIFEST})")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise InputError(f"{path}: format must be {FORMAT!r}")
    if not isinstance(manifest.get("schema_version"), int) or not isinstance(
        manifest.get("tables"), list
    ):
        raise InputError(f"{path}: needs schema_version (integer) and tables (list)")
    for entry in manifest["tables"]:
        if not isinstance(entry, dict) or set(entry) != {"table", "rows", "week_column"}:
            raise InputError(f"{path}: each table needs exactly table, rows and week_column")
    return manifest


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"

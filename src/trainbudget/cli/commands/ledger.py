"""`trainbudget ledger init|info|export|import`: create, inspect, export and import the ledger."""

from __future__ import annotations

from pathlib import Path

import click

from trainbudget.cli.help import group
from trainbudget.cli.options import (
    compose,
    json_option,
    ledger_option,
    ledger_path,
    path_argument,
    whole_option,
)


@group("ledger", no_args_is_help=True)
def ledger_group() -> None:
    """Create, inspect, move and maintain the ledger (a DuckDB file or the team ledger)."""


# Every ledger command takes the ledger and prints JSON on request.
_common = compose(ledger_option, json_option, click.pass_context)
_folder = path_argument("folder", "The export folder (new or empty for export).", "DIR")


@ledger_group.command("init")
@_common
def init(ctx: click.Context, ledger: str | None, as_json: bool) -> None:
    """Create the ledger file (if missing) and apply pending schema migrations."""
    from trainbudget.cli.output import emit
    from trainbudget.ledger import Ledger

    with Ledger.open(ledger_path(ctx, ledger), migrate=False) as book:
        applied = book.migrate()
        versions = book.applied_versions()
        payload = {"ledger": book.location, "applied": applied, "schema_version": max(versions)}

    def render(console):
        done = ", ".join(f"{v:03d}" for v in applied) or "none (already up to date)"
        from trainbudget.cli.render.text import print_path

        print_path(
            console, payload["ledger"], f"ledger, schema version {payload['schema_version']:03d}:"
        )
        console.print(f"migrations applied now: {done}")

    emit(payload, as_json, render, committed=True)


@ledger_group.command("info")
@_common
def info(ctx: click.Context, ledger: str | None, as_json: bool) -> None:
    """List the ledger's tables with their row counts."""
    from trainbudget.cli.output import emit
    from trainbudget.ledger import Ledger

    with Ledger.open_existing(ledger_path(ctx, ledger)) as book:
        counts = book.table_counts()
        versions = book.existing_versions()
        payload = {
            "ledger": book.location,
            "schema_version": max(versions),
            "tables": [{"table": name, "rows": rows} for name, rows in counts],
        }

    def render(console):
        from rich.table import Table

        from trainbudget.cli.render.text import number_column, print_path

        print_path(console, payload["ledger"], f"ledger, schema {payload['schema_version']:03d}:")
        table = Table()
        table.add_column("table")
        number_column(table, "rows")
        for row in payload["tables"]:
            table.add_row(row["table"], f"{row['rows']:,}")
        console.print(table)

    emit(payload, as_json, render)


@ledger_group.command("export")
@_folder
@_common
def export(ctx: click.Context, folder: Path, ledger: str | None, as_json: bool) -> None:
    """Write every table as Parquet, partitioned by ISO week, under DIR (for object storage)."""
    from trainbudget.cli.output import emit
    from trainbudget.ledger import Ledger
    from trainbudget.ledger.transfer import export_ledger

    with Ledger.open_existing(ledger_path(ctx, ledger)) as book:
        result = export_ledger(book, folder)
    payload = _transfer_payload(result, "folder")
    emit(payload, as_json, _render_transfer(payload, "exported to"))


@ledger_group.command("import")
@_folder
@_common
def import_(ctx: click.Context, folder: Path, ledger: str | None, as_json: bool) -> None:
    """Build a new ledger from a `ledger export` folder, row for row, in one transaction."""
    from trainbudget.cli.output import emit
    from trainbudget.ledger.transfer import import_ledger

    # Imported and the new ledger closed, then printed (cli/output.py: commit, then print).
    payload = _transfer_payload(import_ledger(folder, ledger_path(ctx, ledger)), "ledger")
    emit(payload, as_json, _render_transfer(payload, "imported into"), committed=True)


def _transfer_payload(result, key: str) -> dict:
    return {
        key: str(result.folder),
        "schema_version": result.schema_version,
        "tables": [
            {"table": t.table, "rows": t.rows, "week_column": t.week_column} for t in result.tables
        ],
    }


def _render_transfer(payload: dict, verb: str):
    def render(console):
        from rich.table import Table

        from trainbudget.cli.render.text import number_column, print_path

        rows = sum(t["rows"] for t in payload["tables"])
        where = payload.get("folder") or payload.get("ledger")
        print_path(console, where, f"{len(payload['tables'])} tables, {rows:,} rows {verb}:")
        table = Table(show_edge=False)
        table.add_column("table")
        number_column(table, "rows")
        table.add_column("weeks by")
        for row in payload["tables"]:
            table.add_row(row["table"], f"{row['rows']:,}", row["week_column"] or "(whole table)")
        console.print(table)

    return render


@ledger_group.command("maintain")
@ledger_option
@whole_option(
    "--retention-days",
    "Expire team-ledger snapshots older than DAYS (time travel before that ends).",
    "DAYS",
    default=30,
)
@whole_option(
    "--safe-age-days",
    "Delete unreferenced and orphaned files only once older than DAYS.",
    "DAYS",
    default=7,
)
@json_option
@click.pass_context
def maintain_command(
    ctx: click.Context, ledger: str | None, retention_days: int, safe_age_days: int, as_json: bool
) -> None:
    """Team ledger: flush inlined rows, merge small files, expire old snapshots, delete old
    unreferenced files. A DuckDB file needs none of it: it runs CHECKPOINT and says so."""
    from trainbudget.cli.output import emit
    from trainbudget.ledger import Ledger
    from trainbudget.ledger.maintain import maintain

    with Ledger.open_existing(ledger_path(ctx, ledger)) as book:
        result = maintain(book, retention_days=retention_days, safe_age_days=safe_age_days)
    payload = {"ledger": result.ledger, "store": result.store, "steps": result.steps}

    def render(console):
        if result.store == "file":
            console.print(f"{result.ledger}: a DuckDB file; nothing to maintain (CHECKPOINT run)")
            return
        console.print(f"{result.ledger}: maintained")
        for step in result.steps:
            done = step["skipped"] or f"{step['count']:,}"
            console.print(f"  {step['what']}: {done}")

    emit(payload, as_json, render)

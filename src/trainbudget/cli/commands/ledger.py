"""`trainbudget ledger init|info`: create the ledger, show its tables and row counts."""

from __future__ import annotations

import typer

from trainbudget.cli.options import JsonOption, LedgerOption, ledger_path

app = typer.Typer(help="Create and inspect the DuckDB ledger.", no_args_is_help=True)


@app.command("init")
def init(ctx: typer.Context, ledger: LedgerOption = None, as_json: JsonOption = False) -> None:
    """Create the ledger file (if missing) and apply pending schema migrations."""
    from trainbudget.cli.output import emit
    from trainbudget.ledger import Ledger

    with Ledger.open(ledger_path(ctx, ledger), migrate=False) as book:
        applied = book.migrate()
        versions = book.applied_versions()
        payload = {"ledger": str(book.path), "applied": applied, "schema_version": max(versions)}

    def render(console):
        done = ", ".join(f"{v:03d}" for v in applied) or "none (already up to date)"
        from trainbudget.cli.render.text import print_path

        print_path(
            console, payload["ledger"], f"ledger, schema version {payload['schema_version']:03d}:"
        )
        console.print(f"migrations applied now: {done}")

    emit(payload, as_json, render)


@app.command("info")
def info(ctx: typer.Context, ledger: LedgerOption = None, as_json: JsonOption = False) -> None:
    """List the ledger's tables with their row counts."""
    from trainbudget.cli.output import emit
    from trainbudget.ledger import Ledger

    with Ledger.open_existing(ledger_path(ctx, ledger)) as book:
        counts = book.table_counts()
        versions = book.existing_versions()
        payload = {
            "ledger": str(book.path),
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

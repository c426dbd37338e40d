"""The ledger: open (a DuckDB file, or the team ledger on DuckLake), migrate, run sql/ files by
name, export / import, maintenance.

`from trainbudget.ledger import Ledger` is the entry point; the modules behind it are
`store` (the Ledger class: transactions, provenance, quarantine), `file` (the DuckDB file's
connection and clean-up), `sql_files` (SQL and migrations by name) and `transfer`
(export / import as Parquet).
"""

from trainbudget.ledger.sql_files import load_sql, migrations
from trainbudget.ledger.store import (
    DEFAULT_LEDGER,
    DEFAULT_WAIT_S,
    LEDGER_ENV,
    Ledger,
    Source,
    resolve_ledger_path,
    set_default_wait,
    sha256_of,
    source_options,
)

__all__ = [
    "DEFAULT_LEDGER",
    "DEFAULT_WAIT_S",
    "LEDGER_ENV",
    "Ledger",
    "Source",
    "load_sql",
    "migrations",
    "resolve_ledger_path",
    "set_default_wait",
    "sha256_of",
    "source_options",
]

"""The ledger: open (a DuckDB file, or the team ledger on DuckLake), migrate, run sql/ files by
name, export / import, maintenance.

`from trainbudget.ledger import Ledger` is the entry point; the modules behind it are
`location` (what --ledger names), `store` (the Ledger class, put together from `opening`:
where the ledger is, open; `schema`: migrations, the catalog; `statements`: SQL by name,
inserts, transactions), `sources` (provenance, re-landing, quarantine), `file` (the DuckDB file's
connection and clean-up), `team` (the DuckLake connection, and the keys and sequences
DuckLake lacks), `retry` (a run retried whole when its commit conflicts), `sql_files` (SQL
and migrations by name), `transfer` (export / import as Parquet) and `maintain` (upkeep).
"""

from __future__ import annotations

import importlib
from typing import Any

# Names are imported on first use (PEP 562), so `trainbudget.ledger.retry` or `.location`
# can be imported without DuckDB: the CLI's quick paths stay quick.
_WHERE = {
    "DATA_ENV": "location",
    "DEFAULT_LEDGER": "location",
    "LEDGER_ENV": "location",
    "TeamLocation": "location",
    "is_team": "location",
    "resolve_location": "location",
    "set_default_data_path": "location",
    "load_sql": "sql_files",
    "migrations": "sql_files",
    "DEFAULT_WAIT_S": "store",
    "Ledger": "store",
    "ledger_exists": "store",
    "Source": "sources",
    "resolve_ledger_path": "store",
    "set_default_wait": "store",
    "sha256_of": "sources",
    "source_options": "sources",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'trainbudget.ledger' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"trainbudget.ledger.{_WHERE[name]}"), name)
    globals()[name] = value
    return value

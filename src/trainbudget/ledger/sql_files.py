"""SQL files by name: sql/<stage>/[<phase>/]<name>.sql, and the numbered migrations
sql/schema/NNN_name.sql, the same files for both stores."""

from __future__ import annotations

import re
from functools import cache

from trainbudget.files.resources import resource_dir

_MIGRATION_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


@cache
def load_sql(name: str) -> str:
    """Return the text of sql/<name>.sql, e.g. load_sql("ledger/find_source")."""
    path = resource_dir("sql") / f"{name}.sql"
    if not path.is_file():
        raise KeyError(f"no SQL file named {name!r} (looked for {path})")
    return path.read_text(encoding="utf-8")


def migrations() -> list[tuple[int, str, str]]:
    """The numbered schema migrations in sql/schema/, in order: (version, name, sql)."""
    found = []
    for path in sorted((resource_dir("sql") / "schema").glob("*.sql")):
        match = _MIGRATION_NAME.match(path.name)
        if not match:
            raise ValueError(f"migration file {path.name} is not named NNN_name.sql")
        found.append((int(match.group(1)), path.stem, path.read_text(encoding="utf-8")))
    versions = [v for v, _, _ in found]
    if len(set(versions)) != len(versions):
        raise ValueError(f"two migrations share a number in {versions}")
    return found

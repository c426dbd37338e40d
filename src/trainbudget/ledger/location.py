"""Where a ledger lives: a DuckDB file (a path), or the team ledger on DuckLake
(`ducklake:postgres:<libpq connection string>`, its Parquet rows in a data folder).

`--ledger` / $TRAINBUDGET_LEDGER name either; `--ledger-data` / $TRAINBUDGET_LEDGER_DATA name
the team ledger's data folder (needed to create it; the catalog keeps it after that).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from trainbudget.base.errors import InputError
from trainbudget.ledger.preflight import TEAM_PREFIX, classify_ledger_location

DEFAULT_LEDGER = "trainbudget.duckdb"
LEDGER_ENV = "TRAINBUDGET_LEDGER"
DATA_ENV = "TRAINBUDGET_LEDGER_DATA"
_POSTGRES = "ducklake:postgres:"
_DATA = {"path": None}  # the CLI's --ledger-data, when given


@dataclass(frozen=True)
class TeamLocation:
    """The team ledger: its catalog in PostgreSQL (a libpq connection string) and the folder
    (or object-store prefix) its Parquet files go to, when one was given."""

    catalog: str
    data_path: str | None = None

    @property
    def text(self) -> str:
        """The location as --ledger takes it (a password in it included)."""
        return f"{_POSTGRES}{self.catalog}"

    def __str__(self) -> str:
        """The location for messages and output: a `password=` in it shown as `password=***`
        (PGPASSWORD or ~/.pgpass keep it out of the string altogether)."""
        return re.sub(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", r"\1***", self.text)


def set_default_data_path(path: str | os.PathLike[str] | None) -> None:
    """Make `path` the team ledger's data folder for later opens in this process (the CLI's
    --ledger-data), and of the processes it starts (flow runs of `serve`): the variable is
    set too. None falls back to $TRAINBUDGET_LEDGER_DATA."""
    _DATA["path"] = None if path is None else str(path)
    if path is not None:
        os.environ[DATA_ENV] = str(path)


def is_team(location: object) -> bool:
    """Whether `location` (a --ledger value, a Path or a TeamLocation) names the team ledger."""
    return isinstance(location, TeamLocation) or (
        location is not None and str(location).startswith(TEAM_PREFIX)
    )


def resolve_location(option: str | os.PathLike[str] | None = None) -> Path | TeamLocation:
    """The ledger --ledger, else $TRAINBUDGET_LEDGER, else ./trainbudget.duckdb names: a Path,
    or a TeamLocation for `ducklake:postgres:...` (InputError for another `ducklake:` form)."""
    if isinstance(option, TeamLocation):
        return option
    text = os.fspath(option) if option else (os.environ.get(LEDGER_ENV) or DEFAULT_LEDGER)
    if classify_ledger_location(text) == "file":  # InputError for md:, s3://, ...
        return Path(text)
    if not text.startswith(_POSTGRES) or not text[len(_POSTGRES) :].strip():
        raise InputError(
            f"--ledger {text}: a team ledger is ducklake:postgres:<libpq connection string>, "
            "e.g. 'ducklake:postgres:dbname=trainbudget host=db.internal user=tb'"
        )
    data = _DATA["path"] or os.environ.get(DATA_ENV) or None
    return TeamLocation(text[len(_POSTGRES) :].strip(), data)

"""Where the ledger is and opening it: --ledger as a path, whether it exists, the writers' wait,
and the Ledger's open / open_existing (mixed into trainbudget.ledger.store.Ledger)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from trainbudget.base.errors import InputError
from trainbudget.files.permissions import hold_private_umask
from trainbudget.ledger import team
from trainbudget.ledger.file import connect as _connect
from trainbudget.ledger.file import missing_folders as _missing_folders
from trainbudget.ledger.file import remove_created as _remove_created
from trainbudget.ledger.location import TeamLocation, resolve_location
from trainbudget.ledger.preflight import damage_reported
from trainbudget.ledger.sql_files import migrations

if TYPE_CHECKING:
    from trainbudget.ledger.store import Ledger


def resolve_ledger_path(option: str | os.PathLike[str] | None = None) -> Path:
    """Ledger location as a path: the --ledger option, else $TRAINBUDGET_LEDGER, else
    ./trainbudget.duckdb. For the team ledger, its data folder (or the location's text):
    things a run writes beside the ledger (live sacct output) go next to it. InputError for
    a location that is no local path and no team ledger (classify_ledger_location)."""
    location = resolve_location(option)
    if isinstance(location, TeamLocation):
        return Path(location.data_path or ".") / "ledger"
    return location


def ledger_exists(option: str | os.PathLike[str] | None = None) -> bool:
    """Whether the ledger --ledger names is there to read: the file exists, or it is the team
    ledger (its catalog is checked when it is opened)."""
    location = resolve_location(option)
    return isinstance(location, TeamLocation) or location.is_file()


# Seconds a writer waits for a ledger another process holds before "in use" (CLI: --wait).
DEFAULT_WAIT_S = 10.0
_WAIT = {"seconds": DEFAULT_WAIT_S}


def set_default_wait(seconds: float) -> None:
    """Make `seconds` the wait of every later `Ledger.open` in this process that names none
    (the CLI's --wait SECONDS)."""
    _WAIT["seconds"] = float(seconds)


class LedgerOpening:
    """The Ledger's opening: the DuckDB file (created and migrated if needed, removed again
    if that fails) or the team ledger (mixed into trainbudget.ledger.store.Ledger)."""

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        migrate: bool = True,
        wait_s: float | None = None,
    ) -> Ledger:
        """Open (creating if needed) the ledger at `path` and apply pending migrations; while
        another process holds it, retry for `wait_s` seconds (None: the process default, 10).

        A ledger this call creates is removed again, with the folders it made, if opening it
        fails or the `with` block using it raises: a failed run leaves no empty ledger behind.
        """
        location = resolve_location(path)
        if isinstance(location, TeamLocation):
            return cls._open_team(location, migrate=migrate, read_only=False)
        resolved = location
        # The ledger and its WAL hold users and accounts: 0600 while open, umask restored on close.
        release_umask = hold_private_umask()
        created = [] if resolved.exists() else [resolved, *_missing_folders(resolved.parent)]
        ledger = None
        try:
            resolved.parent.mkdir(parents=True, exist_ok=True)
            wait = _WAIT["seconds"] if wait_s is None else wait_s
            ledger = cls(resolved, _connect(resolved, read_only=False, wait_s=wait))
            ledger._created = created
            ledger._release_umask = release_umask
            if migrate:
                with damage_reported(resolved):
                    ledger.migrate()
        except BaseException:
            if ledger is not None:
                ledger.close()
            release_umask()
            _remove_created(created)
            raise
        return ledger

    @classmethod
    def open_existing(cls, path: str | os.PathLike[str] | None = None) -> Ledger:
        """Open a ledger that must exist, for reading: never creates the file or its folders.

        InputError `no ledger at X` when the file is missing. The connection is read-only;
        a ledger whose schema is behind this version is migrated first (the file exists, so
        nothing is created), as `Ledger.open` would.
        """
        location = resolve_location(path)
        if isinstance(location, TeamLocation):
            return cls._open_team(location, migrate=True, read_only=False)
        resolved = location
        if not resolved.is_file():
            raise InputError(
                f"ledger: no ledger at {resolved} (`trainbudget ledger init` creates one)"
            )
        ledger = cls(resolved, _connect(resolved, read_only=True))
        try:
            with damage_reported(resolved):
                versions = ledger.existing_versions()
            pending = {v for v, _, _ in migrations()} - set(versions)
        except BaseException:
            ledger.close()
            raise
        if pending:
            ledger.close()
            ledger = cls.open(resolved)
        return ledger

    @classmethod
    def _open_team(cls, location: TeamLocation, *, migrate: bool, read_only: bool) -> Ledger:
        release_umask = hold_private_umask()  # the Parquet files hold users and accounts too
        try:
            con = team.connect(location, read_only=read_only)
        except BaseException:
            release_umask()
            raise
        ledger = cls(resolve_ledger_path(location), con, location)
        ledger._release_umask = release_umask
        try:
            if migrate:
                ledger.migrate()
        except BaseException:
            ledger.close()
            raise
        return ledger

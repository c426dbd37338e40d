"""The ledger's file: connect to it (read-write or read-only), and remove what a failed open
created. Errors name the file: locked by another process after the wait (LedgerBusyError),
no DuckDB file (InputError), the environment failing (disk full, read-only file system:
EnvironmentFailure).
"""

from __future__ import annotations

import contextlib
import re
import time
from pathlib import Path

import duckdb

from trainbudget.base.errors import (
    EnvironmentFailure,
    InputError,
    LedgerBusyError,
    environment_reason,
)
from trainbudget.ledger.preflight import (
    damage_reason,
    damaged_ledger,
    duckdb_file_name,
    truncation,
)


def missing_folders(folder: Path) -> list[Path]:
    """The folders `mkdir(parents=True)` would create for `folder`, deepest first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def remove_created(created: list[Path]) -> None:
    """Remove a ledger file Ledger.open created (and its WAL), then the folders it made."""
    if not created:
        return
    ledger, *folders = created
    for path in (ledger, ledger.with_name(ledger.name + ".wal")):
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
    for folder in folders:  # deepest first; a folder something else wrote into stays
        with contextlib.suppress(OSError):
            folder.rmdir()


# How often a waiting open retries a ledger another process holds (seconds).
_RETRY_S = 0.1


def connect(path: Path, *, read_only: bool, wait_s: float = 0) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection to `path`, retrying for up to `wait_s` seconds while another process
    holds its lock; LedgerBusyError after that, InputError when it is no DuckDB file."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return _connect_once(path, read_only=read_only)
        except LedgerBusyError:
            left = deadline - time.monotonic()
            if left <= 0:
                waited = f" (waited {wait_s:g} s; --wait SECONDS waits longer)" if wait_s else ""
                raise LedgerBusyError(
                    f"ledger {path} is in use by another process{waited}; "
                    "try again when it has finished"
                ) from None
            time.sleep(min(_RETRY_S, left))


# Nothing is downloaded or loaded behind the ledger's back (the extensions it uses are built in).
_CONFIG = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}


def _connect_once(path: Path, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    why = _settled_truncation(path)
    if why:
        raise damaged_ledger(path, why)
    try:
        con = duckdb.connect(duckdb_file_name(path), read_only=read_only, config=_CONFIG)
    except duckdb.IOException as exc:
        # "Could not set lock on file … Conflicting lock is held"; not "block", which DuckDB
        # 1.5's checksum errors on a damaged file name.
        if re.search(r"\block\b", str(exc).lower()) and not damage_reason(str(exc)):
            raise LedgerBusyError(f"ledger {path} is in use by another process") from None
        if damage_reason(str(exc)):
            raise damaged_ledger(path, damage_reason(str(exc))) from None
        reason = environment_reason(str(exc))
        if reason:
            raise EnvironmentFailure(f"ledger {path}: {reason} ({_first_line(exc)})") from None
        raise InputError(f"ledger {path}: cannot open: {_first_line(exc)}") from None
    except duckdb.Error as exc:
        if damage_reason(str(exc)) and truncation(path) is None and _is_duckdb(path):
            raise damaged_ledger(path, damage_reason(str(exc))) from None
        raise InputError(f"ledger {path}: not a DuckDB file ({_first_line(exc)})") from None
    # DuckDB draws a progress bar on stdout for long queries; that would break --json.
    con.execute("SET enable_progress_bar = false")
    return con


# A writer in another process (a checkpoint) can leave the file between whole blocks for a
# moment: a short size is read again before it counts as cut short.
_SETTLE_TRIES = 5
_SETTLE_S = 0.1


def _settled_truncation(path: Path) -> str | None:
    """truncation(path), read again up to _SETTLE_TRIES times while it says the file is short."""
    why = truncation(path)
    for _ in range(_SETTLE_TRIES):
        if why is None:
            return None
        time.sleep(_SETTLE_S)
        why = truncation(path)
    return why


def _is_duckdb(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(12)[8:12] == b"DUCK"
    except OSError:
        return False


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__

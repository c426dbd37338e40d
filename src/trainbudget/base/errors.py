"""The one error type a user sees: a message that names the file, line or field at fault."""

from __future__ import annotations

import errno

# OS errors that mean the machine, not the input, failed: the CLI exits 1 for these.
ENVIRONMENT_ERRNOS: dict[int, str] = {
    errno.ENOSPC: "no space left on device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EPIPE: "broken pipe",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
    errno.EIO: "input/output error",
    errno.ENOMEM: "out of memory",
}


# How DuckDB (and other libraries that report an OS error in text only) spell those failures.
_ENVIRONMENT_TEXTS = (
    "no space left on device",
    "disk quota exceeded",
    "permission denied",
    "read-only file system",
    "input/output error",
    "out of memory",
)


def environment_reason(text: str) -> str | None:
    """The environment failure a library's error text reports ("no space left on device"), or
    None when it reports none."""
    lowered = text.lower()
    return next((reason for reason in _ENVIRONMENT_TEXTS if reason in lowered), None)


class InputError(Exception):
    """Bad input or usage. The CLI prints the message on one line and exits with code 2."""


class EnvironmentFailure(Exception):
    """The environment failed (disk full, broken pipe, permission): one line, exit code 1."""


class LedgerBusyError(EnvironmentFailure):
    """The ledger file is locked by another process (after any wait): one line, exit code 1."""


class LedgerConflict(EnvironmentFailure):
    """A team-ledger commit conflicted with another writer's and was rolled back whole; the
    run may be retried from the start (trainbudget.ledger.retry)."""


def naming(exc: OSError, path: object) -> OSError:
    """`exc` with `path` as its file when the failing call did not say (a read() that hit EIO)."""
    if exc.filename is None:
        exc.filename = str(path)
    return exc


def describe_os_error(exc: OSError) -> str:
    """One line for an OS error: what failed, on which file, e.g. `/x: no space left on device`."""
    reason = ENVIRONMENT_ERRNOS.get(exc.errno or 0) or exc.strerror or type(exc).__name__
    names = [str(name) for name in (exc.filename, exc.filename2) if name is not None]
    return f"{' -> '.join(names)}: {reason}" if names else reason

"""Every error that reaches the command line as one stderr line and an exit code.

2: bad input or usage (InputError, a missing or wrong input path). 1: the environment failed
(disk full, broken pipe, permission, read-only file system, out of memory) or an internal
error, which names its type and asks for `--debug` to see the traceback.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys

from trainbudget.base.errors import (
    EnvironmentFailure,
    InputError,
    describe_os_error,
    environment_reason,
)
from trainbudget.ledger.preflight import damage_reason, damaged_file_in, damaged_ledger

# A path the user gave that is missing or of the wrong kind: bad input, not a failing machine.
_INPUT_ERRNOS = {errno.ENOENT, errno.EISDIR, errno.ENOTDIR, errno.EEXIST, errno.ENAMETOOLONG}


def report_failure(exc: Exception) -> int:
    """Print `exc` as one `trainbudget: error: ...` line on stderr; return the exit code."""
    code, message = classify(exc)
    if code == 1 and _stdout_broken(exc):
        silence_stdout()
    with contextlib.suppress(OSError):  # stderr itself gone: the exit code is all that is left
        print(f"trainbudget: error: {message}", file=sys.stderr, flush=True)
    return code


def classify(exc: BaseException) -> tuple[int, str]:
    """(exit code, one-line message) for an exception that reached the command line."""
    if isinstance(exc, InputError):
        return 2, _one_line(str(exc))
    if isinstance(exc, EnvironmentFailure):
        return 1, _one_line(str(exc))
    if isinstance(exc, BrokenPipeError):
        return 1, "stdout: broken pipe (the reader closed it)"
    if isinstance(exc, MemoryError):
        return 1, "out of memory"
    if isinstance(exc, OSError) and exc.errno is not None:
        # ENVIRONMENT_ERRNOS and any other OS failure exit 1; a wrong input path exits 2.
        return (2 if exc.errno in _INPUT_ERRNOS else 1), _one_line(describe_os_error(exc))
    if type(exc).__module__.split(".")[0] in {"duckdb", "_duckdb"}:
        reason = environment_reason(str(exc))  # DuckDB reports OS errors in its text only
        if reason:
            return 1, f"ledger: {reason} ({_one_line(str(exc))})"
        damage = damage_reason(str(exc))  # a damaged block met after the open's checks
        if damage:
            return 2, str(damaged_ledger(damaged_file_in(str(exc)) or "file", damage))
    return 1, (
        f"internal error: {type(exc).__name__}: {_one_line(str(exc)) or 'no message'} "
        "(run with --debug for the traceback)"
    )


def _one_line(text: str) -> str:
    """The message on one line: its lines joined, at most 500 characters."""
    joined = " ".join(part.strip() for part in text.strip().splitlines() if part.strip())
    return joined if len(joined) <= 500 else joined[:497] + "..."


def _stdout_broken(exc: BaseException) -> bool:
    return isinstance(exc, BrokenPipeError | EnvironmentFailure) or (
        isinstance(exc, OSError) and exc.filename is None
    )


def silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass

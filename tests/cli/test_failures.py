"""Every exception that reaches the command line: its exit code and its one line."""

from __future__ import annotations

import errno

import pytest

from trainbudget.base.errors import EnvironmentFailure, InputError
from trainbudget.cli.failures import classify


@pytest.mark.parametrize(
    ("exc", "code", "message"),
    [
        (InputError("plan.yaml:3: main.gpus: must be positive"), 2,
         "plan.yaml:3: main.gpus: must be positive"),
        (EnvironmentFailure("stdout: no space left on device"), 1,
         "stdout: no space left on device"),
        (OSError(errno.ENOSPC, "No space left on device", "/r/report.html"), 1,
         "/r/report.html: no space left on device"),
        (PermissionError(errno.EACCES, "Permission denied", "/r"), 1, "/r: permission denied"),
        (OSError(errno.EROFS, "Read-only file system", "/r"), 1, "/r: read-only file system"),
        (BrokenPipeError(errno.EPIPE, "Broken pipe"), 1,
         "stdout: broken pipe (the reader closed it)"),
        (FileNotFoundError(errno.ENOENT, "No such file or directory", "in.csv"), 2,
         "in.csv: No such file or directory"),
        (MemoryError(), 1, "out of memory"),
        (ValueError("boom\nsecond line"), 1,
         "internal error: ValueError: boom second line (run with --debug for the traceback)"),
        (KeyError("x"), 1, "internal error: KeyError: 'x' (run with --debug for the traceback)"),
    ],
)  # fmt: skip
def test_classify(exc: BaseException, code: int, message: str) -> None:
    assert classify(exc) == (code, message)


def test_duckdb_disk_full_is_an_environment_failure() -> None:
    import duckdb

    exc = duckdb.IOException('IO Error: Could not write file "/l.duckdb": No space left on device')
    code, message = classify(exc)
    assert code == 1 and message.startswith("ledger: no space left on device (IO Error")


def test_a_long_message_stays_one_short_line() -> None:
    code, message = classify(InputError("x" * 2000 + "\n" + "y"))
    assert code == 2 and "\n" not in message and len(message) == 500

"""Printing results: one JSON object on stdout with --json, else rich tables; notes on stderr."""

from __future__ import annotations

import errno
import shutil
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, BinaryIO

from rich.console import Console

from trainbudget.errors import EnvironmentFailure, describe_os_error
from trainbudget.output import dumps

stderr_console = Console(stderr=True, highlight=False)


class _StdoutConsole(Console):
    """rich's Console, except that a closed pipe is an error this command reports (rich's
    own handling exits 1 silently, with no line on stderr)."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError(errno.EPIPE, "broken pipe")


def emit(payload: dict[str, Any], as_json: bool, render: Callable[[Console], None]) -> None:
    """Print `payload` as one JSON object (and nothing else on stdout) or render it for people."""
    body = dumps(payload) + b"\n" if as_json else None
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        raise EnvironmentFailure("stdout: closed (nowhere to print the result)")
    try:
        if body is not None:
            sys.stdout.buffer.write(body)
        else:
            render(_StdoutConsole(highlight=False))
        sys.stdout.flush()
    except OSError as exc:
        raise stdout_failure(exc) from exc


def stdout_failure(exc: OSError) -> EnvironmentFailure:
    """A failed write to stdout (disk full, /dev/full, closed pipe) as an environment failure."""
    if isinstance(exc, BrokenPipeError):
        return EnvironmentFailure("stdout: broken pipe (the reader closed it)")
    return EnvironmentFailure(f"stdout: {describe_os_error(exc)}")


def emit_with_array(payload: dict[str, Any], key: str, array_path: Path, out: BinaryIO) -> None:
    """Write `payload` plus `key: <the JSON array in array_path>` as one JSON object.

    The array (hundreds of MB for a million-line reconcile week) is copied from the file DuckDB
    wrote instead of being parsed and re-serialised.
    """
    body = dumps({**payload, key: None})
    marker = dumps(key) + b":null}"
    if not body.endswith(marker):
        raise AssertionError(f"{key} must be the last key of the payload")
    with array_path.open("rb") as array:
        try:
            out.write(body[: -len(b"null}")])
            shutil.copyfileobj(array, out, 1 << 20)
            out.write(b"}\n")
            out.flush()
        except OSError as exc:
            raise stdout_failure(exc) from exc


def working(message: str) -> AbstractContextManager[Any]:
    """A spinner on stderr while long work runs; silent when stderr is not a terminal."""
    if not stderr_console.is_terminal:
        return nullcontext()
    return stderr_console.status(message, spinner="dots")


def warn(message: str) -> None:
    """A warning for the user, always on stderr so --json output stays clean."""
    stderr_console.print(f"[yellow]warning:[/yellow] {message}", soft_wrap=True)

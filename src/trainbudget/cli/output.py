"""Printing results: one JSON object on stdout with --json, else rich tables; notes on stderr.

Commit, then print: a command that writes the ledger commits and closes it first, then prints
with `committed=True`. A reader that closes the pipe early (`| head -3`) then ends the command
quietly with exit 0, the way Unix tools do, and the landing stays; any other failure to write
stdout (a full disk) is still exit 1, and says that the ledger was already committed.
"""

from __future__ import annotations

import errno
import shutil
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, BinaryIO

from trainbudget.base.errors import EnvironmentFailure, describe_os_error
from trainbudget.base.exact_json import dumps
from trainbudget.cli.failures import silence_stdout

# rich's Console is built on first use: `--json` output never imports it (start-up time).
_CONSOLES: dict[str, Any] = {}


def __getattr__(name: str) -> Any:
    if name == "stderr_console":
        return _stderr_console()
    raise AttributeError(name)


def _stderr_console() -> Any:
    """The stderr console; rich honours NO_COLOR, and prints no styles when piped."""
    if "stderr" not in _CONSOLES:
        from rich.console import Console

        _CONSOLES["stderr"] = Console(stderr=True, highlight=False)
    return _CONSOLES["stderr"]


def _stdout_console() -> Any:
    """rich's Console, except that a closed pipe is an error this command reports (rich's
    own handling exits 1 silently, with no line on stderr)."""
    from rich.console import Console

    class StdoutConsole(Console):
        def on_broken_pipe(self) -> None:
            raise BrokenPipeError(errno.EPIPE, "broken pipe")

    return StdoutConsole(highlight=False)


def lazy(module: str, name: str) -> Callable[..., Any]:
    """A renderer imported when first called, so `--json` never imports rich's tables."""

    def call(*args: Any) -> Any:
        import importlib

        return getattr(importlib.import_module(module), name)(*args)

    return call


def emit(
    payload: dict[str, Any],
    as_json: bool,
    render: Callable[[Any], None],
    *,
    committed: bool = False,
) -> None:
    """Print `payload` as one JSON object (and nothing else on stdout) or render it for people.

    `committed`: the command's ledger writes are committed and the ledger closed (see above).
    """
    body = dumps(payload) + b"\n" if as_json else None
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        if committed:
            return
        raise EnvironmentFailure("stdout: closed (nowhere to print the result)")
    try:
        if body is not None:
            sys.stdout.buffer.write(body)
        else:
            render(_stdout_console())
        sys.stdout.flush()
    except OSError as exc:
        _stdout_failed(exc, committed)


def _stdout_failed(exc: OSError, committed: bool) -> None:
    """Return quietly when the reader left after the commit; raise the failure otherwise."""
    if committed and isinstance(exc, BrokenPipeError):
        silence_stdout()
        return
    raise stdout_failure(exc, committed) from exc


def stdout_failure(exc: OSError, committed: bool = False) -> EnvironmentFailure:
    """A failed write to stdout (disk full, /dev/full, closed pipe) as an environment failure."""
    kept = " (the ledger was committed before printing)" if committed else ""
    if isinstance(exc, BrokenPipeError):
        return EnvironmentFailure(f"stdout: broken pipe (the reader closed it){kept}")
    return EnvironmentFailure(f"stdout: {describe_os_error(exc)}{kept}")


def emit_with_array(
    payload: dict[str, Any], key: str, array_path: Path, out: BinaryIO, *, committed: bool = False
) -> None:
    """Write `payload` plus `key: <the JSON array in array_path>` as one JSON object.

    The array (hundreds of MB for a million-line reconcile week) is copied from the file DuckDB
    wrote instead of being parsed and re-serialised. `committed` as for `emit`.
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
            _stdout_failed(exc, committed)


def working(message: str) -> AbstractContextManager[Any]:
    """A spinner on stderr while long work runs; silent when stderr is not a terminal."""
    if not _stderr_console().is_terminal:
        return nullcontext()
    return _stderr_console().status(message, spinner="dots")


class Progress:
    """A progress bar on stderr for work counted in steps (trace files); silent when stderr
    is not a terminal. `advance()` after each step."""

    def __init__(self, message: str, total: int) -> None:
        self._bar: Any = None
        if total > 1 and _stderr_console().is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=_stderr_console(),
                transient=True,
            )
            self._task = self._bar.add_task(message, total=total)

    def __enter__(self) -> Progress:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def advance(self, steps: int = 1) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, steps)


def warn(message: str) -> None:
    """A warning for the user, always on stderr so --json output stays clean."""
    _stderr_console().print(f"[yellow]warning:[/yellow] {message}", soft_wrap=True)

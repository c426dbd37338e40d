"""Run a command in a fresh process: wall seconds and that process's own peak RSS (wait4)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path


def timed(argv: list[str], out: Path, env: dict[str, str] | None = None) -> tuple[float, int]:
    """Run argv with stdout to the file `out` (as a user's `> out.json`); (wall s, peak RSS
    bytes of that child). Raises CalledProcessError naming its stderr when it fails."""
    errors = out.with_name(out.name + ".stderr")
    with out.open("wb") as sink, errors.open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=sink, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    stderr = errors.read_bytes()
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    if code != 0:
        raise subprocess.CalledProcessError(code, argv, stderr=stderr)
    return wall, usage.ru_maxrss * 1024

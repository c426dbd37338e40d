"""Run a command in a fresh process: wall seconds and that process's own peak RSS.

The child is started through GNU time (`/usr/bin/time -f %M`): Linux carries a process's
peak-RSS mark across fork and exec, so a child forked straight from a large bench process
would report the bench's RSS; time's own few MB are what its child inherits instead.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path


def timed(argv: list[str], out: Path, env: dict[str, str] | None = None) -> tuple[float, int]:
    """Run argv with stdout to the file `out` (as a user's `> out.json`); (wall s, peak RSS
    bytes of that child). Raises CalledProcessError naming its stderr when it fails."""
    errors = out.with_name(out.name + ".stderr")
    rss_file = out.with_name(out.name + ".rss")
    with out.open("wb") as sink, errors.open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", str(rss_file), *argv],
            stdout=sink, stderr=err, env=env, check=False,
        )  # fmt: skip
        wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, argv, stderr=errors.read_bytes())
    kib = int(rss_file.read_text().strip().splitlines()[-1])
    return wall, kib * 1024


def wall_seconds(argv: list[str], env: dict[str, str], cwd: str) -> float:
    """Wall seconds of one run of argv (stdout discarded), for start-up timings."""
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def trainbudget_command() -> list[str]:
    """How a user starts trainbudget here: the venv's script, else `python -m trainbudget`."""
    script = Path(sys.executable).with_name("trainbudget")
    return [str(script)] if script.exists() else [sys.executable, "-m", "trainbudget"]

"""Find the rank trace files behind the paths a user gives, and summarize them in parallel.

A path is a trace file (plain or .gz) or a folder whose `*.json` / `*.json.gz` files are one
rank each. Each file is summarized by `summarize_rank` in its own worker process (ranks are
independent), and the results keep the order of the files.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from trainbudget.base.errors import InputError
from trainbudget.trace.summary import RankSummary, summarize_rank

TRACE_SUFFIXES = (".json", ".json.gz")


def trace_files(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The trace files named by `paths` (folders expanded, sorted); InputError if none."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            inside = sorted(
                p for p in path.iterdir() if p.is_file() and p.name.endswith(TRACE_SUFFIXES)
            )
            if not inside:
                raise InputError(f"{path}: folder holds no *.json or *.json.gz trace files")
            found.extend(inside)
        elif path.is_file():
            found.append(path)
        else:
            raise InputError(f"{path}: no such file or folder")
    duplicates = {p for p in found if found.count(p) > 1}
    if duplicates:
        raise InputError(f"{sorted(duplicates)[0]}: given more than once")
    return found


def summarize_files(
    files: Sequence[Path],
    *,
    hta_compatible: bool = False,
    max_json_bytes: int | None = None,
    jobs: int | None = None,
    on_file: Callable[[], object] | None = None,
) -> list[RankSummary]:
    """Summarize each file in up to `jobs` processes (default: one per core, at most one a file);
    `on_file()` is called as each file is done (a progress bar)."""
    work = partial(summarize_rank, hta_compatible=hta_compatible, max_json_bytes=max_json_bytes)
    workers = min(len(files), jobs or os.cpu_count() or 1)
    done = on_file or (lambda: None)
    if workers <= 1:
        return [_then(work(f), done) for f in files]
    # fork: workers start in milliseconds and inherit the imported modules.
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return [_then(summary, done) for summary in pool.map(work, files)]


def _then(summary: RankSummary, done: Callable[[], object]) -> RankSummary:
    done()
    return summary

"""Shared helpers for benchmarks: where results go and which machine produced them."""

from __future__ import annotations

import os
import platform
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def machine() -> dict[str, Any]:
    """The machine a result was measured on: benchmarks report ratios, but note the box too."""
    mem_bytes = None
    if hasattr(os, "sysconf") and "SC_PHYS_PAGES" in os.sysconf_names:
        mem_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    cpu_model = None
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    return {
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model,
        "memory_bytes": mem_bytes,
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def copy_at_rest(source: Path, target: Path) -> None:
    """Copy a ledger and flush the copy to disk before a timed run reads it.

    A fresh copy is all dirty page cache; the run's first fsync (DuckDB's commit) would write
    it out and be timed for it: 0.35-0.45 s for a 332 MB ledger, where a ledger at rest has
    nothing to flush (bench/growth_profile.py's weekly runs measured that way until
    2026-12-06).
    """
    shutil.copyfile(source, target)
    with open(target, "rb") as copy:
        os.fsync(copy.fileno())


def write_result(name: str, payload: dict[str, Any]) -> Path:
    """Write bench/results/<name>.json with the machine noted; return the path."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    path.write_bytes(orjson.dumps({"machine": machine(), **payload}, option=orjson.OPT_INDENT_2))
    return path

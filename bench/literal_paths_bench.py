"""Benchmark: landing an sacct export named `week*.psv` (read through a private symlink) costs
the same as landing it under a plain name.

Generates a 200,000-line export with bench/reconcile_bench.py's generator, copies it under a
plain and a glob-like name, and lands each into a fresh ledger in its own process, alternating,
three times; records the best wall time and peak RSS of each. Usage:
python bench/literal_paths_bench.py [--lines N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import write_result
from reconcile_bench import generate

LAND = """
import sys
from pathlib import Path
from trainbudget.ledger import Ledger
from trainbudget.reconcile.land import land_sacct
with Ledger.open(Path(sys.argv[2])) as book:
    print(land_sacct(book, Path(sys.argv[1])).rows_landed)
"""


def _land(export: Path, ledger: Path) -> tuple[float, int, int]:
    """(wall seconds, peak RSS bytes, rows landed) of one landing in a fresh process."""
    ledger.unlink(missing_ok=True)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", LAND, str(export), str(ledger)], stdout=subprocess.PIPE
    )
    out = proc.stdout.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"landing {export} failed")
    return time.perf_counter() - start, usage.ru_maxrss * 1024, int(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="literal-") as tmp:
        folder = Path(tmp)
        sacct, _, _ = generate(folder, args.lines)
        names = {"plain": folder / "week1.psv", "glob": folder / "week*.psv"}
        for path in names.values():
            shutil.copyfile(sacct, path)
        runs: dict[str, list[tuple[float, int, int]]] = {k: [] for k in names}
        for _ in range(3):
            for kind, path in names.items():
                runs[kind].append(_land(path, folder / "ledger.duckdb"))
    result = {
        kind: {
            "best_seconds": round(min(r[0] for r in rs), 3),
            "all_seconds": [round(r[0], 3) for r in rs],
            "peak_rss_bytes": max(r[1] for r in rs),
            "rows_landed": rs[0][2],
        }
        for kind, rs in runs.items()
    }
    result["glob_over_plain"] = round(
        result["glob"]["best_seconds"] / result["plain"]["best_seconds"], 3
    )
    path = write_result("literal_paths", {"lines": args.lines, **result})
    print(result, f"wrote {path}")


if __name__ == "__main__":
    main()

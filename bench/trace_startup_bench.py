"""Benchmark: the fixed cost of one small trace against `trainbudget --version`, per code tree.

Issue 28, goal 3: one small trace (the demo's rank 0, 12.8 kB gzipped) costs at most 0.4 s
more than `trainbudget --version`. Each run is a fresh process (PYTHONPATH at the tree's src/),
interleaved: --version, trace landed in a fresh ledger, trace --no-ledger, for each tree in
turn, so every round sees the same load; medians of --rounds, load noted per round.

Usage: python bench/trace_startup_bench.py --tree main=/tmp/m0/src --tree new=src [--rounds 9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import write_result
from _runs import wall_seconds

REPO = Path(__file__).resolve().parents[1]
TRACE = REPO / "src" / "trainbudget" / "demo_data" / "traces" / "rank-0.pt.trace.json.gz"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", required=True, metavar="LABEL=SRC")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    trees = dict(t.split("=", 1) for t in args.tree)
    tb = [sys.executable, "-m", "trainbudget"]
    cases = {
        "version": [*tb, "--version"],
        "trace_landed": [*tb, "trace", str(TRACE), "--json"],
        "trace_no_ledger": [*tb, "trace", str(TRACE), "--no-ledger", "--json"],
    }
    times: dict[str, dict[str, list[float]]] = {t: {c: [] for c in cases} for t in trees}
    loads = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.rounds):
            loads.append(os.getloadavg()[0])
            for label, src in trees.items():
                for case, argv in cases.items():
                    ledger = Path(tmp) / f"{label}-{k}.duckdb"
                    env = {
                        **os.environ,
                        "PYTHONPATH": str(Path(src).resolve()),
                        "TRAINBUDGET_LEDGER": str(ledger),
                        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
                        "DO_NOT_TRACK": "1",
                    }
                    times[label][case].append(round(wall_seconds(argv, env, tmp), 3))
    figures = {}
    for label, by_case in times.items():
        med = {case: statistics.median(v) for case, v in by_case.items()}
        figures[label] = {
            "median_seconds": {c: round(m, 3) for c, m in med.items()},
            "trace_landed_above_version_s": round(med["trace_landed"] - med["version"], 3),
            "trace_no_ledger_above_version_s": round(med["trace_no_ledger"] - med["version"], 3),
            "runs": by_case,
        }
        print(label, figures[label]["median_seconds"],
              "landed - version", figures[label]["trace_landed_above_version_s"])  # fmt: skip
    print(write_result("trace_startup", {
        "trace": str(TRACE.relative_to(REPO)), "rounds": args.rounds, "trees": trees,
        "load_1min_per_round": loads, "figures": figures, "target_above_version_s": 0.4,
        "note": "2 cores shared with other sessions; interleaved, medians",
    }))  # fmt: skip


if __name__ == "__main__":
    main()

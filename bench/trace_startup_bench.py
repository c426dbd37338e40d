"""Benchmark: the fixed cost of one small trace against `trainbudget --version`, per code tree.

Issue 28, goal 3: one small trace (the demo's rank 0, 12.8 kB gzipped) costs at most 0.4 s
more than `trainbudget --version`. Each run is a fresh process (PYTHONPATH at the tree's src/),
interleaved: --version, trace landed in a fresh ledger, the same trace again into that ledger
(existing, landed before: a no-op), trace --no-ledger, and `pilot` on the example step log
(fresh ledger, --no-ledger), for each tree in turn, so every round sees the same load; medians
of --rounds of wall and of CPU seconds (the child's user + sys), load noted per round.

Usage: python bench/trace_startup_bench.py --tree main=/tmp/m0/src --tree new=src [--rounds 9]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import write_result

REPO = Path(__file__).resolve().parents[1]
TRACE = REPO / "src" / "trainbudget" / "demo_data" / "traces" / "rank-0.pt.trace.json.gz"
STEPS = REPO / "examples" / "pilot-7b.steps.csv"


def wall_and_cpu_seconds(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """(wall s, CPU s = user + sys) of one run of argv, stdout and stderr discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", required=True, metavar="LABEL=SRC")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    trees = dict(t.split("=", 1) for t in args.tree)
    tb = [sys.executable, "-m", "trainbudget"]
    pilot = [*tb, "pilot", str(STEPS), "--params", "7e9", "--gpu", "H100-SXM", "--json"]
    cases = {  # (argv, ledger: "fresh" / "same" as the case before / None)
        "version": ([*tb, "--version"], None),
        "trace_landed": ([*tb, "trace", str(TRACE), "--json"], "fresh"),
        "trace_landed_existing": ([*tb, "trace", str(TRACE), "--json"], "same"),
        "trace_no_ledger": ([*tb, "trace", str(TRACE), "--no-ledger", "--json"], None),
        "pilot_landed": (pilot, "fresh"),
        "pilot_no_ledger": ([*pilot, "--no-ledger"], None),
    }
    wall: dict[str, dict[str, list[float]]] = {t: {c: [] for c in cases} for t in trees}
    cpu: dict[str, dict[str, list[float]]] = {t: {c: [] for c in cases} for t in trees}
    loads = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.rounds):
            loads.append(os.getloadavg()[0])
            for label, src in trees.items():
                ledger = Path(tmp) / "unused.duckdb"
                for case, (argv, which) in cases.items():
                    if which == "fresh":
                        ledger = Path(tmp) / f"{label}-{k}-{case}.duckdb"
                    env = {
                        **os.environ,
                        "PYTHONPATH": str(Path(src).resolve()),
                        "TRAINBUDGET_LEDGER": str(ledger),
                        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
                        "DO_NOT_TRACK": "1",
                    }
                    w, c = wall_and_cpu_seconds(argv, env, tmp)
                    wall[label][case].append(round(w, 3))
                    cpu[label][case].append(round(c, 3))
    figures = {}
    for label in trees:
        med = {case: statistics.median(v) for case, v in wall[label].items()}
        med_cpu = {case: statistics.median(v) for case, v in cpu[label].items()}
        figures[label] = {
            "median_seconds": {c: round(m, 3) for c, m in med.items()},
            "median_cpu_seconds": {c: round(m, 3) for c, m in med_cpu.items()},
            "above_version_s": {c: round(m - med["version"], 3) for c, m in med.items()},
            "above_version_cpu_s": {
                c: round(m - med_cpu["version"], 3) for c, m in med_cpu.items()
            },
            "trace_landed_above_version_s": round(med["trace_landed"] - med["version"], 3),
            "trace_no_ledger_above_version_s": round(med["trace_no_ledger"] - med["version"], 3),
            "runs": wall[label],
            "cpu_runs": cpu[label],
        }
        print(label, "wall", figures[label]["median_seconds"])
        print(label, "cpu ", figures[label]["median_cpu_seconds"])
    print(write_result("trace_startup", {
        "trace": str(TRACE.relative_to(REPO)), "rounds": args.rounds, "trees": trees,
        "load_1min_per_round": loads, "figures": figures, "target_above_version_s": 0.4,
        "steps": str(STEPS.relative_to(REPO)),
        "note": "2 cores shared with other sessions; interleaved, medians; CPU = user + sys",
    }))  # fmt: skip


if __name__ == "__main__":
    main()

"""Benchmark: the million-line reconcile of several code trees side by side, with the raw floor.

Issue 28: round 1 (46a934f) against main (3039ac8) and this branch, on the same file (renumbered
copies of the real fixture, bench/sacct_copies.py; `reconcile --sacct F --json`, no joins, as
the issue measured it), and this branch with `--jobs jobs.parquet`. Each run is its own
process with PYTHONPATH at that tree's src/ (the venv's newer packages serve every tree); the
runs alternate (floor, tree 1, tree 2, …, then again), so each round sees the same load, and
`uptime`'s load average is recorded before every run. Wall seconds, CPU seconds (user + sys
of the process, from GNU time) and peak RSS per run; medians per variant.

Usage: python bench/reconcile_pairs.py --tree r1=/tmp/r1/src --tree main=/tmp/m0/src
       --tree new=src [--jobs-tree new] [--rounds 3] [--lines 1000000] [--name reconcile_pairs]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import write_result
from reconcile_bench import FLOOR
from sacct_copies import write_sacct


def _run(argv: list[str], out: Path, env: dict[str, str]) -> dict[str, float]:
    """Wall and CPU seconds and peak RSS of one process, stdout to `out`; load before it."""
    stats = out.with_name(out.name + ".time")
    load = os.getloadavg()[0]
    start = time.perf_counter()
    with out.open("wb") as sink:
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%M %U %S", "-o", str(stats), *argv],
            stdout=sink, stderr=subprocess.PIPE, env=env, check=False,
        )  # fmt: skip
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv[:6]} failed: {done.stderr.decode()[-800:]}")
    kib, user, system = stats.read_text().split()[-3:]
    return {"wall_s": round(wall, 3), "cpu_s": round(float(user) + float(system), 2),
            "peak_rss_bytes": int(kib) * 1024, "load_1min_before": load}  # fmt: skip


def _summary(runs: list[dict[str, float]]) -> dict[str, object]:
    return {
        "median_wall_s": round(statistics.median(r["wall_s"] for r in runs), 3),
        "median_cpu_s": round(statistics.median(r["cpu_s"] for r in runs), 2),
        "median_peak_rss_bytes": int(statistics.median(r["peak_rss_bytes"] for r in runs)),
        "runs": runs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", required=True, metavar="LABEL=SRC")
    parser.add_argument("--jobs-tree", action="append", default=[], metavar="LABEL")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--name", default="reconcile_pairs")
    args = parser.parse_args()
    trees = dict(t.split("=", 1) for t in args.tree)
    variants = [(label, label, []) for label in trees] + [
        (f"{label} --jobs parquet", label, ["--jobs"]) for label in args.jobs_tree
    ]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sacct = folder / "sacct.psv"
        lines, _ = write_sacct(sacct, args.lines)
        runs: dict[str, list[dict[str, float]]] = {"floor": []}
        runs |= {name: [] for name, _, _ in variants}
        outputs: dict[str, Path] = {}
        base_env = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"}
        for _ in range(args.rounds):
            floor_db = folder / "floor.duckdb"
            floor_db.unlink(missing_ok=True)
            argv = [sys.executable, "-c", FLOOR, str(sacct), str(floor_db)]
            runs["floor"].append(_run(argv, folder / "floor.out", base_env))
            for name, label, extra in variants:
                ledger = folder / "ledger.duckdb"
                ledger.unlink(missing_ok=True)
                slug = name.replace(" ", "_")
                out = folder / f"{slug}.json"
                argv = [sys.executable, "-m", "trainbudget", "reconcile", "--ledger", str(ledger),
                        "--sacct", str(sacct), "--json"]  # fmt: skip
                if extra:
                    argv += ["--jobs", str(folder / f"{slug}.parquet")]
                env = {**base_env, "PYTHONPATH": str(Path(trees[label]).resolve())}
                runs[name].append(_run(argv, out, env))
                outputs[name] = out
        inline = [name for name, _, extra in variants if not extra]
        same = {n: filecmp.cmp(outputs[inline[-1]], outputs[n], shallow=False) for n in inline}
        figures = {name: _summary(r) for name, r in runs.items()}
        floor_s = figures["floor"]["median_wall_s"]
        for name in figures:
            figures[name]["x_floor"] = round(figures[name]["median_wall_s"] / floor_s, 2)
        path = write_result(args.name, {
            "lines": lines, "rounds": args.rounds, "trees": trees, "variants": figures,
            "inline_json_identical_to_" + inline[-1]: same,
            "note": "2 cores shared with other sessions; loads recorded per run",
        })  # fmt: skip
        for name, fig in figures.items():
            rss = fig["median_peak_rss_bytes"] / 2**20
            print(f"{name:24} wall {fig['median_wall_s']:7.2f} s  cpu {fig['median_cpu_s']:6.2f} s"
                  f"  x floor {fig['x_floor']:5.2f}  rss {rss:.0f} MiB"
                  f"  walls {[r['wall_s'] for r in fig['runs']]}")  # fmt: skip
        print(path)


if __name__ == "__main__":
    main()

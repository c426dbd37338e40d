"""Benchmark: `trainbudget reconcile` on a million real sacct lines beside DuckDB's raw landing.

The lines are renumbered copies of the real Hábrók fixture (bench/sacct_copies.py, 242 lines a
copy: 100 allocations with their .batch/.extern/.N steps, arrays, CANCELLED by <uid>, PENDING,
RUNNING), with a registry and progress events for every 20th copy's completed jobs. In one
run, interleaved (ours, floor, ours, floor; medians), each in its own process:
  floor      DuckDB landing the raw lines as strings into a database file:
             `CREATE TABLE t AS SELECT * FROM read_csv(…, all_varchar=true)`;
  reconcile  `trainbudget reconcile --sacct … --registry … --progress … --json` on a fresh
             ledger: landing, review and the per-job JSON, as a user runs it.
Then the week scenarios (issue 18, Deliver 3): a 19-job week file after the million lines (and
one review of the week before, which fills week_allocations once, as a weekly cadence does),
with --week and without, beside the same file into an empty ledger.
Targets: reconcile ≤ 2× the floor; the week after the million ≤ 1.2× the empty ledger's time
and ≤ 1.5× its RSS. Usage: python bench/reconcile_bench.py [--lines N] [--rounds R] [--name N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import copy_at_rest, write_result
from _runs import timed
from sacct_copies import write_joins, write_sacct, write_week_file

WEEK, WEEK_START = "2026-W47", datetime(2026, 11, 16, tzinfo=UTC)

FLOOR = """
import duckdb, sys
con = duckdb.connect(sys.argv[2])
con.execute("SET enable_progress_bar = false")
con.execute(
    "CREATE TABLE t AS SELECT * FROM read_csv($p, delim='|', header=true, all_varchar=true, "
    "quote='', escape='')",
    {"p": sys.argv[1]},
)
print(con.execute("SELECT count(*) FROM t").fetchone()[0])
con.close()
"""


def generate(folder: Path, lines: int) -> tuple[Path, Path, Path]:
    """sacct.psv (at least `lines` lines, whole copies), registry.csv and progress.jsonl."""
    sacct = folder / "sacct.psv"
    _, copies = write_sacct(sacct, lines)
    registry, progress = write_joins(folder, range(copies), every=20)
    return sacct, registry, progress


def _reconcile(ledger: Path, *files: Path, week: str | None = None) -> list[str]:
    sacct, *joins = files
    argv = [sys.executable, "-m", "trainbudget", "reconcile", "--ledger", str(ledger),
            "--sacct", str(sacct)]  # fmt: skip
    if joins:
        argv += ["--registry", str(joins[0]), "--progress", str(joins[1])]
    return argv + (["--week", week] if week else []) + ["--json"]


SUMMARY = """
import orjson, sys
body = orjson.loads(open(sys.argv[1], "rb").read())
first = body["landed"][0] if body["landed"] else {}
print(orjson.dumps({"jobs": len(body["jobs"]), "week": body["week"],
                    "rows_landed": first.get("rows_landed"),
                    "allocated_gpu_hours": str(body["totals"]["allocated_gpu_hours"])}).decode())
"""


def _summary(path: Path) -> dict:
    """What the output says, read in a child process: parsing 350 MB here would leave this
    process large, and every child forked after it would start with that RSS (wait4 counts
    it)."""
    done = subprocess.run([sys.executable, "-c", SUMMARY, str(path)], capture_output=True,
                          check=True)  # fmt: skip
    return orjson.loads(done.stdout)


def _median(runs: list[tuple[float, int]]) -> tuple[float, int]:
    return statistics.median(r[0] for r in runs), int(statistics.median(r[1] for r in runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--name", default="reconcile", help="bench/results/<name>.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t = time.perf_counter()
        sacct, registry, progress = generate(folder, args.lines)
        week_file = folder / "week.psv"
        week_lines = write_week_file(week_file, 19, WEEK_START, copy=99_000)
        generate_s = time.perf_counter() - t
        ours, floor = [], []
        for k in range(args.rounds):
            ledger = folder / f"ledger{k}.duckdb"
            ours.append(timed(_reconcile(ledger, sacct, registry, progress), folder / "rec.json"))
            if k == 0:
                payload = _summary(folder / "rec.json")
                json_bytes = (folder / "rec.json").stat().st_size
                # A ledger reviewed weekly has its earlier weeks in week_allocations: one
                # review of the week before fills them (the cold cost is paid once, here).
                warm_s, _ = timed([sys.executable, "-m", "trainbudget", "reconcile", "--ledger",
                                   str(ledger), "--week", "2026-W46", "--json"],
                                  folder / "warm.json")  # fmt: skip
                shutil.copy(ledger, folder / "big.duckdb")
            ledger.unlink()
            (folder / "floor.duckdb").unlink(missing_ok=True)
            floor.append(timed([sys.executable, "-c", FLOOR, str(sacct),
                                str(folder / "floor.duckdb")], folder / "floor.out"))  # fmt: skip
        rec_s, rec_rss = _median(ours)
        floor_s, floor_rss = _median(floor)
        weeks: dict[str, list[tuple[float, int]]] = {
            "after_week": [],
            "empty_week": [],
            "after_default": [],
            "empty_default": [],
        }
        outputs: dict[str, bytes] = {}
        for _ in range(args.rounds):
            for name, base, week in (
                ("after_week", "big", WEEK), ("empty_week", None, WEEK),
                ("after_default", "big", None), ("empty_default", None, None),
            ):  # fmt: skip
                ledger = folder / "scenario.duckdb"
                ledger.unlink(missing_ok=True)
                if base:
                    copy_at_rest(folder / f"{base}.duckdb", ledger)
                out = folder / f"{name}.json"
                weeks[name].append(timed(_reconcile(ledger, week_file, week=week), out))
                outputs[name] = out
        week_figures = {}
        for name, runs in weeks.items():
            s, rss = _median(runs)
            body = _summary(outputs[name])
            week_figures[name] = {
                "seconds": round(s, 3), "peak_rss_bytes": rss,
                "json_bytes": outputs[name].stat().st_size,
                "jobs": body["jobs"], "week": body["week"],
                "runs_s": [round(r[0], 3) for r in runs],
            }  # fmt: skip
        sizes = {"file_bytes": sacct.stat().st_size,
                 "registry_rows": sum(1 for _ in registry.open()) - 1,
                 "progress_events": sum(1 for _ in progress.open())}  # fmt: skip
    w, e = week_figures["after_week"], week_figures["empty_week"]
    d, de = week_figures["after_default"], week_figures["empty_default"]
    result = {
        "data": "renumbered copies of tests/fixtures/sacct/hb-jobinfo_sacct_snowman.txt "
        "(real Slurm output, Hábrók) in the 17-field --parsable2 format",
        "lines": payload["rows_landed"],
        **sizes,
        "generate_seconds": round(generate_s, 2),
        "rounds": args.rounds,
        "floor_seconds": round(floor_s, 3),
        "floor_peak_rss_bytes": floor_rss,
        "reconcile_seconds": round(rec_s, 3),
        "reconcile_peak_rss_bytes": rec_rss,
        "reconcile_runs_s": [round(r[0], 3) for r in ours],
        "floor_runs_s": [round(r[0], 3) for r in floor],
        "ratio_to_floor": round(rec_s / floor_s, 2),
        "jobs_reported": payload["jobs"],
        "json_bytes": json_bytes,
        "allocated_gpu_hours": payload["allocated_gpu_hours"],
        "first_week_review_after_the_million_seconds": round(warm_s, 3),
        "week_file_lines": week_lines,
        "week": week_figures,
        "week_after_ratio_seconds": round(w["seconds"] / e["seconds"], 2),
        "week_after_ratio_rss": round(w["peak_rss_bytes"] / e["peak_rss_bytes"], 2),
        "default_after_ratio_seconds": round(d["seconds"] / de["seconds"], 2),
        "targets": {
            "ratio_to_floor": 2,
            "week_after_ratio_seconds": 1.2,
            "week_after_ratio_rss": 1.5,
        },
    }
    result["meets_targets"] = {
        "reconcile": result["ratio_to_floor"] <= 2,
        "week_after": result["week_after_ratio_seconds"] <= 1.2
        and result["week_after_ratio_rss"] <= 1.5,
        "default_scope_is_the_new_files_weeks": d["jobs"] == w["jobs"] and d["week"] == WEEK,
    }
    path = write_result(args.name, result)
    print(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    print(f"written to {path}")


if __name__ == "__main__":
    main()

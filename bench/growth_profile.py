"""Profile: where a week's review spends its time on a grown ledger, first week against last.

Issue 28, goal 2 (the last week's review ≤ 1.2× the first's): lands --weeks weeks of --lines
sacct lines each (with registry and progress, as bench/ledger_growth.py does) on one ledger,
then reviews the first and the last week again, alternately (`reconcile --week W --json`,
nothing new landed), each in a fresh process that times every named SQL query (wall and the
process's CPU seconds, all DuckDB threads) and the Python between them. The difference
between the two weeks, query by query, is what grows with the ledger.
Writes bench/results/growth_profile.json. Usage: python bench/growth_profile.py
[--weeks 8] [--lines 50000] [--rounds 2] [--name N] [--threads 1] (one DuckDB thread, so CPU
seconds add up); or --ledger L --first W --last W to profile a copy of a ledger grown before
(--weeks and --lines then only label the result). With --landing it profiles weekly runs
instead (landing and review): the last week's files landed onto a copy of the ledger as it
was before them, against the first week's onto an empty ledger. With --baseline SRC (another
checkout's src/, e.g. a `git worktree` of the code before a change) every profiled run is made
through that code too, the two alternating, so a before/after pair of each query is measured
in one sitting on the same ledger; its figures are under "baseline". With --landing --floor
the last week's files also land onto a ledger holding only the week before it (no earlier
weeks: what a grown ledger adds is then the difference), under "floor".
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import copy_at_rest, write_result
from ledger_growth import FIRST_WEEK, _week_name
from sacct_copies import write_joins, write_sacct

PROFILE = """
import collections, os, sys, time, orjson
import trainbudget.ledger as L
wall, cpu = collections.Counter(), collections.Counter()
execute = L.Ledger.execute
threads = os.environ.get("GROWTH_PROFILE_THREADS")
def timed(self, name, **params):
    global threads
    if threads:  # one DuckDB thread: the process's CPU seconds then add up query by query
        self.con.execute(f"SET threads = {int(threads)}")
        threads = None
    w, c = time.perf_counter(), time.process_time()
    try:
        return execute(self, name, **params)
    finally:
        wall[name] += time.perf_counter() - w
        cpu[name] += time.process_time() - c
L.Ledger.execute = timed
from trainbudget.cli import main
w0, c0 = time.perf_counter(), time.process_time()
sys.stdout = open(os.devnull, "w")
try:
    main(sys.argv[1:])
except SystemExit:
    pass
total_w, total_c = time.perf_counter() - w0, time.process_time() - c0
sys.stderr.write("PROFILE=" + orjson.dumps({"wall_s": total_w, "cpu_s": total_c,
    "sql_wall_s": sum(wall.values()), "sql_cpu_s": sum(cpu.values()),
    "queries": {n: [round(wall[n], 4), round(cpu[n], 4)] for n in wall}}).decode() + "\\n")
"""


def _profile(
    ledger: Path, week: str, threads: int | None = None, inputs: list[str] | None = None,
    src: Path | None = None,
) -> dict:  # fmt: skip
    """One profiled `reconcile --week W --json`, landing `inputs` (--sacct … flags) first,
    through the code in `src` when given (else the installed trainbudget)."""
    argv = [sys.executable, "-c", PROFILE, "reconcile", "--ledger", str(ledger), "--week", week,
            "--json", *(inputs or [])]  # fmt: skip
    env = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"}
    if src is not None:
        env["PYTHONPATH"] = str(src.resolve())
    if threads:
        env["GROWTH_PROFILE_THREADS"] = str(threads)
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
    line = next(x for x in done.stderr.splitlines() if x.startswith("PROFILE="))
    return orjson.loads(line.removeprefix("PROFILE=")) | {"load_1min": os.getloadavg()[0]}


def _medians(runs: list[dict]) -> dict:
    names = set().union(*(r["queries"] for r in runs))
    queries = {
        n: [round(statistics.median(r["queries"].get(n, [0, 0])[i] for r in runs), 3)
            for i in (0, 1)]
        for n in names
    }  # fmt: skip
    totals = ("wall_s", "cpu_s", "sql_wall_s", "sql_cpu_s")
    return {
        **{k: round(statistics.median(r[k] for r in runs), 3) for k in totals},
        "loads": [r["load_1min"] for r in runs],
        "queries": dict(sorted(queries.items(), key=lambda kv: -kv[1][1])),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weeks", type=int, default=8)
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--name", default="growth_profile", help="bench/results/<name>.json")
    parser.add_argument("--threads", type=int, help="DuckDB threads of the profiled reviews")
    parser.add_argument("--ledger", type=Path, help="profile a copy of this grown ledger")
    parser.add_argument("--first", help="with --ledger: the first week (2026-W02)")
    parser.add_argument("--last", help="with --ledger: the last week")
    parser.add_argument("--landing", action="store_true", help="profile weekly runs, not reviews")
    parser.add_argument("--baseline", type=Path, help="another checkout's src/, run alternately")
    parser.add_argument(
        "--floor",
        action="store_true",
        help="with --landing: the last week onto the week before it alone too",
    )
    args = parser.parse_args()
    env = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ledger = folder / "ledger.duckdb"
        first_copy, names, inputs = 0, [], []
        if args.ledger is not None:  # a ledger grown before (reviews write caches: a copy)
            copy_at_rest(args.ledger, ledger)
            names = [args.first, args.last]
        for index in range(args.weeks if args.ledger is None else 0):
            start = FIRST_WEEK + timedelta(weeks=index)
            week_folder = folder / f"week{index:02d}"  # kept: --landing lands two again
            week_folder.mkdir()
            sacct = week_folder / "sacct.psv"
            _, copies = write_sacct(sacct, args.lines, start, first_copy)
            registry, progress = write_joins(
                week_folder, range(first_copy, first_copy + copies), every=20, week_start=start
            )
            first_copy += copies
            names.append(_week_name(start))
            inputs.append(["--sacct", str(sacct), "--registry", str(registry), "--progress",
                           str(progress)])  # fmt: skip
            if args.landing and index == args.weeks - 1:  # the ledger before the last week
                shutil.copyfile(ledger, folder / "before_last.duckdb")
                if args.floor:  # the week before the last, alone on a ledger
                    subprocess.run(
                        [sys.executable, "-m", "trainbudget", "reconcile", "--ledger",
                         str(folder / "floor.duckdb"), *inputs[-2], "--week", names[-2],
                         "--json"], stdout=subprocess.DEVNULL, env=env, check=True,
                    )  # fmt: skip
                break
            subprocess.run(
                [sys.executable, "-m", "trainbudget", "reconcile", "--ledger", str(ledger),
                 *inputs[-1], "--week", names[-1], "--json"],
                stdout=subprocess.DEVNULL, env=env, check=True,
            )  # fmt: skip
        codes = {"this": None} | ({} if args.baseline is None else {"baseline": args.baseline})
        floor = ["floor"] if args.landing and args.floor else []
        runs = {(c, w): [] for c in codes for w in (names[0], names[-1], *floor)}
        for round_ in range(args.rounds):
            # Alternate which code goes first, as bench/ledger_growth.py does.
            for code in list(codes)[:: -1 if round_ % 2 else 1]:
                for week in (names[0], names[-1], *floor):
                    if args.landing:  # a fresh copy each run: landing writes the ledger
                        target = folder / "run.duckdb"
                        for stale in (target, folder / "run.duckdb.wal"):
                            stale.unlink(missing_ok=True)
                        if week != names[0]:
                            start = "floor" if week == "floor" else "before_last"
                            copy_at_rest(folder / f"{start}.duckdb", target)
                        files = inputs[0] if week == names[0] else inputs[-1]
                    else:
                        target, files = ledger, None
                    reviewed = names[-1] if week == "floor" else week
                    runs[code, week].append(
                        _profile(target, reviewed, args.threads, files, codes[code])
                    )
    result = _growth(runs, "this", names, floor)
    if args.baseline is not None:
        result["baseline"] = {"src": str(args.baseline),
                              **_growth(runs, "baseline", names, floor)}  # fmt: skip
    print(write_result(args.name, {
        "weeks": args.weeks, "lines_per_week": args.lines, "rounds": args.rounds,
        "threads": args.threads, "ledger": str(args.ledger) if args.ledger else None,
        "landing": args.landing, **result,
        "note": ("weekly runs: the last week landed onto the ledger before it, the first onto an "
                 "empty one" if args.landing else "re-reviews of landed weeks (nothing new "
                 "landed)") + "; 2 shared cores, loads noted",
    }))  # fmt: skip


def _growth(
    runs: dict[tuple[str, str], list[dict]], code: str, names: list[str], floor: list[str]
) -> dict:
    """One code's first and last week (medians) and what grew between them, query by query;
    with `floor`, the last week onto the week before it alone as well, and what grew from it."""
    first, last = (_medians(runs[code, w]) for w in (names[0], names[-1]))
    print(f"{code}: first {names[0]}: {first['wall_s']} s wall, {first['cpu_s']} CPU-s; "
          f"last {names[-1]}: {last['wall_s']} s wall, {last['cpu_s']} CPU-s")  # fmt: skip
    growth = _by_query(first, last)
    result = {
        "first_week": {"week": names[0], **first}, "last_week": {"week": names[-1], **last},
        "cpu_growth_by_query_s": growth,
        "python_outside_sql_cpu_s": {"first": round(first["cpu_s"] - first["sql_cpu_s"], 3),
                                     "last": round(last["cpu_s"] - last["sql_cpu_s"], 3)},
    }  # fmt: skip
    if floor:
        alone = _medians(runs[code, "floor"])
        print(f"{code}: {names[-1]} onto {names[-2]} alone: {alone['wall_s']} s wall, "
              f"{alone['cpu_s']} CPU-s")  # fmt: skip
        result["floor"] = {"week": names[-1], "onto": names[-2], **alone}
        result["cpu_growth_from_floor_by_query_s"] = _by_query(alone, last)
        result["wall_ratios"] = {
            "last_to_first": round(last["wall_s"] / first["wall_s"], 3),
            "floor_to_first": round(alone["wall_s"] / first["wall_s"], 3),
            "last_to_floor": round(last["wall_s"] / alone["wall_s"], 3),
        }
    return result


def _by_query(before: dict, after: dict) -> dict[str, float]:
    """The 15 queries whose CPU seconds grew most from `before` to `after` (medians)."""
    growth = {
        n: round(after["queries"][n][1] - before["queries"].get(n, [0, 0])[1], 3)
        for n in after["queries"]
    }
    growth = dict(sorted(growth.items(), key=lambda kv: -kv[1])[:15])
    for name, delta in growth.items():
        print(f"  {delta:+7.3f} CPU-s  {name}")
    return growth


if __name__ == "__main__":
    main()

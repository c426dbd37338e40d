"""Benchmark: `trainbudget reconcile` of a million real sacct lines into the team ledger
(DuckLake on PostgreSQL) beside the same into a DuckDB file, and a week's review after it.

Side by side in one run, alternating (file, team, file, team; medians), each in its own
process: the million-line file (bench/sacct_copies.py, renumbered copies of the real Hábrók
fixture) into a fresh ledger, then a 19-job week file reviewed with --week on that ledger.
Targets (issue 25): the million into the team ledger ≤ 1.5× the file's; the week after
≤ 1.5× the file's + 1 s (the team ledger's attach costs about a second and a half).

Needs a PostgreSQL: $TRAINBUDGET_TEST_PG (libpq string of a server where databases may be
created), or, as root with PostgreSQL installed, one started for the run by
tools/test_postgres.sh. Run it with the `team` extra installed (DuckDB pinned with the
extension wheels). Usage: python bench/team_ledger_bench.py [--lines N] [--rounds R]
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

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import write_result
from _runs import timed
from reconcile_bench import WEEK, WEEK_START, _reconcile, generate
from sacct_copies import write_week_file

ROOT = Path(__file__).resolve().parents[1]


def _psql(conninfo: str, sql: str) -> None:
    subprocess.run(["psql", "-X", "-q", "-d", conninfo, "-c", sql], check=True,
                   capture_output=True)  # fmt: skip


def _server(folder: Path) -> tuple[str, Path | None]:
    given = os.environ.get("TRAINBUDGET_TEST_PG")
    if given:
        return given, None
    pg = folder / "pg"
    done = subprocess.run([str(ROOT / "tools" / "test_postgres.sh"), "start", str(pg)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.strip(), pg


def _team(conninfo: str, name: str, data: Path) -> str:
    _psql(conninfo, f"DROP DATABASE IF EXISTS {name}")
    _psql(conninfo, f"CREATE DATABASE {name}")
    data.mkdir()
    parts = [p for p in conninfo.split() if not p.startswith("dbname=")]
    return "ducklake:postgres:" + " ".join([*parts, f"dbname={name}"])


def _timed_cpu(argv: list[str], out: Path, env: dict[str, str] | None) -> tuple[float, int, float]:
    """`timed` (wall s, peak RSS) and the CPU seconds (user + sys) of that child: CPU is less
    sensitive than wall time to the other processes of a loaded machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, rss = timed(argv, out, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, rss, cpu


def _load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sacct, registry, progress = generate(folder, args.lines)
        week_file = folder / "week.psv"
        write_week_file(week_file, 19, WEEK_START, copy=99_000)
        conninfo, started = _server(folder)
        runs: dict[str, list[tuple[float, int, float]]] = {
            "file_million": [], "team_million": [], "file_week": [], "team_week": [],
        }  # fmt: skip
        load = [_load()]
        try:
            for k in range(args.rounds):
                for store in ("file", "team"):
                    if store == "file":
                        ledger, env = str(folder / f"ledger{k}.duckdb"), None
                    else:
                        data = folder / f"team{k}-data"
                        ledger = _team(conninfo, f"tb_bench_{os.getpid()}_{k}", data)
                        env = {**os.environ, "TRAINBUDGET_LEDGER_DATA": str(data)}
                        # The first open creates and migrates the catalog: once per team,
                        # not per run, so it is not part of the timed landing.
                        subprocess.run([sys.executable, "-m", "trainbudget", "--ledger",
                                        ledger, "ledger", "init"], env=env, check=True,
                                       capture_output=True)  # fmt: skip
                    out = folder / f"{store}{k}.json"
                    argv = _reconcile(Path("LEDGER"), sacct, registry, progress)
                    argv[argv.index("LEDGER")] = ledger
                    runs[f"{store}_million"].append(_timed_cpu(argv, out, env))
                    week = _reconcile(Path("LEDGER"), week_file, week=WEEK)
                    week[week.index("LEDGER")] = ledger
                    runs[f"{store}_week"].append(
                        _timed_cpu(week, folder / f"{store}{k}w.json", env)
                    )
                    load.append(_load())
        finally:
            if started is not None:
                subprocess.run([str(ROOT / "tools" / "test_postgres.sh"), "stop", str(started)],
                               check=False)  # fmt: skip
    figures = {
        name: {"seconds": round(statistics.median(r[0] for r in rs), 3),
               "peak_rss_bytes": int(statistics.median(r[1] for r in rs)),
               "runs_s": [round(r[0], 3) for r in rs],
               "cpu_seconds": round(statistics.median(r[2] for r in rs), 3),
               "runs_cpu_s": [round(r[2], 3) for r in rs]}
        for name, rs in runs.items()
    }  # fmt: skip
    million = figures["team_million"]["seconds"] / figures["file_million"]["seconds"]
    week_goal = 1.5 * figures["file_week"]["seconds"] + 1
    result = {
        "lines": args.lines,
        "rounds": args.rounds,
        "load": load,
        **figures,
        "million_ratio_team_to_file": round(million, 2),
        "million_cpu_ratio_team_to_file": round(
            figures["team_million"]["cpu_seconds"] / figures["file_million"]["cpu_seconds"], 2
        ),
        "week_cpu_team_to_file": [
            figures["team_week"]["cpu_seconds"],
            figures["file_week"]["cpu_seconds"],
        ],
        "week_team_seconds_vs_goal": [figures["team_week"]["seconds"], round(week_goal, 3)],
        "targets": {"million_ratio": 1.5, "week": "1.5 × file + 1 s"},
        "meets_targets": {
            "million": million <= 1.5,
            "week": figures["team_week"]["seconds"] <= week_goal,
        },
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    path = write_result("team_ledger", result)
    print(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    print(f"written to {path}")


if __name__ == "__main__":
    main()

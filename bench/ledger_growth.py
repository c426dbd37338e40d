"""Benchmark: half a year of a large cluster in one ledger, landed and reviewed week by week.

Each week is about 200,000 sacct lines (renumbered copies of the real fixture moved into that
week, bench/sacct_copies.py), with a registry and progress events for every 20th copy's
completed jobs, reconciled on the same ledger as a Monday run does:
`trainbudget reconcile --sacct … --registry … --progress … --week W --json`.
Recorded per week: wall and CPU seconds (user + sys, steadier on a loaded machine) with the
load, the process's peak RSS, the ledger's bytes, the JSON's bytes.
Targets: the last week's review within 1.2× the first's, peak RSS never above 1.5 GB; ledger
bytes per million lines reported. The result is rewritten after every week, so a run stopped
early still says how far it got. With --baseline SRC (another checkout's src/, e.g. a
`git worktree` of the code before a change) the same files go, week by week, to a second
ledger through that code too, the two runs alternating which goes first, so a before/after
pair is measured in one sitting: its weeks are under "baseline" and the ratios compared.
Usage: python bench/ledger_growth.py [--weeks N] [--lines N] [--baseline SRC]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import write_result
from _runs import timed
from sacct_copies import write_joins, write_sacct

FIRST_WEEK = datetime(2026, 1, 5, tzinfo=UTC)  # Monday of 2026-W02
RSS_LIMIT_BYTES = 1536 * 1024**2


def _week_name(start: datetime) -> str:
    year, week, _ = start.isocalendar()
    return f"{year}-W{week:02d}"


def _ledger_bytes(ledger: Path) -> int:
    wal = ledger.with_name(ledger.name + ".wal")
    return ledger.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def _summary(weeks: list[dict], planned: int, lines: int) -> dict:
    result: dict = {
        "weeks_planned": planned,
        "weeks_done": len(weeks),
        "complete": len(weeks) == planned,
        "lines_per_week_asked": lines,
        "weeks": weeks,
    }
    if weeks:
        first, last = weeks[0], weeks[-1]
        total_lines = sum(w["lines"] for w in weeks)
        result |= {
            "lines_total": total_lines,
            "last_to_first_seconds": round(last["seconds"] / first["seconds"], 2),
            # The first week has no jobs running into it from before (82,700 jobs against
            # 88,489 in every later week of the copies): the second is the steady state.
            "last_to_second_seconds": round(
                last["seconds"] / weeks[min(1, len(weeks) - 1)]["seconds"], 2
            ),
            # CPU seconds (user + sys) of each week's process: steadier than wall under load.
            "last_to_first_cpu_seconds": round(last["cpu_seconds"] / first["cpu_seconds"], 2),
            "peak_rss_bytes_max": max(w["peak_rss_bytes"] for w in weeks),
            "ledger_bytes": last["ledger_bytes"],
            "ledger_bytes_per_million_lines": round(last["ledger_bytes"] / total_lines * 1e6),
        }
        result["meets_targets"] = {
            "last_within_1_2x_first": result["last_to_first_seconds"] <= 1.2,
            "rss_never_above_1_5_GB": result["peak_rss_bytes_max"] <= RSS_LIMIT_BYTES,
        }
    return result


def _week(argv: list[str], folder: Path, env: dict[str, str] | None) -> dict:
    """One weekly run of argv in a fresh process: wall, CPU, load, peak RSS, the JSON's size."""
    out = folder / "week.json"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds, rss = timed(argv, out, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the child's, as it waited
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    text = out.read_bytes()  # read once: 88 MB a week at 200k lines
    body = orjson.loads(text)
    return {
        "seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3),
        "load_1min": round(os.getloadavg()[0], 2), "peak_rss_bytes": rss,
        "json_bytes": len(text), "jobs": len(body["jobs"]),
        "allocated_gpu_hours": str(body["totals"]["allocated_gpu_hours"]),
        "json_sha256": hashlib.sha256(text).hexdigest(),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weeks", type=int, default=26)
    parser.add_argument("--lines", type=int, default=200_000, help="sacct lines a week")
    parser.add_argument("--name", default="ledger_growth", help="bench/results/<name>.json")
    parser.add_argument("--baseline", type=Path, help="another checkout's src/, run alternately")
    args = parser.parse_args()
    weeks: list[dict] = []
    baseline: list[dict] = []
    base_env = None if args.baseline is None else {
        **os.environ, "PYTHONPATH": str(args.baseline.resolve())}  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ledger = folder / "ledger.duckdb"
        first_copy = 0
        for index in range(args.weeks):
            start = FIRST_WEEK + timedelta(weeks=index)
            t = time.perf_counter()
            sacct = folder / "sacct.psv"
            lines, copies = write_sacct(sacct, args.lines, start, first_copy)
            registry, progress = write_joins(
                folder, range(first_copy, first_copy + copies), every=20, week_start=start
            )
            generate_s = time.perf_counter() - t
            first_copy += copies
            inputs = ["--sacct", str(sacct), "--registry", str(registry), "--progress",
                      str(progress), "--week", _week_name(start), "--json"]  # fmt: skip
            label = {"week": _week_name(start), "lines": lines}
            base = folder / "base.duckdb"
            runs = [(weeks, ledger, None), (baseline, base, base_env)]
            if args.baseline is None:
                runs = runs[:1]
            elif index % 2:  # alternate which of the two runs first
                runs.reverse()
            for into, book, env in runs:
                argv = [sys.executable, "-m", "trainbudget", "reconcile", "--ledger", str(book),
                        *inputs]  # fmt: skip
                into.append(label | _week(argv, folder, env)
                            | {"ledger_bytes": _ledger_bytes(book),
                               "generate_seconds": round(generate_s, 2)})  # fmt: skip
            print(orjson.dumps(weeks[-1]).decode(), flush=True)
            write_result(args.name, _result(weeks, baseline, args))
    path = write_result(args.name, _result(weeks, baseline, args))
    print(f"written to {path}")


def _result(weeks: list[dict], baseline: list[dict], args: argparse.Namespace) -> dict:
    """The summary of this code's weeks, and with --baseline that code's beside them."""
    result = _summary(weeks, args.weeks, args.lines)
    if args.baseline is not None:
        result["baseline"] = {"src": str(args.baseline), **_summary(baseline, args.weeks,
                                                                   args.lines)}  # fmt: skip
        result["json_identical_weeks"] = sum(
            a["json_sha256"] == b["json_sha256"] for a, b in zip(weeks, baseline, strict=False)
        )
    return result


if __name__ == "__main__":
    main()

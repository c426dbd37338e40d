"""Benchmark: land + reconcile a 1,000,000-line sacct export beside DuckDB's bare read_csv.

Generates (seeded) a realistic `sacct --parsable2` export of allocations and their steps
(.batch, .extern, .0) across every state, array tasks (JobID 9_1 with its own JobIDRaw),
het jobs (123+1), requeued earlier runs (--duplicates), jobs cancelled while pending,
"CANCELLED by <uid>" and truncated "CANCELLED+", and job names that contain the delimiter;
plus a registry and progress events for the campaign's jobs. Then, in one run:
  bare      `CREATE TABLE AS SELECT * FROM read_csv(...)` of the same file (the baseline);
  floor     the bare read, plus the two writes the command cannot skip, done as plainly as
            DuckDB can: every line stored in a DuckDB file (the ledger keeps each line) and
            one JSON object per allocation line (the contract's `jobs`), with only the file's
            own 17 text fields; a lower bound for any implementation of the contract;
  reconcile `trainbudget reconcile --sacct … --registry … --progress … --json` on a fresh
            ledger (landing included), as a user runs it.
Each runs in its own process; wall time and peak RSS are recorded. Targets: ≤ 10 s,
≤ 4× the bare read, ≤ 2 GB RSS. Usage: python bench/reconcile_bench.py [--lines N]
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import write_result

HEADER = (
    "JobID|JobIDRaw|JobName|Account|Partition|State|ExitCode|Elapsed|ElapsedRaw|Submit|Start|"
    "End|AllocTRES|ReqTRES|NNodes|AllocCPUS|TRESUsageInTot"
)
STATES = [
    ("COMPLETED", "0:0", 60), ("FAILED", "1:0", 8), ("CANCELLED by 40123", "0:15", 6),
    ("CANCELLED+", "0:15", 2), ("TIMEOUT", "0:15", 5), ("NODE_FAIL", "0:0", 2),
    ("OUT_OF_MEMORY", "0:125", 3), ("PREEMPTED", "0:15", 3), ("BOOT_FAIL", "0:0", 1),
    ("DEADLINE", "0:0", 1), ("RUNNING", "0:0", 4), ("PENDING", "0:0", 2),
]  # fmt: skip
WEEK_START = datetime(2026, 11, 16, tzinfo=UTC)
CAMPAIGN_JOBS = 5000


def _elapsed(seconds: int) -> str:
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    clock = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{days}-{clock}" if days else clock


def _t(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _event(job_id: str, when: datetime, event: str, **extra: object) -> str:
    """One progress event as a JSONL line."""
    return orjson.dumps(
        {"job_id": job_id, "time": when.isoformat(), "event": event, **extra}
    ).decode()


def generate(folder: Path, lines: int, seed: int = 7) -> tuple[Path, Path, Path]:
    """Write sacct.psv, registry.csv and progress.jsonl; return their paths."""
    rng = random.Random(seed)
    weights = [w for _, _, w in STATES]
    sacct, registry, progress = (
        folder / "sacct.psv",
        folder / "registry.csv",
        folder / "progress.jsonl",
    )
    out = [HEADER]
    reg = [
        "job_id,experiment_id,work_class,code_revision,data_snapshot,result_valid,diagnosed_cause"
    ]
    events = []
    job, raw = 1_000_000, 5_000_000
    classes = ["main", "retry", "pilot", "evaluation", "diagnostic"]
    while len(out) <= lines:
        job += 1
        raw += 1
        state, exit_code, _ = rng.choices(STATES, weights)[0]
        kind = rng.random()
        if kind < 0.15:
            job_id = f"{job}_{rng.randint(0, 99)}"  # array task: its own JobIDRaw
        elif kind < 0.17:
            job_id = f"{job}+{rng.randint(0, 2)}"  # het component
        else:
            job_id = str(job)
        gpus = rng.choice([0, 1, 2, 4, 8, 8, 16])
        tres = f"billing={gpus or 1},cpu={8 * max(gpus, 1)},mem={64 * max(gpus, 1)}G,node=1"
        if gpus:
            tres += (
                f",gres/gpu:h100={gpus},gres/gpu={gpus}"
                if rng.random() < 0.5
                else f",gres/gpu={gpus}"
            )
        submit = WEEK_START + timedelta(seconds=rng.randint(0, 6 * 86400))
        pending = state == "PENDING" or (state.startswith("CANCELLED") and rng.random() < 0.2)
        if pending:
            start_text, end_text, seconds = (
                ("Unknown" if state == "PENDING" else "None"),
                "Unknown",
                0,
            )
        else:
            start = submit + timedelta(seconds=rng.randint(0, 3600))
            seconds = rng.randint(60, 36 * 3600)
            start_text = _t(start)
            end_text = "Unknown" if state == "RUNNING" else _t(start + timedelta(seconds=seconds))
        name = "eval|suite-a" if rng.random() < 0.001 else f"job{job % 997}"
        alloc_tres = "" if pending else tres
        if rng.random() < 0.03 and not pending:  # an earlier run of this job, requeued
            early = submit - timedelta(hours=2)
            out.append(
                f"{job_id}|{raw}|{name}|acct{job % 40}|gpu|REQUEUED|0:0|{_elapsed(1800)}|1800|"
                f"{_t(early)}|{_t(early)}|{_t(early + timedelta(seconds=1800))}|{tres}|{tres}|1|8|"
            )
        out.append(
            f"{job_id}|{raw}|{name}|acct{job % 40}|gpu|{state}|{exit_code}|{_elapsed(seconds)}|"
            f"{seconds}|{_t(submit)}|{start_text}|{end_text}|{alloc_tres}|{tres}|1|8|"
        )
        if not pending:
            for step in ("batch", "extern", "0"):
                out.append(
                    f"{job_id}.{step}|{raw}.{step}|{step}|acct{job % 40}||"
                    f"{'CANCELLED' if state.startswith('CANCELLED') else state.split()[0]}|"
                    f"{exit_code}|{_elapsed(seconds)}|{seconds}|{start_text}|{start_text}|"
                    f"{end_text}|{tres}||1|8|cpu=00:10:00,mem=2G"
                )
        campaign_index = job - 1_000_001
        if (
            campaign_index < CAMPAIGN_JOBS
            and not pending
            and "_" not in job_id
            and "+" not in job_id
        ):
            klass = classes[campaign_index % len(classes)]
            reg.append(
                f"{job_id},exp-{campaign_index // 10},{klass},rev{campaign_index % 7},snap1,,"
            )
            t0 = datetime.fromisoformat(start_text).replace(tzinfo=UTC)
            events.append(_event(job_id, t0, "start", resumed_from_step=0))
            for k in range(1, 11):
                when = t0 + timedelta(seconds=seconds * k // 11)
                events.append(_event(job_id, when, "step", step=k * 100))
                if k % 3 == 0:
                    events.append(_event(job_id, when, "checkpoint", step=k * 100, accepted=True))
            if state == "COMPLETED":
                events.append(_event(job_id, t0 + timedelta(seconds=seconds), "end"))
    sacct.write_text("\n".join(out[: lines + 1]) + "\n", encoding="utf-8")
    registry.write_text("\n".join(reg) + "\n", encoding="utf-8")
    progress.write_text("\n".join(events) + "\n", encoding="utf-8")
    return sacct, registry, progress


BARE = """
import duckdb, sys
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")
con.execute(
    "CREATE TABLE t AS SELECT * FROM read_csv($p, delim='|', header=true, all_varchar=true, "
    "quote='', escape='', ignore_errors=true)",
    {"p": sys.argv[1]},
)
print(con.execute("SELECT count(*) FROM t").fetchone()[0])
"""


FLOOR = """
import duckdb, sys
con = duckdb.connect(sys.argv[2])
con.execute("SET enable_progress_bar = false")
con.execute(
    "CREATE TEMP TABLE t AS SELECT * FROM read_csv($p, delim='|', header=true, all_varchar=true, "
    "quote='', escape='', ignore_errors=true)",
    {"p": sys.argv[1]},
)
con.execute("BEGIN")
con.execute("CREATE TABLE lines AS SELECT * FROM t")
con.execute("COMMIT")
con.execute(
    "COPY (SELECT * FROM t WHERE NOT contains(JobID, '.')) TO $out (FORMAT json, ARRAY true)",
    {"out": sys.argv[3]},
)
con.close()
"""


def timed(argv: list[str], out: Path) -> tuple[float, int, bytes]:
    """Run argv in a fresh process, stdout to the file `out` as a user's `> out.json` would
    (a pipe into this process would time our reading of ~175 MB, not the command):
    (wall seconds, peak RSS bytes, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with out.open("wb") as sink:
        start = time.perf_counter()
        subprocess.run(argv, stdout=sink, stderr=subprocess.DEVNULL, check=True)
        wall = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the maximum over all children so far; runs go smallest first.
    return wall, max(peak_kib, before) * 1024, out.read_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t = time.perf_counter()
        sacct, registry, progress = generate(folder, args.lines)
        generate_s = time.perf_counter() - t
        bare_s, bare_rss, bare_out = timed(
            [sys.executable, "-c", BARE, str(sacct)], folder / "bare.out"
        )
        floor_s, _, _ = timed(
            [sys.executable, "-c", FLOOR, str(sacct), str(folder / "floor.duckdb"),
             str(folder / "floor.json")],
            folder / "floor.out",
        )  # fmt: skip
        argv = [
            sys.executable, "-m", "trainbudget", "--ledger", str(folder / "ledger.duckdb"),
            "reconcile", "--sacct", str(sacct), "--registry", str(registry),
            "--progress", str(progress), "--json",
        ]  # fmt: skip
        rec_s, rec_rss, rec_out = timed(argv, folder / "reconcile.json")
        payload = orjson.loads(rec_out)
        result = {
            "lines": args.lines,
            "file_bytes": sacct.stat().st_size,
            "progress_events": sum(1 for _ in progress.open()),
            "registry_rows": sum(1 for _ in registry.open()) - 1,
            "generate_seconds": round(generate_s, 2),
            "bare_read_csv_seconds": round(bare_s, 3),
            "bare_read_csv_rows": int(bare_out.strip()),
            "bare_peak_rss_bytes": bare_rss,
            "floor_seconds": round(floor_s, 3),
            "floor_ratio_to_bare": round(floor_s / bare_s, 2),
            "reconcile_seconds": round(rec_s, 3),
            "reconcile_peak_rss_bytes": rec_rss,
            "ratio_to_bare": round(rec_s / bare_s, 2),
            "jobs_reported": len(payload["jobs"]),
            "rows_landed": payload["landed"][0]["rows_landed"],
            "rows_quarantined": payload["landed"][0]["rows_quarantined"],
            "allocated_gpu_hours": payload["totals"]["allocated_gpu_hours"],
            "targets": {"seconds": 10, "ratio_to_bare": 4, "peak_rss_bytes": 2 * 1024**3},
        }
        result["meets_targets"] = rec_s <= 10 and rec_s / bare_s <= 4 and rec_rss <= 2 * 1024**3
    path = write_result("reconcile", result)
    print(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    print(f"written to {path}")


if __name__ == "__main__":
    main()

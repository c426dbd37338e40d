"""The weekly report's jobs with a big week: every job parsed and rendered into the HTML (the
old way, the baseline) against jobs.csv streamed by DuckDB plus the 25 largest (now).

Each way runs in its own child process (peak RSS is per process), on the same jobs JSON in
the shape reconcile/summarize/jobs_copy writes. Default 200,000 jobs ≈ 180 MB of JSON, the
size issue 17 measured for a million-line week (175 MB).

    python bench/report_jobs_bench.py [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import write_result

OLD_COLUMNS = (
    "job_id", "state", "work_class", "experiment_id", "gpus", "allocated_gpu_hours",
    "useful_gpu_hours", "recovery_gpu_hours", "lost_gpu_hours", "unverified_gpu_hours",
)  # fmt: skip


def write_jobs_json(path: Path, jobs: int) -> None:
    """`jobs` jobs, one JSON object a line inside an array, as DuckDB's COPY writes them."""
    with path.open("w", encoding="utf-8") as out:
        out.write("[\n")
        for k in range(jobs):
            seconds = 3600 + (k * 7919) % 500_000
            hours = f"{seconds / 3600:.12f}"
            row = (
                f'{{"job_id":"{k}","state":"COMPLETED","gpus":8,"allocated_gpu_hours":{hours},'
                f'"useful_gpu_hours":{hours},"recovery_gpu_hours":0.000000000000,'
                '"lost_gpu_hours":0.000000000000,"unverified_gpu_hours":0.000000000000,'
                f'"allocated_gpu_seconds":{seconds},"useful_gpu_seconds":{seconds},'
                '"recovery_gpu_seconds":0,"lost_gpu_seconds":0,"unverified_gpu_seconds":0,'
                f'"job_id_raw":"{k}","cluster":"c","name":"run-{k}","account":"lm",'
                '"partition":"gpu","state_text":"COMPLETED","exit_code":"0:0",'
                f'"elapsed_seconds":{seconds // 8},"submit_time":"2026-11-16T07:55:00Z",'
                '"start_time":"2026-11-16T08:00:00Z","end_time":"2026-11-16T10:30:00Z",'
                '"work_class":"main","experiment_id":"main-1b","result_valid":true,'
                '"diagnosed_cause":null,"recovery_caused_by":null,'
                '"app_start_time":null,"app_end_time":null,"app_elapsed_seconds":null,'
                '"flags":[],"from_steps":false}'
            )
            out.write(f"\t{row}{',' if k < jobs - 1 else ''}\n")
        out.write("]\n")


def one(mode: str, json_path: Path) -> dict[str, float]:
    """Build the jobs part of the report one way; seconds, peak RSS and HTML size."""
    import orjson

    from trainbudget.report.html import render_html
    from trainbudget.report.model import Report, Table

    started = time.perf_counter()
    if mode == "baseline":
        jobs = orjson.loads(json_path.read_bytes())
        table = Table.from_records("Jobs", [{c: j.get(c) for c in OLD_COLUMNS} for j in jobs])
    else:
        from trainbudget.reconcile.job_files import largest_jobs, write_jobs_csv
        from trainbudget.report.jobs import TOP_JOBS, JobList, jobs_table

        csv_path = json_path.with_suffix(".csv")
        write_jobs_csv(json_path, csv_path)
        total = sum(1 for _ in csv_path.open(encoding="utf-8")) - 1
        table = jobs_table("2026-W47", JobList(largest_jobs(csv_path, TOP_JOBS), total, "jobs.csv"))
    html = render_html(Report("r", "s", tables=[table]))
    return {
        "seconds": time.perf_counter() - started,
        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "html_bytes": len(html.encode()),
        "rows_in_html": html.count("<tr>") - 1,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=200_000)
    parser.add_argument("--one", nargs=2, metavar=("MODE", "JSON"))
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], Path(args.one[1]))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        json_path = Path(tmp) / "jobs.json"
        write_jobs_json(json_path, args.jobs)
        runs = {}
        for mode in ("baseline", "streamed"):
            out = subprocess.run(
                [sys.executable, __file__, "--one", mode, str(json_path)],
                check=True, capture_output=True, text=True,
            )  # fmt: skip
            runs[mode] = json.loads(out.stdout)
        payload = {
            "jobs": args.jobs,
            "json_bytes": json_path.stat().st_size,
            **runs,
            "speedup": runs["baseline"]["seconds"] / runs["streamed"]["seconds"],
            "rss_ratio": runs["baseline"]["max_rss_mb"] / runs["streamed"]["max_rss_mb"],
        }
    print(json.dumps(payload, indent=2))
    print(write_result("report_jobs", payload))


if __name__ == "__main__":
    main()

"""Pre-launch flow wall time on the bundled demo data: first run in a fresh process, and the
second run in the same process (warm), against Prefect's own floor.

Each repeat runs, in new processes, the floor (a one-task flow) and the pre-launch flow, each
first with a fresh Prefect home (the ephemeral API creates its database: a user's very first
run), then again in a new process on that now-existing home with its result cache removed (a
later cold start: nothing cached, database already there). Both run in the same session, so
a loaded machine slows them alike; the ratios are what to compare across machines.
Targets (issue 8): first ≤ 15 s, warm ≤ 5 s.
Run: .venv/bin/python bench/prelaunch_bench.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from _common import write_result

CHILD = """
import sys, time, orjson
started = float(sys.argv[1])
mode, out = sys.argv[2], sys.argv[3]
from pathlib import Path
t = time.time()
if mode == "prelaunch":
    from trainbudget.cli.flows import load_flow_module
    params, _ = load_flow_module("demo_run").demo_parameters(Path(out))
    flow = load_flow_module("prelaunch_estimate").prelaunch_estimate
else:
    from prefect import flow as make_flow, task
    params = {}
    flow = make_flow(name="floor")(lambda: task(lambda: 1, name="one")())
imported = time.time()
flow(**params)
first = time.time()
flow(**params)
second = time.time()
print(orjson.dumps({
    "startup_s": t - started, "import_s": imported - t,
    "first_run_s": first - imported, "first_total_s": first - started,
    "second_run_s": second - first,
}).decode())
"""


def run_child(mode: str, work: str) -> dict[str, float]:
    """One new process with its Prefect home in `work`: returns its timings in seconds."""
    env = {
        **os.environ,
        "PREFECT_HOME": str(Path(work) / "prefect"),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "300",
        "PREFECT_LOGGING_LEVEL": "WARNING",
    }
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, repr(time.time()), mode.split(":")[0], work],
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{mode} run failed:\n{proc.stderr[-3000:]}")
    return orjson.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    runs: dict[str, list[dict[str, float]]] = {
        f"{flow}{home}": [] for home in ("", ":existing-home") for flow in ("floor", "prelaunch")
    }
    for _ in range(args.repeats):
        # Interleaved, so load changes on a shared machine hit all alike.
        for flow in ("floor", "prelaunch"):
            with tempfile.TemporaryDirectory(prefix="prelaunch-bench-") as work:
                runs[flow].append(run_child(flow, work))
                shutil.rmtree(Path(work) / "prefect" / "storage", ignore_errors=True)
                runs[f"{flow}:existing-home"].append(run_child(f"{flow}:existing-home", work))
        for mode, rows in runs.items():
            print(mode, rows[-1], flush=True)
    median = {
        mode: {key: statistics.median(r[key] for r in rows) for key in rows[0]}
        for mode, rows in runs.items()
    }
    ours, floor = median["prelaunch"], median["floor"]
    payload = {
        "what": "prelaunch-estimate flow on the bundled demo data (fit, bootstrap 200, 4 ranks)",
        "repeats": args.repeats,
        "load_average": os.getloadavg(),
        "median_s": median,
        "runs": runs,
        "targets_s": {"first_total": 15, "second_run": 5},
        "ratios_to_floor": {
            "first_total": ours["first_total_s"] / floor["first_total_s"],
            "first_total_existing_home": median["prelaunch:existing-home"]["first_total_s"]
            / median["floor:existing-home"]["first_total_s"],
            "second_run": ours["second_run_s"] / floor["second_run_s"],
        },
    }
    path = write_result("prelaunch", payload)
    print(orjson.dumps({k: payload[k] for k in ("median_s", "ratios_to_floor")}).decode())
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

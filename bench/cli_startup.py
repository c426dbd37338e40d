"""Start-up of the quick commands, before and after a change of the command line (issue 24).

Three interpreters are timed side by side, alternating within each repetition so machine noise
hits all alike: the bare baseline `python -c "import typer, rich"`, the code *before* (a source
tree given by --before, e.g. the main checkout's src/) and the code *after* (this checkout's
src/), each as `python -m trainbudget ARGS` in a fresh process. The result per command is the
median of each, and the ratios after ÷ before and after ÷ baseline (the quick-command goal is
≤ 2.5× the baseline). The load average is noted before and after the run. Writes
bench/results/cli_startup.json.

    python bench/cli_startup.py --before /work/main/src --repeats 12
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _common import write_result
from _runs import wall_seconds

REPO = Path(__file__).resolve().parents[1]
TARGET_RATIO = 2.5
BASELINE = [sys.executable, "-c", "import typer, rich"]
COMMANDS = {
    "--version": ["--version"],
    "gpus --json": ["gpus", "--json"],
    "estimate --json": [
        *("estimate", "--params", "1e9", "--tokens", "2e10", "--gpus", "8"),
        *("--gpu", "A100-80GB", "--mfu", "0.4", "--price", "2", "--json"),
    ],
    "--help": ["--help"],
}


def _load() -> list[float]:
    """The 1, 5 and 15 minute load averages (what `uptime` prints)."""
    return [round(value, 2) for value in os.getloadavg()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, required=True, help="src/ of the code before")
    parser.add_argument("--repeats", type=int, default=12, help="runs of each (≥ 10)")
    args = parser.parse_args()
    trees = {"before": args.before.resolve(), "after": (REPO / "src").resolve()}

    times: dict[str, dict[str, list[float]]] = {
        name: {"baseline": [], "before": [], "after": []} for name in COMMANDS
    }
    load_before = _load()
    with tempfile.TemporaryDirectory() as home:
        base_env = {**os.environ, "PREFECT_HOME": home, "TRAINBUDGET_LEDGER": f"{home}/l.duckdb"}
        envs = {side: {**base_env, "PYTHONPATH": str(src)} for side, src in trees.items()}
        run = [sys.executable, "-m", "trainbudget"]
        # One warm-up each so all read from the page cache, as a user's second call would.
        wall_seconds(BASELINE, base_env, home)
        for argv in COMMANDS.values():
            for env in envs.values():
                wall_seconds(run + argv, env, home)
        for _ in range(args.repeats):
            for name, argv in COMMANDS.items():
                times[name]["baseline"].append(wall_seconds(BASELINE, base_env, home))
                for side, env in envs.items():
                    times[name][side].append(wall_seconds(run + argv, env, home))
    load_after = _load()

    results = {}
    for name, argv in COMMANDS.items():
        median = {side: statistics.median(values) for side, values in times[name].items()}
        results[name] = {
            "command": " ".join(["trainbudget", *argv]),
            "median_seconds": {side: round(value, 4) for side, value in median.items()},
            "after_over_before": round(median["after"] / median["before"], 3),
            "after_over_baseline": round(median["after"] / median["baseline"], 3),
            "before_over_baseline": round(median["before"] / median["baseline"], 3),
            "meets_target": median["after"] / median["baseline"] <= TARGET_RATIO,
            "seconds": {
                side: [round(s, 4) for s in values] for side, values in times[name].items()
            },
        }
    payload = {
        "baseline": 'python -c "import typer, rich"',
        "before": str(trees["before"]),
        "after": str(trees["after"]),
        "repeats": args.repeats,
        "target_ratio": TARGET_RATIO,
        "load_average": {"before_run": load_before, "after_run": load_after},
        "commands": results,
    }
    path = write_result("cli_startup", payload)
    print(f"load average {load_before} -> {load_after}")
    for name, row in results.items():
        median = row["median_seconds"]
        print(
            f"{name:16} baseline {median['baseline']:.3f} s  before {median['before']:.3f} s  "
            f"after {median['after']:.3f} s  after/before {row['after_over_before']:.2f}  "
            f"after/baseline {row['after_over_baseline']:.2f} (target ≤ {TARGET_RATIO})"
        )
    print(path)


if __name__ == "__main__":
    main()

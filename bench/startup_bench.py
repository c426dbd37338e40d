"""Start-up of the quick commands against a bare `python -c "import typer, rich"` (issue 17).

Each quick command (estimate, campaign, admit and decide, the last two with --no-ledger) runs
as a fresh process, interleaved with the bare import so machine noise hits both alike; the
result per command is the ratio of medians (target ≤ 2.5). Writes bench/results/startup.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _common import write_result
from _runs import trainbudget_command, wall_seconds

REPO = Path(__file__).resolve().parents[1]
TARGET_RATIO = 2.5
COMMANDS = {
    "estimate": [
        *("estimate", "--params", "7e9", "--tokens", "1e11", "--gpus", "8"),
        *("--gpu", "A100-80GB", "--mfu", "0.4", "--price", "1.50", "--json"),
    ],
    "estimate (table)": [
        *("estimate", "--params", "7e9", "--tokens", "1e11", "--gpus", "8"),
        *("--gpu", "A100-80GB", "--mfu", "0.4", "--price", "1.50"),
    ],
    "campaign": ["campaign", str(REPO / "examples" / "demo-7b.plan.yaml"), "--json"],
    "admit": [
        *("admit", "--estimated-gpu-hours", "18.5", "--budget-gpu-hours", "23"),
        *("--expected-interruptions", "2", "--no-ledger", "--json"),
    ],
    "decide": [
        *("decide", "--params", "7e9", "--tokens", "1e11", "--gpus", "8", "--gpu", "A100-80GB"),
        *("--mfu", "0.4", "--price", "1.50", "--gain", "0.05", "--gain-uncertainty", "0.02"),
        *("--min-gain", "0.03", "--no-ledger", "--json"),
    ],
}
BASELINE = [sys.executable, "-c", "import typer, rich"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=15, help="runs of each command (≥ 15)")
    args = parser.parse_args()

    prefix = trainbudget_command()
    runs: dict[str, list[float]] = {name: [] for name in COMMANDS}
    baseline: dict[str, list[float]] = {name: [] for name in COMMANDS}
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "PREFECT_HOME": home, "TRAINBUDGET_LEDGER": f"{home}/l.duckdb"}
        # One warm-up each so all read from the page cache, as a user's second call would.
        wall_seconds(BASELINE, env, home)
        for argv in COMMANDS.values():
            wall_seconds(prefix + argv, env, home)
        for _ in range(args.repeats):
            for name, argv in COMMANDS.items():
                runs[name].append(wall_seconds(prefix + argv, env, home))
                baseline[name].append(wall_seconds(BASELINE, env, home))

    results = {}
    for name, argv in COMMANDS.items():
        command_s = statistics.median(runs[name])
        base_s = statistics.median(baseline[name])
        results[name] = {
            "command": " ".join(["trainbudget", *argv]).replace(str(REPO) + "/", ""),
            "median_seconds": round(command_s, 4),
            "baseline_median_seconds": round(base_s, 4),
            "ratio": round(command_s / base_s, 3),
            "meets_target": command_s / base_s <= TARGET_RATIO,
            "seconds": [round(s, 4) for s in runs[name]],
            "baseline_seconds": [round(s, 4) for s in baseline[name]],
        }
    payload = {
        "baseline": 'python -c "import typer, rich"',
        "repeats": args.repeats,
        "target_ratio": TARGET_RATIO,
        "commands": results,
    }
    path = write_result("startup", payload)
    for name, row in results.items():
        print(
            f"{name:17} {row['median_seconds']:.3f} s vs {row['baseline_median_seconds']:.3f} s "
            f"= {row['ratio']:.2f}× (target ≤ {TARGET_RATIO})"
        )
    print(path)


if __name__ == "__main__":
    main()

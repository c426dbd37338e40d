"""Cold start of `trainbudget estimate --json` against `python -c "import prefect"`.

Both are run as fresh processes, interleaved so machine noise hits them alike; the result is
the ratio of medians (target ≤ 0.25, issue 3). Writes bench/results/estimate_coldstart.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile

from _common import write_result
from _runs import trainbudget_command, wall_seconds

ESTIMATE_ARGS = [
    *("estimate", "--params", "7e9", "--tokens", "1e11", "--gpus", "8"),
    *("--gpu", "A100-80GB", "--mfu", "0.4", "--price", "1.50", "--json"),
]
TARGET_RATIO = 0.25


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=9, help="runs of each command")
    args = parser.parse_args()

    estimate = trainbudget_command()
    estimate += ESTIMATE_ARGS
    baseline = [sys.executable, "-c", "import prefect"]
    with tempfile.TemporaryDirectory() as home:
        env = {
            **os.environ,
            "PREFECT_HOME": home,
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "DO_NOT_TRACK": "1",
        }
        # One warm-up each so both read from the page cache, as a user's second call would.
        wall_seconds(estimate, env, home)
        wall_seconds(baseline, env, home)
        estimate_s, prefect_s = [], []
        for _ in range(args.repeats):
            estimate_s.append(wall_seconds(estimate, env, home))
            prefect_s.append(wall_seconds(baseline, env, home))

    ratio = statistics.median(estimate_s) / statistics.median(prefect_s)
    payload = {
        "command": " ".join(["trainbudget", *ESTIMATE_ARGS]),
        "baseline": 'python -c "import prefect"',
        "repeats": args.repeats,
        "estimate_median_seconds": statistics.median(estimate_s),
        "import_prefect_median_seconds": statistics.median(prefect_s),
        "ratio": ratio,
        "target_ratio": TARGET_RATIO,
        "meets_target": ratio <= TARGET_RATIO,
        "estimate_seconds": estimate_s,
        "import_prefect_seconds": prefect_s,
    }
    path = write_result("estimate_coldstart", payload)
    print(
        f"estimate --json median {payload['estimate_median_seconds']:.3f} s; import prefect "
        f"median {payload['import_prefect_median_seconds']:.3f} s; ratio {ratio:.3f} "
        f"(target ≤ {TARGET_RATIO}); {path}"
    )


if __name__ == "__main__":
    main()

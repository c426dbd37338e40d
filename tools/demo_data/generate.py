"""Write the bundled demo campaign `demo-1b` into src/trainbudget/demo_data/.

Run from the repository root: `python -m tools.demo_data.generate [--out DIR]`. The story is
in `story.py`; the records and measurements derive from it, all from one seeded random
generator, so the output is the same on every run. A development tool: the package ships the
files it writes, not this code.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
from pathlib import Path

import numpy as np

from tools.demo_data.history import history_jobs
from tools.demo_data.measurements import ablation_rows, pilot_rows, trace_document
from tools.demo_data.records import (
    SACCT_FIELDS,
    iso_week,
    manifest_rows,
    registry_rows,
    sacct_lines,
)
from tools.demo_data.story import PLAN_YAML, campaign_jobs

SEED = 20261129
# The package's copy in this repository (not an installed package's folder).
DEMO_DIR = Path(__file__).resolve().parents[2] / "src" / "trainbudget" / "demo_data"


def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def write_demo_data(root: Path = DEMO_DIR) -> list[Path]:
    """Write every demo input under `root`; return the paths written. Deterministic."""
    rng = np.random.default_rng(SEED)
    written: list[Path] = []
    (root / "demo-1b.plan.yaml").write_text(PLAN_YAML, encoding="utf-8")
    written.append(root / "demo-1b.plan.yaml")
    jobs = campaign_jobs()
    (root / "sacct").mkdir(parents=True, exist_ok=True)
    for week in sorted({iso_week(j) for j in jobs}):
        path = root / "sacct" / f"sacct-{week}.psv"
        lines = [SACCT_FIELDS] + [ln for j in jobs if iso_week(j) == week for ln in sacct_lines(j)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        written.append(path)
    history = history_jobs(np.random.default_rng(SEED + 1))
    (root / "history").mkdir(exist_ok=True)
    path = root / "history" / "sacct-2026-W40-W44.psv"
    lines = [SACCT_FIELDS] + [ln for j in history for ln in sacct_lines(j)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    written.append(path)
    _write_csv(root / "registry.csv", registry_rows(jobs))
    _write_csv(root / "manifest.csv", manifest_rows())
    events = sorted((e for j in jobs for e in j.events), key=lambda e: (e["time"], e["job_id"]))
    (root / "progress.jsonl").write_text(
        "".join(json.dumps(e) + "\n" for e in events), encoding="utf-8"
    )
    written += [root / "registry.csv", root / "manifest.csv", root / "progress.jsonl"]
    (root / "pilot").mkdir(exist_ok=True)
    for name, seq, batch, seconds, peak, steps in (
        ("pilot-main-shape", 4096, 320, 10.0, 61_200_000_000, 120),
        ("pilot-worst-shape", 8192, 160, 10.9, 68_900_000_000, 60),
    ):
        _write_csv(
            root / "pilot" / f"{name}.csv", pilot_rows(rng, name, seq, batch, seconds, peak, steps)
        )
        written.append(root / "pilot" / f"{name}.csv")
    (root / "traces").mkdir(exist_ok=True)
    for rank in range(4):
        path = root / "traces" / f"rank-{rank}.pt.trace.json.gz"
        payload = json.dumps(trace_document(rng, rank, 4)).encode()
        path.write_bytes(gzip.compress(payload, compresslevel=9, mtime=0))
        written.append(path)
    _write_csv(root / "ablations.csv", ablation_rows(rng))
    written.append(root / "ablations.csv")
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.demo_data.generate")
    parser.add_argument("--out", type=Path, default=DEMO_DIR, help=f"folder (default {DEMO_DIR})")
    for written_path in write_demo_data(parser.parse_args(argv).out):
        print(written_path)


if __name__ == "__main__":
    main()

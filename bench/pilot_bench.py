"""Pilot benchmark: reading, validating and summarizing a large step log, against bare reads.

Generates a CSV step log of ROWS steps (two runs, three shapes, a checkpoint every 500 steps,
one bad row in a thousand), then times in one run:
- baseline: `polars.read_csv` of the same file (no validation, no line numbers, no stats);
- ours, read: `read_step_log` (csv module for exact line numbers, typing, Pandera, duplicates);
- ours, end to end: `land_pilot` into a fresh ledger (read + summary + landing, one transaction).

Run: .venv/bin/python bench/pilot_bench.py [ROWS]   (writes bench/results/pilot.json)
"""

from __future__ import annotations

import csv
import random
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import polars as pl

from _common import write_result
from trainbudget.ledger import Ledger
from trainbudget.pilot.ingest import read_step_log
from trainbudget.pilot.land import land_pilot
from trainbudget.pilot.mix import parse_shape_mix
from trainbudget.pilot.summary import PilotOptions

SHAPES = [(2048, 128, 1.9), (8192, 32, 2.4), (32768, 8, 3.6)]  # seq_len, batch, base seconds


def generate(path: Path, rows: int, seed: int = 5) -> None:
    rng = random.Random(seed)
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(
            ["run_id", "step", "wall_seconds", "tokens", "seq_len", "batch_size", "gpus",
             "peak_memory_bytes", "checkpoint_seconds", "checkpoint_bytes"]
        )  # fmt: skip
        for i in range(rows):
            seq, batch, base = SHAPES[i % 3]
            seconds = f"{base * rng.uniform(0.97, 1.10):.4f}" if i % 1000 != 999 else "-1"
            ckpt = ("41.5", "98000000000") if i % 500 == 0 else ("", "")
            memory = 60_000_000_000 + seq * 400_000
            out.writerow(
                [f"run-{i % 2}", i // 2, seconds, seq * batch, seq, batch, 64, memory, *ckpt]
            )


def timed(function) -> tuple[float, object]:
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    options = PilotOptions(
        params=Decimal("3e10"),
        gpu="H100-SXM",
        shape_mix=parse_shape_mix(["2048=0.7", "8192=0.2", "32768=0.1"]),
    )
    from trainbudget.estimate.catalog import get_accelerator

    accelerator = get_accelerator("H100-SXM")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "steps.csv"
        generate(path, rows)
        size_bytes = path.stat().st_size
        baseline_seconds, frame = timed(lambda: pl.read_csv(path))
        read_seconds, log = timed(lambda: read_step_log(path))
        with Ledger.open(Path(folder) / "bench.duckdb") as ledger:
            land_seconds, result = timed(lambda: land_pilot(ledger, [path], options, accelerator))
            landed = dict(ledger.table_counts())
    payload = {
        "rows": rows,
        "csv_bytes": size_bytes,
        "baseline_polars_read_csv_seconds": round(baseline_seconds, 3),
        "read_step_log_seconds": round(read_seconds, 3),
        "land_pilot_seconds": round(land_seconds, 3),
        "read_vs_baseline": round(read_seconds / baseline_seconds, 1),
        "land_vs_baseline": round(land_seconds / baseline_seconds, 1),
        "rows_per_second_end_to_end": round(rows / land_seconds),
        "valid_rows": log.steps.height,
        "rejected_rows": len(log.rejected),
        "landed_steps": landed["pilot_steps"],
        "quarantined": landed["quarantine"],
        "baseline_rows": frame.height,
        "mfu": float(result.summary.mfu),
    }
    print(write_result("pilot", payload))
    for key, value in payload.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()

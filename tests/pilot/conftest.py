"""Helpers for the pilot tests: write small step logs in each supported format."""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest

HEADER = (
    "run_id", "step", "wall_seconds", "tokens", "seq_len", "batch_size", "gpus",
    "peak_memory_bytes", "checkpoint_seconds", "checkpoint_bytes",
)  # fmt: skip


def step_row(step: int, wall_seconds: float, **overrides: Any) -> dict[str, Any]:
    """A valid step-log row (2048 x 8 on 8 GPUs, 16,384 tokens) with some fields replaced."""
    row = {
        "run_id": "r1",
        "step": step,
        "wall_seconds": wall_seconds,
        "tokens": 16384,
        "seq_len": 2048,
        "batch_size": 8,
        "gpus": 8,
        "peak_memory_bytes": 40 * 2**30,
        "checkpoint_seconds": None,
        "checkpoint_bytes": None,
    }
    row.update(overrides)
    return row


def write_log(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    """Write rows as CSV, JSONL or Parquet, chosen by the file's suffix."""
    columns = list(dict.fromkeys(k for row in rows for k in row)) if rows else list(HEADER)
    if path.suffix == ".csv":
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(columns)
            for row in rows:
                writer.writerow(["" if row.get(c) is None else row.get(c) for c in columns])
    elif path.suffix == ".jsonl":
        path.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in rows))
    elif path.suffix == ".parquet":
        pl.DataFrame(list(rows)).write_parquet(path)
    else:
        raise ValueError(path.suffix)
    return path


@pytest.fixture
def make_log(tmp_path: Path) -> Callable[..., Path]:
    def make(rows: Sequence[dict[str, Any]], name: str = "steps.csv") -> Path:
        return write_log(tmp_path / name, rows)

    return make


@pytest.fixture
def row() -> Callable[..., dict[str, Any]]:
    return step_row

"""Builders of tiny hand-made Chrome traces with known answers."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import orjson
import pytest


class TraceBuilder:
    """Collects events; `write()` saves them as a torch.profiler-style trace file."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.events: list[dict[str, Any]] = []
        self._corr = 1000

    def kernel(
        self,
        name: str,
        ts: float,
        dur: float,
        *,
        launch_ts: float | None = None,
        stream: int = 7,
        cat: str = "kernel",
    ) -> int:
        """A GPU event and (by default) its CPU launch 1 µs earlier; returns the correlation."""
        self._corr += 1
        corr = self._corr
        self.events.append(
            {
                "ph": "X",
                "cat": cat,
                "name": name,
                "pid": 0,
                "tid": stream,
                "ts": ts,
                "dur": dur,
                "args": {"device": 0, "stream": stream, "correlation": corr},
            }
        )
        start = ts - 1 if launch_ts is None else launch_ts
        self.events.append(
            {
                "ph": "X",
                "cat": "cuda_runtime",
                "name": "cudaLaunchKernel",
                "pid": 100,
                "tid": 100,
                "ts": start,
                "dur": 0.5,
                "args": {"correlation": corr},
            }
        )
        return corr

    def cpu(self, name: str, ts: float, dur: float, cat: str = "cpu_op", **args: Any) -> None:
        self.events.append(
            {
                "ph": "X",
                "cat": cat,
                "name": name,
                "pid": 100,
                "tid": 100,
                "ts": ts,
                "dur": dur,
                "args": args,
            }
        )

    def step(self, number: int, ts: float, dur: float) -> None:
        self.cpu(f"ProfilerStep#{number}", ts, dur, cat="user_annotation")

    def memory(self, ts: float, allocated: int, device: int = 0, device_type: int = 1) -> None:
        self.events.append(
            {
                "ph": "i",
                "cat": "cpu_instant_event",
                "name": "[memory]",
                "pid": 100,
                "tid": 100,
                "ts": ts,
                "s": "t",
                "args": {
                    "Total Allocated": allocated,
                    "Total Reserved": allocated,
                    "Bytes": 1,
                    "Device Type": device_type,
                    "Device Id": device,
                },
            }
        )

    def write(
        self,
        name: str = "trace.json",
        *,
        rank: int | None = 0,
        meta: dict[str, Any] | None = None,
        gz: bool = False,
    ) -> Path:
        document: dict[str, Any] = {"schemaVersion": 1}
        if rank is not None:
            document["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": 2}
        document.update(meta or {})
        document["traceEvents"] = self.events
        document["traceName"] = name
        raw = orjson.dumps(document, option=orjson.OPT_INDENT_2)
        path = self.directory / name
        path.write_bytes(gzip.compress(raw) if gz else raw)
        return path


@pytest.fixture
def make_trace(tmp_path: Path):
    def factory(subdir: str = "t") -> TraceBuilder:
        directory = tmp_path / subdir
        directory.mkdir(exist_ok=True)
        return TraceBuilder(directory)

    return factory

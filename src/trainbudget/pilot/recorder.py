"""`PilotRecorder`: put it around a training loop to write a pilot step log and a profiler trace.

It records each step's wall time, tokens, shape and (with CUDA) `torch.cuda.max_memory_allocated`,
each checkpoint's write time and size, and runs `torch.profiler` on a schedule for a few steps.
It writes the step log as JSONL in the format `trainbudget pilot` reads, and the Chrome trace
(`*.pt.trace.json`) that `trainbudget trace` reads. PyTorch is an optional extra
(`pip install 'trainbudget[torch]'`): this module imports without it and says so when used.

    with PilotRecorder("pilot-out", run_id="lr-3e-4") as rec:
        for batch in loader:
            with rec.step(seq_len=batch.shape[1], batch_size=batch.shape[0]):
                train_step(batch)
            if rec.steps_recorded % 500 == 0:
                with rec.checkpoint("ckpt.pt"):
                    torch.save(state, "ckpt.pt")
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import IO, Any

import orjson


def _require_torch() -> ModuleType:
    try:
        import torch
    except ImportError:
        raise ImportError(
            "PilotRecorder needs PyTorch, which is an optional extra: "
            "pip install 'trainbudget[torch]' (or any torch >= 2.3)"
        ) from None
    return torch


class PilotRecorder:
    """Record a pilot run's steps, checkpoints and a scheduled profiler trace into `out_dir`.

    `tokens` passed to `step()` is the whole step's count across all GPUs (the step-log
    convention); when omitted it is seq_len × batch_size. Step time excludes checkpoint writes,
    which are recorded on the step they follow. Only rank 0 writes the step log (one log per
    run, not one per rank); every rank writes its own trace, `<run_id>.rank-<rank>.pt.trace.json`.
    """

    def __init__(
        self,
        out_dir: str | os.PathLike[str],
        run_id: str,
        *,
        gpus: int | None = None,
        profile: bool = True,
        profile_wait: int = 1,
        profile_warmup: int = 1,
        profile_active: int = 3,
    ) -> None:
        if not run_id:
            raise ValueError("run_id must not be empty")
        self.out_dir = Path(out_dir)
        self.run_id = run_id
        self._gpus = gpus
        self._profile = profile
        self._schedule = (profile_wait, profile_warmup, profile_active)
        self._torch: ModuleType | None = None
        self._log: IO[bytes] | None = None
        self._profiler: Any = None
        self._pending: dict[str, Any] | None = None
        self._cuda = False
        self.rank = 0
        self.steps_recorded = 0
        self.trace_paths: list[Path] = []

    @property
    def step_log_path(self) -> Path:
        return self.out_dir / f"{self.run_id}.steps.jsonl"

    def __enter__(self) -> PilotRecorder:
        torch = self._torch = _require_torch()
        distributed = torch.distributed.is_available() and torch.distributed.is_initialized()
        self.rank = torch.distributed.get_rank() if distributed else 0
        world = torch.distributed.get_world_size() if distributed else 1
        self._gpus = self._gpus or world
        self._cuda = torch.cuda.is_available()
        self.out_dir.mkdir(parents=True, exist_ok=True)
        if self.rank == 0:
            self._log = self.step_log_path.open("wb")
        if self._profile:
            self._profiler = self._start_profiler(torch)
        return self

    def _start_profiler(self, torch: ModuleType) -> Any:
        activities = [torch.profiler.ProfilerActivity.CPU]
        if self._cuda:
            activities.append(torch.profiler.ProfilerActivity.CUDA)
        wait, warmup, active = self._schedule
        profiler = torch.profiler.profile(
            activities=activities,
            schedule=torch.profiler.schedule(wait=wait, warmup=warmup, active=active, repeat=1),
            on_trace_ready=self._write_trace,
            record_shapes=True,
            profile_memory=True,
        )
        profiler.__enter__()
        return profiler

    def _write_trace(self, profiler: Any) -> None:
        path = self.out_dir / f"{self.run_id}.rank-{self.rank}.pt.trace.json"
        profiler.export_chrome_trace(str(path))
        self.trace_paths.append(path)

    @contextmanager
    def step(
        self,
        *,
        seq_len: int,
        batch_size: int,
        tokens: int | None = None,
        samples: int | None = None,
    ) -> Iterator[None]:
        """Time one training step; a step that raises is not recorded."""
        torch = self._active_torch()
        self._flush()
        if self._cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        start = time.perf_counter()
        yield
        if self._cuda:
            torch.cuda.synchronize()  # count the step's queued GPU work, not just its launch
        seconds = time.perf_counter() - start
        self._pending = {
            "run_id": self.run_id,
            "step": self.steps_recorded,
            "wall_seconds": seconds,
            "tokens": seq_len * batch_size if tokens is None and samples is None else tokens,
            "samples": samples,
            "seq_len": seq_len,
            "batch_size": batch_size,
            "gpus": self._gpus,
            "peak_memory_bytes": torch.cuda.max_memory_allocated() if self._cuda else None,
            "checkpoint_seconds": None,
            "checkpoint_bytes": None,
        }
        self.steps_recorded += 1
        if self._profiler is not None:
            self._profiler.step()

    @contextmanager
    def checkpoint(self, path: str | os.PathLike[str]) -> Iterator[None]:
        """Time a checkpoint write and measure `path` (a file or a folder) once it is written."""
        torch = self._active_torch()
        if self._pending is None:
            raise RuntimeError("checkpoint() records on the step it follows: call step() first")
        start = time.perf_counter()
        yield
        if self._cuda:
            torch.cuda.synchronize()
        self._pending["checkpoint_seconds"] = time.perf_counter() - start
        self._pending["checkpoint_bytes"] = _size_bytes(Path(path))

    def __exit__(self, *exc: object) -> None:
        try:
            self._flush()
            if self._profiler is not None:
                self._profiler.__exit__(None, None, None)
        finally:
            if self._log is not None:
                self._log.close()
            self._log = self._profiler = None

    def _flush(self) -> None:
        if self._pending is not None and self._log is not None:
            self._log.write(orjson.dumps(self._pending) + b"\n")
            self._log.flush()
        self._pending = None

    def _active_torch(self) -> ModuleType:
        if self._torch is None:
            raise RuntimeError("use PilotRecorder as a context manager: with PilotRecorder(...)")
        return self._torch


def _size_bytes(path: Path) -> int:
    """Bytes of a file, or of every file under a folder (sharded checkpoints)."""
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size

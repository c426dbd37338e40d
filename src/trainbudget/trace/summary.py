"""Summarize one rank's trace: GPU busy/idle, kernel categories, overlap, steps, memory, FLOPs.

`summarize_rank(path)` is a pure function of one file, so ranks can be mapped over processes
(or Prefect tasks) and joined with `trace.combine.combine_ranks`. Times are integer ns inside,
reported in µs. Definitions are in docs/trace.md.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from trainbudget.base.errors import naming
from trainbudget.trace.categories import CATEGORIES, COMMUNICATION, COMPUTATION, categorize
from trainbudget.trace.flops import innermost, op_flops
from trainbudget.trace.intervals import overlap_length, span, union_length
from trainbudget.trace.memory import memory_peaks, peak_device
from trainbudget.trace.parse import RankEvents, read_trace

_RANK_IN_NAME = re.compile(r"rank[-_]?(\d+)", re.IGNORECASE)
_STEP_NUMBER = re.compile(r"ProfilerStep\s*#\s*(\d+)")


@dataclass
class GpuFigures:
    """Busy/idle and per-category union times (ns) of one set of GPU events."""

    busy_ns: int
    span_ns: int
    by_category_ns: dict[str, int]
    overlap_ns: int

    @property
    def idle_ns(self) -> int:
        return self.span_ns - self.busy_ns

    @property
    def overlap_pct(self) -> float | None:
        comm = self.by_category_ns["communication"]
        return None if comm == 0 else 100 * self.overlap_ns / comm


@dataclass
class StepSummary:
    """One ProfilerStep of one rank."""

    step: int
    start_ns: int
    duration_ns: int
    gpu: GpuFigures
    dataloader_ns: int
    flops: int


@dataclass
class RankSummary:
    """Everything reported for one rank (picklable, so worker processes can return it)."""

    path: str
    rank: int | None
    rank_source: str  # distributedInfo, file name, or default
    json_bytes: int
    event_count: int
    gpu_event_count: int
    gpu: GpuFigures
    steps: list[StepSummary]
    dataloader_ns: int
    memory_peak_bytes: int | None
    memory_peak_bytes_by_device: dict[str, int]
    memory_peak_device: str | None
    flops: int
    flops_by_precision: dict[str, int]
    flop_ops_counted: int
    flop_ops_unmeasured: int
    wall_ns: int
    device_name: str | None
    warnings: list[str] = field(default_factory=list)


def rank_of(meta: dict[str, Any], path: Path) -> tuple[int | None, str]:
    """Rank from `distributedInfo.rank`, else from a `rank<N>` file name, else unknown."""
    info = meta.get("distributedInfo")
    if isinstance(info, dict) and isinstance(info.get("rank"), int):
        return info["rank"], "distributedInfo"
    found = _RANK_IN_NAME.search(path.name)
    if found:
        return int(found.group(1)), "file name"
    return None, "default"


def _to_ns(ts: np.ndarray, dur: np.ndarray, hta: bool) -> tuple[np.ndarray, np.ndarray]:
    """Start and end in integer ns.

    Default: the start's whole µs and its fraction are converted separately (exact for the
    float64 value read), the duration on its own, so lengths keep their ns digits. HTA mode:
    start rounded up and end (ts + dur in float64, as HTA computes it) down to whole µs.
    """
    if hta:
        start = np.ceil(ts).astype(np.int64) * 1000
        end = np.floor(ts + dur).astype(np.int64) * 1000
        return start, end
    whole = np.floor(ts)
    start = whole.astype(np.int64) * 1000 + np.rint((ts - whole) * 1000).astype(np.int64)
    return start, start + np.rint(dur * 1000).astype(np.int64)


def gpu_figures(start: np.ndarray, end: np.ndarray, category: np.ndarray) -> GpuFigures:
    """Union busy time, span, per-category unions and comm/comp overlap of GPU events (ns)."""
    by_category = {}
    for index, name in enumerate(CATEGORIES):
        mask = category == index
        by_category[name] = union_length(start[mask], end[mask])
    comm, comp = category == COMMUNICATION, category == COMPUTATION
    overlap = overlap_length(start[comm], end[comm], start[comp], end[comp])
    return GpuFigures(union_length(start, end), span(start, end), by_category, overlap)


def _step_markers(events: RankEvents, hta: bool) -> tuple[list[tuple[int, int, int]], int | None]:
    """CPU ProfilerStep intervals (number, start ns, end ns) and HTA's cut-off (ns) if any.

    HTA's cut-off is the latest start of any non-GPU event named ProfilerStep (that includes
    `gpu_user_annotation` copies), applied only when at least two distinct step names exist.
    """
    steps: dict[int, tuple[int, int]] = {}
    marker_starts = []
    names = set()
    for name, ts, dur, on_gpu in events.steps:
        start, end = _to_ns(np.array([ts]), np.array([dur]), hta)
        marker_starts.append(int(start[0]))
        names.add(name)
        found = _STEP_NUMBER.match(name)
        if on_gpu or not found:
            continue
        number = int(found.group(1))
        if number in steps:
            old = steps[number]
            steps[number] = (min(old[0], int(start[0])), max(old[1], int(end[0])))
        else:
            steps[number] = (int(start[0]), int(end[0]))
    cutoff = max(marker_starts) if hta and len(names) >= 2 else None
    ordered = sorted(((n, s, e) for n, (s, e) in steps.items()), key=lambda x: x[1])
    if cutoff is not None:
        ordered = [x for x in ordered if x[1] < cutoff]
    return ordered, cutoff


def _launch_times(events: RankEvents, hta: bool) -> tuple[np.ndarray, np.ndarray]:
    """CPU-side launch start (ns) for each GPU event, or its own start when unmatched."""
    launch_start, _ = _to_ns(events.launch_ts, np.zeros_like(events.launch_ts), hta)
    order = np.argsort(events.launch_corr, kind="stable")
    corr_sorted, start_sorted = events.launch_corr[order], launch_start[order]
    pos = np.searchsorted(corr_sorted, events.gpu_corr)
    pos_clipped = np.minimum(pos, max(corr_sorted.size - 1, 0))
    matched = corr_sorted.size > 0
    found = (
        (corr_sorted[pos_clipped] == events.gpu_corr)
        if matched
        else np.zeros(events.gpu_corr.size, bool)
    )
    times = start_sorted[pos_clipped] if matched else np.zeros(events.gpu_corr.size, np.int64)
    return times, found


@dataclass
class _FlopCount:
    by_precision: dict[str, int]
    by_step: dict[int, int]
    counted: int
    unmeasured: int
    reasons: list[str]


def _count_flops(
    events: RankEvents, hta: bool, cutoff: int | None, steps: list[tuple[int, int, int]]
) -> _FlopCount:
    """FLOPs of the shape-bearing operators, by precision and by the step they start in."""
    ops = events.flop_ops
    ts = np.array([op.ts for op in ops], dtype=np.float64)
    op_start, _ = _to_ns(ts, np.zeros_like(ts), hta)
    exact_start, exact_end = _to_ns(ts, np.array([op.dur for op in ops], dtype=np.float64), False)
    leaf = innermost(exact_start, exact_end).tolist()
    step_starts = np.array([s for _, s, _ in steps], dtype=np.int64)
    step_index = np.searchsorted(step_starts, op_start, side="right") - 1
    count = _FlopCount({}, {}, 0, 0, [])
    reasons = set()
    for op, start_ns, index, counted in zip(
        ops, op_start.tolist(), step_index.tolist(), leaf, strict=True
    ):
        if not counted or (cutoff is not None and start_ns >= cutoff):
            continue  # a composite whose inner operator is counted, or past HTA's cut-off
        result = op_flops(op.name, op.input_dims, op.input_type, op.concrete)
        if result.flops is None:
            count.unmeasured += 1
            reasons.add(result.reason or "unknown")
            continue
        count.counted += 1
        key = result.precision or "unknown"
        count.by_precision[key] = count.by_precision.get(key, 0) + result.flops
        if index >= 0 and start_ns < steps[index][2]:
            number = steps[index][0]
            count.by_step[number] = count.by_step.get(number, 0) + result.flops
    count.reasons = sorted(reasons)
    return count


def summarize_events(events: RankEvents, *, hta_compatible: bool = False) -> RankSummary:
    """Summarize decoded events of one rank (see summarize_rank)."""
    hta = hta_compatible
    warnings: list[str] = []
    rank, rank_source = rank_of(events.meta, events.path)
    start, end = _to_ns(events.gpu_ts, events.gpu_dur, hta)
    category = categorize(events.names)[events.gpu_name]
    steps, cutoff = _step_markers(events, hta)
    launch, has_launch = _launch_times(events, hta)
    if cutoff is not None:
        # HTA keeps GPU events whose launching CPU event starts before the last step.
        keep = has_launch & (launch < cutoff)
        start, end, category, launch = start[keep], end[keep], category[keep], launch[keep]
        has_launch = has_launch[keep]
    if not events.steps:
        warnings.append(f"{events.path}: no ProfilerStep markers; the trace is summarized whole")
    if events.gpu_ts.size == 0:
        warnings.append(f"{events.path}: no GPU events; only the CPU side is summarized")

    loader_ts = np.array([x[0] for x in events.loader], dtype=np.float64)
    loader_dur = np.array([x[1] for x in events.loader], dtype=np.float64)
    loader_start, loader_end = _to_ns(loader_ts, loader_dur, hta)
    if cutoff is not None:
        mask = loader_start < cutoff
        loader_start, loader_end = loader_start[mask], loader_end[mask]

    flops = _count_flops(events, hta, cutoff, steps)
    if flops.unmeasured:
        warnings.append(
            f"{events.path}: {flops.unmeasured} FLOP-bearing operators left uncounted "
            f"({'; '.join(flops.reasons)})"
        )

    # Per step: GPU events by the step their launch falls in (own start if no launch found).
    when = np.where(has_launch, launch, start)
    step_list = []
    for number, step_start, step_end in steps:
        in_step = (when >= step_start) & (when < step_end)
        loader_in = (loader_start >= step_start) & (loader_start < step_end)
        step_list.append(
            StepSummary(
                step=number,
                start_ns=step_start,
                duration_ns=step_end - step_start,
                gpu=gpu_figures(start[in_step], end[in_step], category[in_step]),
                dataloader_ns=union_length(loader_start[loader_in], loader_end[loader_in]),
                flops=flops.by_step.get(number, 0),
            )
        )

    figures = gpu_figures(start, end, category)
    peaks = memory_peaks(events.memory)
    memory_device = peak_device(peaks)
    wall_ns = sum(s.duration_ns for s in step_list) if step_list else figures.span_ns
    devices = events.meta.get("deviceProperties")
    device_name = devices[0].get("name") if isinstance(devices, list) and devices else None
    return RankSummary(
        path=str(events.path),
        rank=rank,
        rank_source=rank_source,
        json_bytes=events.json_bytes,
        event_count=events.event_count,
        gpu_event_count=int(start.size),
        gpu=figures,
        steps=step_list,
        dataloader_ns=union_length(loader_start, loader_end),
        memory_peak_bytes=None if memory_device is None else peaks[memory_device],
        memory_peak_bytes_by_device=peaks,
        memory_peak_device=memory_device,
        flops=sum(flops.by_precision.values()),
        flops_by_precision=flops.by_precision,
        flop_ops_counted=flops.counted,
        flop_ops_unmeasured=flops.unmeasured,
        wall_ns=wall_ns,
        device_name=device_name,
        warnings=warnings,
    )


def summarize_rank(
    path: str | os.PathLike[str],
    *,
    hta_compatible: bool = False,
    max_json_bytes: int | None = None,
) -> RankSummary:
    """Summarize one rank's trace file (plain or .gz). Pure: reads the file, returns numbers."""
    try:
        events = read_trace(path, max_json_bytes)
    except OSError as exc:
        raise naming(exc, path) from None
    return summarize_events(events, hta_compatible=hta_compatible)

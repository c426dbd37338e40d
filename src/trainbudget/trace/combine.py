"""Join per-rank summaries into the `trainbudget trace` report (the public JSON contract).

Ranks come from each file (`distributedInfo.rank`, else the file name); a file with neither is
rank 0 with a warning, and two files claiming one rank are an error. Totals over ranks: busy,
idle and category times are sums, the memory peak is the largest rank's (per device name too),
FLOPs (hardware basis: counted from the recorded operators) are summed, and
a step's duration is that of its slowest rank. MFU is the mean per-rank achieved FLOP/s over
the catalog GPU's dense peak.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.trace.categories import CATEGORIES
from trainbudget.trace.summary import GpuFigures, RankSummary, StepSummary

if TYPE_CHECKING:
    from trainbudget.estimate.catalog import Accelerator


# Trace FLOPs are counted from the operators that ran (recomputation included): the
# "hardware" basis, as against the "model" basis of 6·N·T (the estimate's wording).
FLOPS_BASIS = "hardware"


@dataclass(frozen=True)
class Peak:
    """The accelerator MFU is measured against: name, precision and dense peak FLOP/s."""

    gpu: str
    precision: str
    flops_per_second: Fraction


def _us(ns: int) -> float:
    return ns / 1000


def _pct(part: int, whole: int) -> float | None:
    return None if whole == 0 else 100 * part / whole


def _gpu_json(gpu: GpuFigures) -> dict[str, Any]:
    return {
        "gpu_busy_us": _us(gpu.busy_ns),
        "gpu_idle_us": _us(gpu.idle_ns),
        "gpu_kernel_us_by_category": {k: _us(v) for k, v in gpu.by_category_ns.items()},
        "comm_comp_overlap_pct": gpu.overlap_pct,
    }


def _step_json(step: StepSummary) -> dict[str, Any]:
    return {
        "step": step.step,
        "duration_us": _us(step.duration_ns),
        **_gpu_json(step.gpu),
        "dataloader_us": _us(step.dataloader_ns),
        "flops": step.flops,
    }


def assign_ranks(summaries: Sequence[RankSummary]) -> tuple[list[int], list[str]]:
    """Each summary's rank (0 when the file names none) and the warnings; error on a clash."""
    ranks, warnings, owner = [], [], {}
    for s in summaries:
        rank = s.rank
        if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 0):
            raise InputError(
                f"{s.path}: distributedInfo.rank: must be a whole number ≥ 0, got {rank!r}"
            )
        if rank is None:
            rank = 0
            warnings.append(
                f"{s.path}: no distributedInfo.rank and no rank in the file name; taken as rank 0"
            )
        if rank in owner:
            raise InputError(
                f"{s.path}: claims rank {rank}, which {owner[rank]} already claims "
                "(give each rank's file once)"
            )
        owner[rank] = s.path
        ranks.append(rank)
    return ranks, warnings


def dominant_precision(summaries: Sequence[RankSummary]) -> str | None:
    """The precision carrying the most counted FLOPs, or None when nothing was counted."""
    totals: dict[str, int] = {}
    for s in summaries:
        for key, value in s.flops_by_precision.items():
            if key != "unknown":
                totals[key] = totals.get(key, 0) + value
    return max(totals, key=lambda k: totals[k]) if totals else None


def choose_peak(
    summaries: Sequence[RankSummary],
    *,
    accelerator: Accelerator | None = None,
    tflops: Fraction | None = None,
    gpu: str | None = None,
    precision: str | None = None,
) -> Peak | None:
    """The peak MFU is measured against: `tflops` (dense TFLOP/s of one GPU) if given, else the
    accelerator's catalog peak; at `precision`, by default the traced ops' dominant dtype (else
    bf16). None when neither is given: the report then has no MFU."""
    chosen = (precision or dominant_precision(summaries) or "bf16").lower()
    if tflops is not None:
        return Peak(gpu or "custom", chosen, tflops * 10**12)
    if accelerator is not None:
        return Peak(accelerator.name, chosen, Fraction(accelerator.peak_flops_per_second(chosen)))
    return None


def _achieved(s: RankSummary) -> Fraction | None:
    return None if s.wall_ns <= 0 or s.flops == 0 else Fraction(s.flops * 10**9, s.wall_ns)


def combine_ranks(
    summaries: Sequence[RankSummary], *, hta_compatible: bool, peak: Peak | None = None
) -> tuple[dict[str, Any], list[str]]:
    """The report payload and the warnings to print, from the summaries of all ranks."""
    ranks, warnings = assign_ranks(summaries)
    for s in summaries:
        warnings.extend(s.warnings)
    order = sorted(range(len(summaries)), key=lambda i: ranks[i])
    rank_objects = []
    slowest: dict[int, tuple[int, int]] = {}
    for i in order:
        s, rank = summaries[i], ranks[i]
        achieved = _achieved(s)
        rank_objects.append(
            {
                "rank": rank,
                "rank_from": s.rank_source,
                "file": s.path,
                "device_name": s.device_name,
                **_gpu_json(s.gpu),
                "gpu_span_us": _us(s.gpu.span_ns),
                "idle_pct": _pct(s.gpu.idle_ns, s.gpu.span_ns),
                "compute_pct": _pct(s.gpu.by_category_ns["computation"], s.gpu.span_ns),
                "non_compute_pct": _pct(
                    s.gpu.busy_ns - s.gpu.by_category_ns["computation"], s.gpu.span_ns
                ),
                "memory_peak_bytes": s.memory_peak_bytes,
                "memory_peak_bytes_by_device": s.memory_peak_bytes_by_device,
                "memory_peak_device": s.memory_peak_device,
                "dataloader_us": _us(s.dataloader_ns),
                "flops": s.flops,
                "flops_basis": FLOPS_BASIS,
                "flops_by_precision": s.flops_by_precision,
                "flop_ops_unmeasured": s.flop_ops_unmeasured,
                "wall_us": _us(s.wall_ns),
                "achieved_tflops_per_second": None if achieved is None else achieved / 10**12,
                "mfu": None
                if achieved is None or peak is None
                else achieved / peak.flops_per_second,
                "steps": [_step_json(step) for step in s.steps],
            }
        )
        for step in s.steps:
            best = slowest.get(step.step)
            if best is None or step.duration_ns > best[0]:
                slowest[step.step] = (step.duration_ns, rank)
    rates = [a for a in (_achieved(s) for s in summaries) if a is not None]
    mean_rate = sum(rates, Fraction(0)) / len(rates) if rates else None
    memory = [s.memory_peak_bytes for s in summaries if s.memory_peak_bytes is not None]
    by_device: dict[str, int] = {}
    for s in summaries:
        for device, allocated in s.memory_peak_bytes_by_device.items():
            by_device[device] = max(by_device.get(device, allocated), allocated)
    payload = {
        "hta_compatible": hta_compatible,
        "ranks": rank_objects,
        "steps": [
            {"step": n, "duration_us": _us(d), "slowest_rank": r}
            for n, (d, r) in sorted(slowest.items())
        ],
        "gpu_kernel_us_by_category": {
            k: _us(sum(s.gpu.by_category_ns[k] for s in summaries)) for k in CATEGORIES
        },
        "gpu_busy_us": _us(sum(s.gpu.busy_ns for s in summaries)),
        "gpu_idle_us": _us(sum(s.gpu.idle_ns for s in summaries)),
        "memory_peak_bytes": max(memory) if memory else None,
        "memory_peak_bytes_by_device": by_device,
        "flops": sum(s.flops for s in summaries),
        "flops_basis": FLOPS_BASIS,
        "achieved_tflops_per_second": None if mean_rate is None else mean_rate / 10**12,
        "gpu": None if peak is None else peak.gpu,
        "precision": None if peak is None else peak.precision,
        "peak_tflops_per_second": None if peak is None else peak.flops_per_second / 10**12,
        "mfu": None if mean_rate is None or peak is None else mean_rate / peak.flops_per_second,
    }
    return payload, warnings

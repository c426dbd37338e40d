"""Land trace summaries in the ledger: one `trace_ranks` row per file, `trace_steps` per step.

Each file is a source (kind `trace`, or `trace_hta` for --hta-compatible numbers) with its
content hash, so landing the same file again is a no-op. Call inside one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trainbudget.ledger import Ledger
from trainbudget.quality.relation import require_valid
from trainbudget.quality.rules import TRACE_RANK_RULES
from trainbudget.trace.summary import GpuFigures, RankSummary


def _categories(gpu: GpuFigures) -> dict[str, int]:
    return {f"{name}_ns": value for name, value in gpu.by_category_ns.items()}


def land_summaries(
    ledger: Ledger, summaries: Sequence[RankSummary], ranks: Sequence[int], *, hta_compatible: bool
) -> list[dict[str, Any]]:
    """Land each rank's summary; return per file whether it was new (`landed`) and its source."""
    kind = "trace_hta" if hta_compatible else "trace"
    rank_rows = [_rank_row(summary, rank, hta_compatible) for summary, rank in
                 zip(summaries, ranks, strict=True)]  # fmt: skip
    outcome: list[dict[str, Any]] = []
    # One transaction: the rows landed are checked against their rules (schemas.TraceRank's,
    # quality.rules.TRACE_RANK_RULES) in DuckDB before it commits, and a breach lands nothing.
    with ledger.transaction():
        for summary, rank, row in zip(summaries, ranks, rank_rows, strict=True):
            source = ledger.begin_source(Path(summary.path), kind)
            if source is None:
                outcome.append({"file": summary.path, "landed": False, "source_id": None})
                continue
            provenance = source.provenance(None)
            ledger.insert_rows("trace_ranks", [{**row, **provenance}])
            steps = [
                {
                    "rank": rank,
                    "step": step.step,
                    "hta_compatible": hta_compatible,
                    "duration_ns": step.duration_ns,
                    "gpu_busy_ns": step.gpu.busy_ns,
                    **_categories(step.gpu),
                    "comm_comp_overlap_pct": step.gpu.overlap_pct,
                    "dataloader_ns": step.dataloader_ns,
                    "flops": step.flops,
                    **provenance,
                }
                for step in summary.steps
            ]
            ledger.insert_rows("trace_steps", steps)
            ledger.finish_source(source, 1 + len(steps))
            outcome.append({"file": summary.path, "landed": True, "source_id": source.source_id})
        landed = [item["source_id"] for item in outcome if item["landed"]]
        if landed:
            require_valid(
                ledger.con,
                TRACE_RANK_RULES,
                where="list_contains($source_ids, source_id)",
                params={"source_ids": landed},
            )
    return outcome


def _rank_row(summary: RankSummary, rank: int, hta_compatible: bool) -> dict[str, Any]:
    return {
        "rank": rank,
        "rank_from": summary.rank_source,
        "hta_compatible": hta_compatible,
        "device_name": summary.device_name,
        "gpu_busy_ns": summary.gpu.busy_ns,
        "gpu_idle_ns": summary.gpu.idle_ns,
        **_categories(summary.gpu),
        "comm_comp_overlap_pct": summary.gpu.overlap_pct,
        "memory_peak_bytes": summary.memory_peak_bytes,
        "dataloader_ns": summary.dataloader_ns,
        "flops": summary.flops,
        "wall_ns": summary.wall_ns,
        "event_count": summary.event_count,
        "json_bytes": summary.json_bytes,
    }

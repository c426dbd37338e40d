"""PyTorch Profiler trace summaries: HTA-equal GPU figures, per-step numbers, memory, FLOPs.

The facade: `summarize_rank(path)` (one file → `RankSummary`, pure, safe to map over worker
processes or Prefect tasks) and `combine_ranks(summaries)` (→ the `trainbudget trace` report).
"""

from trainbudget.trace.combine import combine_ranks
from trainbudget.trace.summary import RankSummary, summarize_rank

__all__ = ["RankSummary", "combine_ranks", "summarize_rank"]

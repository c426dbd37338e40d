"""Pandera (polars) models of every table that crosses a stage boundary, in one place.

Validate eager DataFrames: on a LazyFrame Pandera checks only the schema, not the data.
Each model says which stage produces it and which consume it.
"""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from trainbudget.work_classes import WORK_CLASSES


class CampaignLine(pa.DataFrameModel):
    """estimate/campaign → report, gates: one priced line of a campaign budget."""

    work_class: str = pa.Field(isin=(*WORK_CLASSES, "storage", "total"))
    name: str
    kind: str = pa.Field(isin=("planned", "contingency"))
    gpu_hours: float = pa.Field(ge=0)
    usd: float = pa.Field(ge=0)

    class Config:
        strict = True


class PilotStep(pa.DataFrameModel):
    """pilot/ingest → pilot/stats, ledger `pilot_steps`, quality: one step of a pilot run.

    `tokens` counts the whole step across all `gpus`; a row gives `tokens` or `samples`.
    `checkpoint_*` are set only on steps that wrote a checkpoint (seconds not in wall_seconds).
    """

    run_id: str = pa.Field(str_length={"min_value": 1})
    step: int = pa.Field(ge=0)
    wall_seconds: float = pa.Field(gt=0)
    tokens: int = pa.Field(gt=0, nullable=True)
    samples: int = pa.Field(gt=0, nullable=True)
    seq_len: int = pa.Field(gt=0)
    batch_size: int = pa.Field(gt=0)
    gpus: int = pa.Field(gt=0)
    peak_memory_bytes: int = pa.Field(ge=0, nullable=True)
    checkpoint_seconds: float = pa.Field(ge=0, nullable=True)
    checkpoint_bytes: int = pa.Field(ge=0, nullable=True)
    source_line: int = pa.Field(ge=1)

    @pa.check("wall_seconds", "checkpoint_seconds", name="finite")
    def _finite(cls, data):
        return data.lazyframe.select(pl.col(data.key).is_finite() | pl.col(data.key).is_null())

    @pa.dataframe_check(name="tokens or samples")
    def _tokens_or_samples(cls, data):
        return data.lazyframe.select(
            pl.col("tokens").is_not_null() | pl.col("samples").is_not_null()
        )

    class Config:
        strict = True


class TraceRank(pa.DataFrameModel):
    """trace/summary → ledger `trace_ranks`, estimate (measured MFU): one rank of a profile.

    Times are integer ns; each category is a union, so none exceeds the busy time, and busy
    plus idle is the span from the first to the last GPU event.
    """

    rank: int = pa.Field(ge=0)
    gpu_busy_ns: int = pa.Field(ge=0)
    gpu_idle_ns: int = pa.Field(ge=0)
    computation_ns: int = pa.Field(ge=0)
    communication_ns: int = pa.Field(ge=0)
    memory_ns: int = pa.Field(ge=0)
    other_ns: int = pa.Field(ge=0)
    comm_comp_overlap_pct: float = pa.Field(ge=0, le=100, nullable=True)
    memory_peak_bytes: int = pa.Field(ge=0, nullable=True)
    dataloader_ns: int = pa.Field(ge=0)
    wall_ns: int = pa.Field(ge=0)

    @pa.dataframe_check(name="categories within busy time")
    def _categories_within_busy(cls, data):
        busy = pl.col("gpu_busy_ns")
        return data.lazyframe.select(
            (pl.col("computation_ns") <= busy)
            & (pl.col("communication_ns") <= busy)
            & (pl.col("memory_ns") <= busy)
            & (pl.col("other_ns") <= busy)
        )

    class Config:
        strict = True


class AblationPoint(pa.DataFrameModel):
    """scaling/load → scaling/fit, ledger `scaling_fit_points`: one small-scale training result.

    params = N (parameters), tokens = D (training tokens), loss in nats per token; all > 0.
    """

    source_line: int = pa.Field(ge=1)
    params: float = pa.Field(gt=0)
    tokens: float = pa.Field(gt=0)
    loss: float = pa.Field(gt=0)

    class Config:
        strict = True

"""Pandera (polars) models of every table that crosses a stage boundary, in one place.

Validate eager DataFrames: on a LazyFrame Pandera checks only the schema, not the data.
Each model says which stage produces it and which consume it.

The ledger's landed tables (sacct rows, progress, registry, manifest) and the review's job
accounting stay in DuckDB: their field checks are declared once in `quality.rules`, these
models take them from there (`_field`), and `quality.relation` validates the DuckDB table in
place with the same rules (`rules_of` reads any model's checks back, for the tests).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pandera.polars as pa
import polars as pl

from trainbudget.base.vocabulary import WORK_CLASSES
from trainbudget.quality.rules import (
    JOB_ACCOUNTING_RULES,
    MANIFEST_RULES,
    PILOT_STEP_RULES,
    PROGRESS_EVENTS_RULES,
    REGISTRY_RULES,
    SACCT_ROWS,
    TRACE_RANK_RULES,
    FieldRule,
    TableRules,
)


def _field(rules: TableRules, column: str) -> Any:
    return pa.Field(**rules.rule(column).field_kwargs())


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
    The rules are quality.rules.PILOT_STEP_RULES, which pilot/ingest checks with Polars
    (quality.frame), so a pilot run never imports Pandera (nor, through it, pandas).
    """

    run_id: str = _field(PILOT_STEP_RULES, "run_id")
    step: int = _field(PILOT_STEP_RULES, "step")
    wall_seconds: float = _field(PILOT_STEP_RULES, "wall_seconds")
    tokens: int = _field(PILOT_STEP_RULES, "tokens")
    samples: int = _field(PILOT_STEP_RULES, "samples")
    seq_len: int = _field(PILOT_STEP_RULES, "seq_len")
    batch_size: int = _field(PILOT_STEP_RULES, "batch_size")
    gpus: int = _field(PILOT_STEP_RULES, "gpus")
    peak_memory_bytes: int = _field(PILOT_STEP_RULES, "peak_memory_bytes")
    checkpoint_seconds: float = _field(PILOT_STEP_RULES, "checkpoint_seconds")
    checkpoint_bytes: int = _field(PILOT_STEP_RULES, "checkpoint_bytes")
    source_line: int = _field(PILOT_STEP_RULES, "source_line")

    @pa.check(*PILOT_STEP_RULES.finite_columns, name="finite")
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
    plus idle is the span from the first to the last GPU event. The rules are
    quality.rules.TRACE_RANK_RULES, which the landing checks in DuckDB (trace/land.py), so a
    trace run never imports Pandera (nor, through it, pandas).
    """

    rank: int = _field(TRACE_RANK_RULES, "rank")
    gpu_busy_ns: int = _field(TRACE_RANK_RULES, "gpu_busy_ns")
    gpu_idle_ns: int = _field(TRACE_RANK_RULES, "gpu_idle_ns")
    computation_ns: int = _field(TRACE_RANK_RULES, "computation_ns")
    communication_ns: int = _field(TRACE_RANK_RULES, "communication_ns")
    memory_ns: int = _field(TRACE_RANK_RULES, "memory_ns")
    other_ns: int = _field(TRACE_RANK_RULES, "other_ns")
    comm_comp_overlap_pct: float = _field(TRACE_RANK_RULES, "comm_comp_overlap_pct")
    memory_peak_bytes: int = _field(TRACE_RANK_RULES, "memory_peak_bytes")
    dataloader_ns: int = _field(TRACE_RANK_RULES, "dataloader_ns")
    wall_ns: int = _field(TRACE_RANK_RULES, "wall_ns")

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


# --- the ledger's landed tables and the review's hand-off, from quality.rules -------------


class SacctRow(pa.DataFrameModel):
    """reconcile/land → ledger `sacct_rows` → reconcile/review: one sacct line (allocation
    or step). Seconds and GPU counts are whole numbers; times are UTC."""

    cluster: str = _field(SACCT_ROWS, "cluster")
    job_id: str = _field(SACCT_ROWS, "job_id")
    step: str = _field(SACCT_ROWS, "step")
    job_id_raw: str = _field(SACCT_ROWS, "job_id_raw")
    name: str = _field(SACCT_ROWS, "name")
    account: str = _field(SACCT_ROWS, "account")
    partition: str = _field(SACCT_ROWS, "partition")
    state: str = _field(SACCT_ROWS, "state")
    state_text: str = _field(SACCT_ROWS, "state_text")
    exit_status: int = _field(SACCT_ROWS, "exit_status")
    exit_signal: int = _field(SACCT_ROWS, "exit_signal")
    elapsed_seconds: int = _field(SACCT_ROWS, "elapsed_seconds")
    elapsed_text: str = _field(SACCT_ROWS, "elapsed_text")
    submit_time: datetime = _field(SACCT_ROWS, "submit_time")
    start_time: datetime = _field(SACCT_ROWS, "start_time")
    end_time: datetime = _field(SACCT_ROWS, "end_time")
    gpus: int = _field(SACCT_ROWS, "gpus")
    gpu_type: str = _field(SACCT_ROWS, "gpu_type")
    alloc_mem_bytes: int = _field(SACCT_ROWS, "alloc_mem_bytes")
    alloc_cpus: int = _field(SACCT_ROWS, "alloc_cpus")
    nnodes: int = _field(SACCT_ROWS, "nnodes")
    alloc_tres: str = _field(SACCT_ROWS, "alloc_tres")
    req_tres: str = _field(SACCT_ROWS, "req_tres")
    source_id: int = _field(SACCT_ROWS, "source_id")
    source_line: int = _field(SACCT_ROWS, "source_line")
    time_flags: pl.List(pl.Utf8) = _field(SACCT_ROWS, "time_flags")  # local times at a DST change
    # start (else submit) + elapsed: when the accounting says the line stopped (migration 018)
    run_end_time: datetime = _field(SACCT_ROWS, "run_end_time")

    @pa.dataframe_check(name="end not before start")
    def _end_not_before_start(cls, data):
        start, end = pl.col("start_time"), pl.col("end_time")
        return data.lazyframe.select(start.is_null() | end.is_null() | (end >= start))

    class Config:
        strict = True


class _Provenance(pa.DataFrameModel):
    source_id: int = _field(REGISTRY_RULES, "source_id")
    source_path: str = _field(REGISTRY_RULES, "source_path")
    source_line: int = _field(REGISTRY_RULES, "source_line")
    source_sha256: str = _field(REGISTRY_RULES, "source_sha256")
    landed_at: datetime = _field(REGISTRY_RULES, "landed_at")


class ProgressEvent(_Provenance):
    """reconcile/land → ledger `progress_events` → reconcile/review: one application event."""

    job_id: str = _field(PROGRESS_EVENTS_RULES, "job_id")
    event_time: datetime = _field(PROGRESS_EVENTS_RULES, "event_time")
    event: str = _field(PROGRESS_EVENTS_RULES, "event")
    step: int = _field(PROGRESS_EVENTS_RULES, "step")
    resumed_from_step: int = _field(PROGRESS_EVENTS_RULES, "resumed_from_step")
    accepted: bool = _field(PROGRESS_EVENTS_RULES, "accepted")
    raw_json: str = _field(PROGRESS_EVENTS_RULES, "raw_json")

    class Config:
        strict = True


class RegistryRow(_Provenance):
    """reconcile/land → ledger `registry` → reconcile/review: job id → experiment and class."""

    job_id: str = _field(REGISTRY_RULES, "job_id")
    cluster: str = _field(REGISTRY_RULES, "cluster")
    experiment_id: str = _field(REGISTRY_RULES, "experiment_id")
    work_class: str = _field(REGISTRY_RULES, "work_class")
    code_revision: str = _field(REGISTRY_RULES, "code_revision")
    data_snapshot: str = _field(REGISTRY_RULES, "data_snapshot")
    result_valid: bool = _field(REGISTRY_RULES, "result_valid")
    diagnosed_cause: str = _field(REGISTRY_RULES, "diagnosed_cause")
    cause_addressed: bool = _field(REGISTRY_RULES, "cause_addressed")
    extra_json: str = _field(REGISTRY_RULES, "extra_json")

    class Config:
        strict = True


class ManifestRow(_Provenance):
    """reconcile/land → ledger `manifest` → review, gates/retention: one retained artifact."""

    artifact_id: str = _field(MANIFEST_RULES, "artifact_id")
    experiment_id: str = _field(MANIFEST_RULES, "experiment_id")
    job_id: str = _field(MANIFEST_RULES, "job_id")
    step: int = _field(MANIFEST_RULES, "step")
    size_bytes: int = _field(MANIFEST_RULES, "size_bytes")
    created: datetime = _field(MANIFEST_RULES, "created")
    role: str = _field(MANIFEST_RULES, "role")
    retain_until: date = _field(MANIFEST_RULES, "retain_until")
    extra_json: str = _field(MANIFEST_RULES, "extra_json")

    class Config:
        strict = True


class JobAccounting(pa.DataFrameModel):
    """reconcile/review → report, gates (temp table `job_accounting`): one allocation with
    its GPU-seconds split into the four classes, which sum to the allocation."""

    alloc_id: int = _field(JOB_ACCOUNTING_RULES, "alloc_id")
    cluster: str = _field(JOB_ACCOUNTING_RULES, "cluster")
    job_id: str = _field(JOB_ACCOUNTING_RULES, "job_id")
    state: str = _field(JOB_ACCOUNTING_RULES, "state")
    gpus: int = _field(JOB_ACCOUNTING_RULES, "gpus")
    elapsed_seconds: int = _field(JOB_ACCOUNTING_RULES, "elapsed_seconds")
    allocated_gpu_seconds: int = _field(JOB_ACCOUNTING_RULES, "allocated_gpu_seconds")
    useful_gpu_seconds: int = _field(JOB_ACCOUNTING_RULES, "useful_gpu_seconds")
    recovery_gpu_seconds: int = _field(JOB_ACCOUNTING_RULES, "recovery_gpu_seconds")
    lost_gpu_seconds: int = _field(JOB_ACCOUNTING_RULES, "lost_gpu_seconds")
    unverified_gpu_seconds: int = _field(JOB_ACCOUNTING_RULES, "unverified_gpu_seconds")
    work_class: str = _field(JOB_ACCOUNTING_RULES, "work_class")
    in_week: bool = _field(JOB_ACCOUNTING_RULES, "in_week")
    to_date: bool = _field(JOB_ACCOUNTING_RULES, "to_date")

    class Config:
        strict = False


_BOUNDS = {"greater_than_or_equal_to": "ge", "greater_than": "gt", "less_than_or_equal_to": "le"}


def rules_of(model: type[pa.DataFrameModel]) -> tuple[FieldRule, ...]:
    """Read a model's field checks back as FieldRules (nullable, ge/gt/le, isin, a least
    length, finite); checks the rules cannot say (dataframe checks) are left out."""
    out = []
    for name, column in model.to_schema().columns.items():
        bounds: dict[str, Any] = {}
        for check in column.checks:
            stats = check.statistics or {}
            if check.name in _BOUNDS:
                bounds[_BOUNDS[check.name]] = next(iter(stats.values()))
            elif check.name == "isin":
                bounds["isin"] = tuple(stats["allowed_values"])
            elif check.name == "str_length" and stats.get("max_value") is None:
                bounds["min_length"] = stats["min_value"]
            elif check.name == "finite":
                bounds["finite"] = True
        out.append(FieldRule(name, nullable=column.nullable, **bounds))
    return tuple(out)

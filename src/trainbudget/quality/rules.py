"""The range, null and set rules of every landed table, declared once, as plain data.

The Pandera models of `trainbudget.schemas` take their field checks from these tables, the
Great Expectations suites (`quality.expectations`) are derived from them, and the landing
checks them where rows enter the ledger: the SQL of sql/reconcile/ gets its bounds from here,
`quality.relation` turns the same rules into one DuckDB query over a landed relation, so a
row that breaks a rule is quarantined whether the CLI or a flow landed it, and `quality.frame`
into Polars expressions over a frame (the pilot's step rows). Import-free (no Pandera, no GE):
the landing path reads these without loading either (Pandera imports pandas, 0.5 s).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trainbudget.base.vocabulary import ARTIFACT_ROLES, PROGRESS_EVENTS, SLURM_STATES, WORK_CLASSES

# One allocation of more GPUs than this is a parsing error, not a job: the largest training
# jobs published run on some 100,000 GPUs.
MAX_GPUS_PER_JOB = 1_000_000

# A time outside [EARLIEST_TIME, LATEST_TIME) is a clock or parsing error (an epoch of 0 or
# below, a mistyped year), not an event: Slurm's accounting format is younger than 2000.
EARLIEST_TIME = "2000-01-01"
LATEST_TIME = "2100-01-01"

# One artifact (a checkpoint, a data snapshot) of more bytes than this is a typing error: a
# petabyte, some hundred times the largest published training checkpoints.
MAX_ARTIFACT_BYTES = 10**15
# One allocation's elapsed time: Slurm's own limits stop far below a year (MaxTime is set in
# minutes and days); a longer ElapsedRaw is a corrupt line, not a job.
MAX_ELAPSED_SECONDS = 366 * 24 * 3600

# Pilot step logs: one step longer than a week (seconds), a peak memory of more than 16 TiB on
# one GPU, or more than 10^15 tokens in one step is not a measurement.
MAX_STEP_SECONDS = 7 * 24 * 3600
MAX_GPU_MEMORY_BYTES = 2**44
MAX_TOKENS_PER_STEP = 10**15


@dataclass(frozen=True)
class FieldRule:
    """One column: may it be null, its bounds (ge/gt/le inclusive or strict), allowed values,
    a text's least length, and whether a number must be finite (no inf, no NaN)."""

    column: str
    nullable: bool = True
    ge: int | float | None = None
    gt: int | float | None = None
    le: int | float | None = None
    isin: tuple[str, ...] | None = None
    min_length: int | None = None
    finite: bool = False

    def field_kwargs(self) -> dict[str, Any]:
        """The arguments of `pandera.Field` that declare this rule (`finite` is a check of the
        model's own: schemas.PilotStep)."""
        checks = {k: getattr(self, k) for k in ("ge", "gt", "le", "isin")}
        if self.min_length is not None:
            checks["str_length"] = {"min_value": self.min_length}
        return {"nullable": self.nullable, **{k: v for k, v in checks.items() if v is not None}}


@dataclass(frozen=True)
class RowRule:
    """A rule across columns: its name and the DuckDB condition that is true on a bad row."""

    name: str
    fails_when: str
    reason_sql: str  # a DuckDB string expression naming the fields and values


@dataclass(frozen=True)
class TableRules:
    """The rules of one table; `strict`: the table has exactly these columns."""

    table: str
    fields: tuple[FieldRule, ...]
    rows: tuple[RowRule, ...] = field(default_factory=tuple)
    strict: bool = True

    @property
    def finite_columns(self) -> tuple[str, ...]:
        """The columns whose numbers must be finite."""
        return tuple(r.column for r in self.fields if r.finite)

    def rule(self, column: str) -> FieldRule:
        """The rule of one column (KeyError when the table has none)."""
        for item in self.fields:
            if item.column == column:
                return item
        raise KeyError(f"{self.table} has no column {column!r}")


def _required(*columns: str) -> tuple[FieldRule, ...]:
    return tuple(FieldRule(c, nullable=False) for c in columns)


def _optional(*columns: str) -> tuple[FieldRule, ...]:
    return tuple(FieldRule(c) for c in columns)


def time_window(column: str, label: str) -> RowRule:
    """The rule that `column` (shown to people as `label`) lies in [EARLIEST_TIME, LATEST_TIME)."""
    return RowRule(
        f"{label}: from {EARLIEST_TIME} to {LATEST_TIME}",
        f"{column} < TIMESTAMPTZ '{EARLIEST_TIME} 00:00:00+00'"
        f" OR {column} >= TIMESTAMPTZ '{LATEST_TIME} 00:00:00+00'",
        f"concat('{label}: must be from {EARLIEST_TIME} to before {LATEST_TIME}, found ', "
        f"strftime({column}, '%Y-%m-%dT%H:%M:%SZ'))",
    )


_PROVENANCE = (*_required("source_id", "source_path"), FieldRule("source_line", ge=1),
               *_required("source_sha256", "landed_at"))  # fmt: skip

SACCT_ROWS = TableRules(
    "sacct_rows",
    (
        *_required("cluster", "job_id"),
        FieldRule("step"),
        FieldRule("job_id_raw", nullable=False),
        *_optional("name", "account", "partition"),
        FieldRule("state", nullable=False, isin=SLURM_STATES),
        FieldRule("state_text", nullable=False),
        *_optional("exit_status", "exit_signal"),
        FieldRule("elapsed_seconds", nullable=False, ge=0, le=MAX_ELAPSED_SECONDS),
        *_optional("elapsed_text", "submit_time", "start_time", "end_time"),
        FieldRule("gpus", nullable=False, ge=0, le=MAX_GPUS_PER_JOB),
        FieldRule("gpu_type"),
        FieldRule("alloc_mem_bytes", ge=0),
        FieldRule("alloc_cpus", ge=0),
        FieldRule("nnodes", ge=0),
        *_optional("alloc_tres", "req_tres"),
        FieldRule("source_id", nullable=False),
        FieldRule("source_line", ge=1),
        FieldRule("time_flags"),
        FieldRule("run_end_time"),
    ),
    (
        RowRule(
            "end not before start",
            "end_time < start_time",
            "concat('End: ', strftime(end_time, '%Y-%m-%dT%H:%M:%SZ'), ' is before Start ', "
            "strftime(start_time, '%Y-%m-%dT%H:%M:%SZ'))",
        ),
        time_window("submit_time", "Submit"),
        time_window("start_time", "Start"),
        time_window("end_time", "End"),
    ),
)

PROGRESS_EVENTS_RULES = TableRules(
    "progress_events",
    (
        *_required("job_id", "event_time"),
        FieldRule("event", nullable=False, isin=PROGRESS_EVENTS),
        FieldRule("step", ge=0),
        FieldRule("resumed_from_step", ge=0),
        FieldRule("accepted"),
        FieldRule("raw_json", nullable=False),
        *_PROVENANCE,
    ),
    (time_window("event_time", "time"),),
)

REGISTRY_RULES = TableRules(
    "registry",
    (
        FieldRule("job_id", nullable=False),
        FieldRule("cluster"),
        FieldRule("experiment_id", nullable=False),
        FieldRule("work_class", nullable=False, isin=WORK_CLASSES),
        *_optional(
            "code_revision",
            "data_snapshot",
            "result_valid",
            "diagnosed_cause",
            "cause_addressed",
            "extra_json",
        ),
        *_PROVENANCE,
    ),
)

MANIFEST_RULES = TableRules(
    "manifest",
    (
        FieldRule("artifact_id", nullable=False),
        *_optional("experiment_id", "job_id"),
        FieldRule("step", ge=0),
        FieldRule("size_bytes", nullable=False, ge=0, le=MAX_ARTIFACT_BYTES),
        FieldRule("created", nullable=False),
        FieldRule("role", nullable=False, isin=ARTIFACT_ROLES),
        *_optional("retain_until", "extra_json"),
        *_PROVENANCE,
    ),
    (time_window("created", "created"),),
)

_SECONDS = ("useful_gpu_seconds", "recovery_gpu_seconds", "lost_gpu_seconds",
            "unverified_gpu_seconds")  # fmt: skip

# The review's hand-off to the report and the gates (temp table job_accounting); it carries
# every allocation column besides these, so it is not strict.
JOB_ACCOUNTING_RULES = TableRules(
    "job_accounting",
    (
        FieldRule("alloc_id", nullable=False, ge=1),
        *_required("cluster", "job_id"),
        SACCT_ROWS.rule("state"),
        SACCT_ROWS.rule("gpus"),
        SACCT_ROWS.rule("elapsed_seconds"),
        FieldRule("allocated_gpu_seconds", nullable=False, ge=0),
        *(FieldRule(c, nullable=False, ge=0) for c in _SECONDS),
        FieldRule("work_class", nullable=False, isin=(*WORK_CLASSES, "untracked", "unknown")),
        *_required("in_week", "to_date"),
    ),
    (
        RowRule(
            "classes sum to the allocation",
            f"{' + '.join(_SECONDS)} <> allocated_gpu_seconds",
            "concat('job ', job_id, ': useful + recovery + lost + unverified GPU-seconds = ', "
            f"CAST({' + '.join(_SECONDS)} AS VARCHAR), ', allocated ', "
            "CAST(allocated_gpu_seconds AS VARCHAR))",
        ),
    ),
    strict=False,
)

_TRACE_CATEGORIES = ("computation_ns", "communication_ns", "memory_ns", "other_ns")

# One rank of a profile (trace/summary → ledger `trace_ranks`): integer ns, each category a
# union of kernel intervals, so none exceeds the busy time. The table also carries provenance
# and counts besides these, so it is not strict (schemas.TraceRank is, over these columns).
TRACE_RANK_RULES = TableRules(
    "trace_ranks",
    (
        FieldRule("rank", nullable=False, ge=0),
        FieldRule("gpu_busy_ns", nullable=False, ge=0),
        FieldRule("gpu_idle_ns", nullable=False, ge=0),
        *(FieldRule(c, nullable=False, ge=0) for c in _TRACE_CATEGORIES),
        FieldRule("comm_comp_overlap_pct", nullable=True, ge=0, le=100),
        FieldRule("memory_peak_bytes", nullable=True, ge=0),
        FieldRule("dataloader_ns", nullable=False, ge=0),
        FieldRule("wall_ns", nullable=False, ge=0),
    ),
    (
        RowRule(
            "categories within busy time",
            " OR ".join(f"{c} > gpu_busy_ns" for c in _TRACE_CATEGORIES),
            "concat('rank ', CAST(rank AS VARCHAR), ': a kernel category exceeds gpu_busy_ns ', "
            "CAST(gpu_busy_ns AS VARCHAR))",
        ),
    ),
    strict=False,
)

# One step of a pilot run (pilot/ingest → pilot/stats, ledger `pilot_steps`): schemas.PilotStep
# is built from these, and pilot/ingest checks its frame with them (quality.frame), so a pilot
# run never imports Pandera. The condition and reason of a row rule are SQL that DuckDB and
# Polars (`pl.sql_expr`) both read.
PILOT_STEP_RULES = TableRules(
    "pilot_steps",
    (
        FieldRule("run_id", nullable=False, min_length=1),
        FieldRule("step", nullable=False, ge=0),
        FieldRule("wall_seconds", nullable=False, gt=0, le=MAX_STEP_SECONDS, finite=True),
        FieldRule("tokens", gt=0, le=MAX_TOKENS_PER_STEP),
        FieldRule("samples", gt=0, le=MAX_TOKENS_PER_STEP),
        FieldRule("seq_len", nullable=False, gt=0, le=MAX_TOKENS_PER_STEP),
        FieldRule("batch_size", nullable=False, gt=0, le=MAX_TOKENS_PER_STEP),
        FieldRule("gpus", nullable=False, gt=0, le=MAX_GPUS_PER_JOB),
        FieldRule("peak_memory_bytes", ge=0, le=MAX_GPU_MEMORY_BYTES),
        FieldRule("checkpoint_seconds", ge=0, le=MAX_STEP_SECONDS, finite=True),
        FieldRule("checkpoint_bytes", ge=0, le=MAX_ARTIFACT_BYTES),
        FieldRule("source_line", nullable=False, ge=1),
    ),
    (
        RowRule(
            "tokens or samples",
            "tokens IS NULL AND samples IS NULL",
            "'needs tokens or samples'",
        ),
    ),
)

"""The relations the review builds in the ledger session, declared in one place.

Each is a DuckDB temp table made by one query (its producer), from the relations it needs,
and read by the queries named as its consumers; it lives as long as the ledger connection.
`reconcile.review.review` builds them through a `Session` (reconcile/session.py), which
checks each step against these declarations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

_ALLOCATION = (
    "cluster", "job_id", "job_id_raw", "array_job_id", "het_job_id", "name", "account",
    "partition", "state", "state_text", "cancelled_by", "exit_status", "exit_signal",
    "elapsed_seconds", "submit_time", "start_time", "end_time", "gpus", "gpu_type",
    "source_path", "source_line", "from_steps", "time_flags",
)  # fmt: skip
_LINK = (
    "experiment_id", "work_class", "code_revision", "data_snapshot", "result_valid",
    "diagnosed_cause", "cause_addressed",
)  # fmt: skip
_SPLIT = (
    "flags", "recovery_caused_by", "app_start", "app_end", "app_elapsed_seconds",
    "resumed_from_step", "high_water_step", "last_checkpoint_step", "max_step", "restart_s",
)  # fmt: skip

_ACCOUNTING = (
    "alloc_id", *_ALLOCATION, "allocated_gpu_seconds", *_LINK, "useful_gpu_seconds",
    "recovery_gpu_seconds", "lost_gpu_seconds", "unverified_gpu_seconds", *_SPLIT, "in_week",
    "to_date", "job_allocated_gpu_seconds", "week_elapsed_seconds", "to_date_allocated_gpu_seconds",
    "to_date_useful_gpu_seconds", "to_date_recovery_gpu_seconds", "to_date_lost_gpu_seconds",
    "double_count_clusters", "job_recovery_seconds", "job_useful_seconds", "job_lost_seconds",
    "job_unverified_seconds",
)  # fmt: skip

_BILLING = (
    "alloc_id", "cluster", "job_id", "partition", "work_class", "gpus", "alloc_cpus",
    "alloc_mem_bytes", "nnodes", "billing", "in_week", "to_date", "t0", "elapsed_seconds",
    "allocated_billing_seconds", "to_date_billing_seconds", "job_billing_seconds",
)  # fmt: skip

_GPU_USAGE = (
    "alloc_id", "cluster", "job_id", "work_class", "gpus", "in_week", "allocated_gpu_seconds",
    "week_elapsed_seconds", "gpu_util_pct", "gpu_mem_used_gib", "gpus_used", "usage_source",
    "usage_flags", "idle_gpu_seconds", "unused_gpu_seconds",
)  # fmt: skip


@dataclass(frozen=True)
class Relation:
    """A temp table of the review: who makes it (producer query), from what, for whom.

    `filled_by` names the Python that inserts its rows when the producer only creates it;
    `whole` the producer that makes it, needing nothing, for a review of everything landed;
    `plain` the producer for a review that reads no closed jobs' rows (closed_jobs.py): the
    same relation without them, and without reading the (team ledger's) closed tables.
    """

    name: str
    producer: str
    needs: tuple[str, ...]
    columns: tuple[str, ...]
    consumers: tuple[str, ...]
    filled_by: str | None = None
    whole: str | None = None
    plain: str | None = None


_SACCT_ROW = (
    "cluster", "job_id", "step", "job_id_raw", "name", "account", "partition", "state",
    "state_text", "exit_status", "exit_signal", "elapsed_seconds", "elapsed_text", "submit_time",
    "start_time", "end_time", "gpus", "gpu_type", "alloc_mem_bytes", "alloc_cpus", "nnodes",
    "alloc_tres", "req_tres", "source_id", "source_line", "time_flags", "run_end_time",
)  # fmt: skip

_SACCT_RECORD = (
    "cluster", "job_id", "step", "job_id_raw", "array_job_id", "array_task", "het_job_id",
    "het_offset", "name", "account", "partition", "state", "state_text", "cancelled_by",
    "exit_status", "exit_signal", "elapsed_seconds", "elapsed_text", "submit_time", "start_time",
    "end_time", "gpus", "gpu_type", "alloc_mem_bytes", "alloc_cpus", "nnodes", "alloc_tres",
    "req_tres", "source_id", "source_path", "source_line", "source_sha256", "landed_at",
    "time_flags",
)  # fmt: skip

RELATIONS: Mapping[str, Relation] = {
    r.name: r
    for r in (
        Relation(
            "closed_keys",
            "reconcile/closed/keys",
            (),
            ("cluster", "job_id"),
            ("reconcile/review/review_keys",),
            plain="reconcile/closed/keys_none",
        ),
        Relation(
            "review_keys",
            "reconcile/review/review_keys",
            ("closed_keys",),
            ("cluster", "job_id", "from_tracked"),
            (
                "reconcile/review/review_rows",
                "reconcile/review/review_records",
                "reconcile/closed/candidates",
            ),
        ),
        Relation(
            "review_rows",
            "reconcile/review/review_rows",
            ("review_keys",),
            _SACCT_ROW,
            ("reconcile/review/job_lines",),
            whole="reconcile/review/review_rows_all",
        ),
        Relation(
            "review_records",
            "reconcile/review/review_records",
            ("review_keys",),
            _SACCT_RECORD,
            (
                "reconcile/review/allocation_records",
                "reconcile/billing/job_billing",
                "reconcile/usage/job_gpu_usage",
            ),
            whole="reconcile/review/review_records_all",
        ),
        Relation(
            "job_lines",
            "reconcile/review/job_lines",
            ("review_rows",),
            ("cluster", "job_id", "steps_only", "lines", "line_gpu_seconds"),
            ("reconcile/review/allocation_records", "reconcile/summarize/step_line_overcount"),
        ),
        Relation(
            "allocation_records",
            "reconcile/review/allocation_records",
            ("review_records", "job_lines"),
            _ALLOCATION,
            ("reconcile/review/allocations",),
        ),
        Relation(
            "allocations",
            "reconcile/review/allocations",
            ("allocation_records",),
            ("alloc_id", *_ALLOCATION, "allocated_gpu_seconds"),
            (
                "reconcile/review/registry_links",
                "reconcile/review/tracked_allocations",
                "reconcile/review/job_splits_stored",
                "reconcile/review/job_accounting",
                "reconcile/review/goodput_stretches",
                "reliability/history/job_exposures",
                "reconcile/closed/candidates",
                "reconcile/review/measured_writes",
            ),
        ),
        Relation(
            "registry_links",
            "reconcile/review/registry_links",
            ("allocations",),
            ("alloc_id", *_LINK),
            (
                "reconcile/review/tracked_allocations",
                "reconcile/review/job_accounting",
                "reliability/history/job_exposures",
            ),
        ),
        Relation(
            "job_splits",
            "reconcile/review/job_splits",
            (),
            ("alloc_id", "useful_s", "recovery_s", "lost_s", "unverified_s", *_SPLIT),
            (
                "reconcile/review/job_accounting",
                "reconcile/summarize/week_tracked_alloc_ids",
                "reconcile/review/job_splits_stored",
                "reconcile/review/goodput_stretches",
            ),
            filled_by="reconcile.timelines.job_split_rows",
        ),
        Relation(
            "job_accounting",
            "reconcile/review/job_accounting",
            ("allocations", "registry_links", "job_splits"),
            _ACCOUNTING,
            (
                "reconcile/summarize/totals",
                "reconcile/summarize/week_tracked_alloc_ids",
                "reconcile/summarize/step_line_overcount",
                "reconcile/summarize/failures",
                "reconcile/summarize/breakdown",
                "reconcile/summarize/top_jobs",
                "reconcile/summarize/failed_jobs",
                "reconcile/summarize/jobs_export",
                "reconcile/summarize/double_counts",
                "reconcile/billing/job_billing",
                "reconcile/usage/job_gpu_usage",
                "reconcile/usage/usage_summary",
                "reconcile/review/job_accounting_all",
                "reconcile/review/job_accounting_plain",
                "reconcile/closed/insert_accounting",
            ),
        ),
        Relation(
            # The campaign to date: job_accounting and the closed tracked jobs' rows.
            "job_accounting_all",
            "reconcile/review/job_accounting_all",
            ("job_accounting",),
            _ACCOUNTING,
            (
                "reconcile/summarize/actual_by_class",
                "reconcile/summarize/evaluation_count",
                "reconcile/summarize/failed_jobs",
                "reconcile/summarize/accounting_by_week",
                "reconcile/summarize/accounting_span",
                "reconcile/calibrate/audit_runs",
                "reconcile/review/goodput_by_week",
                "reliability/calibrate/main_run_jobs",
                "reconcile/summarize/before_week_in_scope",
            ),
            plain="reconcile/review/job_accounting_plain",
        ),
        Relation(
            "job_billing",
            "reconcile/billing/job_billing",
            ("job_accounting", "review_records"),
            _BILLING,
            (
                "reconcile/billing/totals",
                "reconcile/billing/shapes",
                "reconcile/summarize/jobs_export",
                "reconcile/billing/job_billing_all",
                "reconcile/billing/job_billing_plain",
                "reconcile/closed/insert_billing",
            ),
        ),
        Relation(
            "job_billing_all",
            "reconcile/billing/job_billing_all",
            ("job_billing",),
            _BILLING,
            ("reconcile/billing/by_class", "reconcile/billing/by_week"),
            plain="reconcile/billing/job_billing_plain",
        ),
        Relation(
            "job_gpu_usage",
            "reconcile/usage/job_gpu_usage",
            ("job_accounting", "review_records"),
            _GPU_USAGE,
            (
                "reconcile/usage/usage_summary",
                "reconcile/usage/usage_jobs",
                "reconcile/summarize/jobs_export",
            ),
        ),
        Relation(
            "measured_writes",
            "reconcile/review/measured_writes",
            ("allocations",),
            ("job_id", "t", "write_s"),
            ("reconcile/review/goodput_stretches", "reconcile/review/checkpoint_write_events"),
        ),
        Relation(
            "goodput_stretches",
            "reconcile/review/goodput_stretches",
            ("job_splits", "allocations", "measured_writes"),
            ("alloc_id", "cause", "start_s", "end_s"),
            (
                "reconcile/review/goodput_stretches_all",
                "reconcile/review/goodput_stretches_plain",
                "reconcile/closed/insert_stretches",
            ),
        ),
        Relation(
            "goodput_stretches_all",
            "reconcile/review/goodput_stretches_all",
            ("goodput_stretches",),
            ("alloc_id", "cause", "start_s", "end_s"),
            ("reconcile/review/goodput_by_week",),
            plain="reconcile/review/goodput_stretches_plain",
        ),
        Relation(
            "audit_ratios",
            "reconcile/calibrate/audit_ratios",
            (),
            ("work_class", "cluster", "completed", "runtime_ratio", "gpu_hours_ratio", "mfu"),
            ("reconcile/calibrate/calibration_upsert",),
            filled_by="reconcile.calibration.update_calibration",
        ),
    )
}

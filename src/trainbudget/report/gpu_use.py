"""The weekly report's "GPUs reserved and not used" section: the diagnosis's idle allocations
and oversized evaluation (reconcile/gpu_findings.py), each job priced in GPU-hours, the
evaluation line right-sized as an alternative, and the caveat that utilisation never decides
what was useful."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trainbudget.report import format as fmt
from trainbudget.report.format import Column
from trainbudget.report.model import Table

if TYPE_CHECKING:
    from trainbudget.reconcile.review import Review

UNUSED_COLUMNS = [
    Column("finding", "Finding"),
    Column("job_id", "Job"),
    Column("work_class", "Work class"),
    Column("gpus", "GPUs reserved", fmt.number),
    Column("gpus_used", "GPUs used", fmt.number),
    Column("gpu_util_pct", "GPU utilisation (%)", fmt.number),
    Column("gpu_mem_used_gib", "GPU memory used (GiB)", fmt.number),
    Column("usage_source", "Measured by"),
    Column("allocated_gpu_hours", "Allocated GPU-hours", fmt.gpu_hours),
    Column("priced_gpu_hours", "GPU-hours not used", fmt.gpu_hours),
]
RIGHT_SIZED_COLUMNS = [
    Column("name", "Evaluation line"),
    Column("gpus", "GPUs a job (plan)", fmt.number),
    Column("right_sized_gpus", "GPUs a job (as used)", fmt.number),
    Column("planned_gpu_hours", "Planned GPU-hours", fmt.gpu_hours),
    Column("right_sized_gpu_hours", "At the GPUs used", fmt.gpu_hours),
]
LABELS = {"idle-allocations": "idle (under 15 %)", "oversized-evaluation": "oversized evaluation"}


def _finding(review: Review, step: str) -> dict[str, Any] | None:
    return next((f for f in review.diagnosis if f["step"] == step), None)


def gpu_use_section(review: Review) -> tuple[list[str], list[Table]]:
    """Summary lines and tables of the jobs that reserved GPUs they did not use; one line
    saying nothing was measured when no job's usage was landed."""
    idle = _finding(review, "idle-allocations")
    oversized = _finding(review, "oversized-evaluation")
    if idle is None or oversized is None:
        return [], []
    if not idle["measured_jobs"] and not oversized["measured_jobs"]:
        return [f"GPU utilisation: {idle['summary']}"], []
    lines = [
        f"GPUs reserved and not used: {fmt.gpu_hours(idle['idle_gpu_hours'])} GPU-hours on "
        f"{fmt.plural(idle['idle_jobs'], 'idle allocation')} (under {idle['threshold_pct']} % "
        f"utilisation), {fmt.gpu_hours(oversized['unused_gpu_hours'])} on GPUs that "
        f"{fmt.plural(oversized['oversized_jobs'], 'evaluation job')} reserved and did not "
        f"use. {idle['caveat']}"
    ]
    rows = [
        {**job, "finding": LABELS[finding["step"]]}
        for finding in (idle, oversized)
        for job in finding["jobs"]
    ]
    tables = []
    if rows:
        tables.append(
            Table.of(
                "GPUs reserved and not used",
                rows,
                UNUSED_COLUMNS,
                "Idle: GPU utilisation under 15 % (jobstats' red line), priced at the job's "
                "allocated GPU-hours in the week. Oversized evaluation: an evaluation job that "
                "used fewer GPUs than it reserved, priced at the unused GPUs × its hours in the "
                "week; a job can be both. Utilisation is sacct's TRESUsageIn* per GPU (a peak) "
                "or jobstats' mean; the 50 largest of each are listed. " + idle["caveat"],
            )
        )
    right = oversized.get("right_sized")
    if right is not None and right["saving_gpu_hours"] > 0:
        lines.append(
            f"Right-sizing, an alternative and not a verdict: at {right['gpus_used']} GPUs a "
            f"job the plan's evaluation would cost {fmt.gpu_hours(right['right_sized_gpu_hours'])}"
            f" GPU-hours instead of {fmt.gpu_hours(right['planned_gpu_hours'])}"
            + (f" ({fmt.usd(right['saving_usd'])} less)." if right["saving_usd"] else ".")
        )
        tables.append(
            Table.of(
                "Evaluation at the GPUs it used (an alternative)",
                right["lines"],
                RIGHT_SIZED_COLUMNS,
                "Each planned evaluation line with the same jobs and hours, at the most GPUs "
                "any oversized evaluation job of the week used (a line that plans fewer keeps "
                "its own); whether the evaluations fit there is for the team to judge.",
            )
        )
    return lines, tables

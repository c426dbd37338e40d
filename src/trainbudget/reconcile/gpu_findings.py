"""The diagnosis's GPU-utilisation steps: idle allocations and oversized evaluation, priced.

What the GPUs did (reconcile/usage/job_gpu_usage.sql: sacct's TRESUsageIn* gres/gpuutil and
gres/gpumem, or a jobstats summary) is a diagnostic, never a verdict on usefulness (seed 000:
"Evaluate correctness with task-specific measures, not utilization"); every finding here
carries that caveat. Two steps:

- idle-allocations: jobs whose GPUs were under jobstats' red line (GPU_UTIL_RED = 15 %,
  jobstats config.py), priced at the GPU-hours they were allocated in the week;
- oversized-evaluation: evaluation jobs that used fewer GPUs than they reserved (seed 000: "a
  training job that fits eight GPUs does not imply every evaluation should reserve eight"),
  priced at the unused GPUs × their hours in the week; with a plan, what its evaluation lines
  would cost at the most GPUs those jobs used, as an alternative, not a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.plan.cluster import sums_gpu_usage
from trainbudget.reconcile.variance import gpu_hours

if TYPE_CHECKING:
    from trainbudget.plan import Plan
    from trainbudget.reconcile.session import Session

IDLE_PCT = Decimal(15)  # jobstats' red line (config.py GPU_UTIL_RED)
LISTED = 50  # jobs listed per finding
# Seed 000's words: "Evaluate correctness with task-specific measures, not utilization."
CAVEAT = (
    "Utilisation is a diagnostic, never what decides a job was useful: useful GPU-hours come "
    "from accepted progress (a GPU can be fully active generating redundant samples, and a "
    "low-utilization evaluation may still be required for a release decision)."
)


@dataclass(frozen=True)
class RightSized:
    """A plan's evaluation lines at the GPU count the oversized jobs used (the most of them):
    planned GPU-hours as written, and as they would be, each line's hours unchanged."""

    gpus_used: int
    planned_gpu_hours: Decimal
    right_sized_gpu_hours: Decimal
    lines: tuple[dict[str, Any], ...]

    @property
    def saving_gpu_hours(self) -> Decimal:
        return self.planned_gpu_hours - self.right_sized_gpu_hours

    def as_dict(self, price: Decimal | None) -> dict[str, Any]:
        saving = self.saving_gpu_hours
        return {
            "gpus_used": self.gpus_used,
            "planned_gpu_hours": self.planned_gpu_hours,
            "right_sized_gpu_hours": self.right_sized_gpu_hours,
            "saving_gpu_hours": saving,
            "saving_usd": saving * price if price is not None else None,
            "lines": list(self.lines),
        }


def build_gpu_usage(session: Session, plan: Plan | None) -> None:
    """Build job_gpu_usage (per job: gpu_util_pct, gpu_mem_used_gib, gpus_used), normalised
    per GPU for the plan's cluster.slurm_version (default: 24.05.1 or later)."""
    cluster = plan.cluster if plan is not None else None
    session.build(
        "job_gpu_usage",
        has_usage=bool(session.ledger.query("reconcile/usage/usage_present")),
        sums_gpus=sums_gpu_usage(cluster.slurm_version if cluster is not None else None),
        idle_pct=IDLE_PCT,
    )


def gpu_findings(session: Session, plan: Plan | None) -> list[dict[str, Any]]:
    """The diagnosis steps idle-allocations and oversized-evaluation (job_gpu_usage built)."""
    summary = session.records("reconcile/usage/usage_summary")[0]
    idle = session.records("reconcile/usage/usage_jobs", kind="idle", limit=LISTED)
    oversized = session.records("reconcile/usage/usage_jobs", kind="oversized", limit=LISTED)
    return [idle_finding(summary, idle), oversized_finding(summary, oversized, plan)]


def _jobs(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in r.items() if k not in ("gpu_seconds", "allocated_gpu_seconds")}
        | {
            "allocated_gpu_hours": gpu_hours(r["allocated_gpu_seconds"]),
            "priced_gpu_hours": gpu_hours(r["gpu_seconds"]),
        }
        for r in rows
    ]


def _unmeasured(measured: int, jobs: int, what: str) -> str:
    return "" if measured == jobs else f" ({jobs - measured:,} of {jobs:,} {what} say nothing)"


def _over_100(jobs: int) -> str:
    """The hint when a job reads over 100 % a GPU: the plan's Slurm release is likely wrong."""
    if not jobs:
        return ""
    return (
        f"{jobs:,} jobs read over 100 % a GPU: their exports sum over the step's GPUs (Slurm "
        "24.05.1 and later); check the plan's cluster.slurm_version. "
    )


def idle_finding(summary: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Jobs whose GPUs were under IDLE_PCT, priced at their allocated GPU-hours this week."""
    measured, jobs = summary["measured_jobs"], summary["gpu_jobs"]
    hours = gpu_hours(summary["idle_gpu_seconds"])
    if not measured:
        text = (
            "No GPU utilisation landed for this week's jobs (export TRESUsageInTot and "
            "TRESUsageInAve, or jobstats' AdminComment)."
        )
    else:
        text = (
            f"{summary['idle_jobs']:,} of {measured:,} measured GPU jobs were under "
            f"{IDLE_PCT} % GPU utilisation, {float(hours):,.2f} GPU-hours allocated"
            + _unmeasured(measured, jobs, "GPU jobs")
            + ". "
            + _over_100(summary["over_100_jobs"])
            + CAVEAT
        )
    return {
        "step": "idle-allocations",
        "summary": text,
        "threshold_pct": IDLE_PCT,
        "measured_jobs": measured,
        "unmeasured_jobs": jobs - measured,
        "idle_jobs": summary["idle_jobs"],
        "idle_gpu_hours": hours,
        "usage_unreadable_jobs": summary["flagged_jobs"],
        "over_100_pct_jobs": summary["over_100_jobs"],
        "caveat": CAVEAT,
        "jobs": _jobs(rows),
    }


def oversized_finding(
    summary: dict[str, Any], rows: list[dict[str, Any]], plan: Plan | None
) -> dict[str, Any]:
    """Evaluation jobs that used fewer GPUs than they reserved, priced at the unused GPUs'
    hours this week; with a plan, its evaluation lines at the GPU count they used."""
    measured, jobs = summary["evaluation_measured"], summary["evaluation_jobs"]
    unused = gpu_hours(summary["unused_gpu_seconds"])
    most = summary["most_gpus_used"]
    right = right_sized(plan, most) if most is not None else None
    price = plan.prices.gpu_hour_usd if plan is not None else None
    if not measured:
        text = "No evaluation job says how many GPUs it used."
    elif not summary["oversized_jobs"]:
        text = (
            f"No evaluation job used fewer GPUs than it reserved ({measured:,} of {jobs:,} "
            "say how many they used)."
        )
    else:
        text = (
            f"{summary['oversized_jobs']:,} of {measured:,} measured evaluation jobs used fewer "
            f"GPUs than they reserved (at most {most}): {float(unused):,.2f} GPU-hours on GPUs "
            "they did not use" + _unmeasured(measured, jobs, "evaluation jobs") + "."
        )
        if right is not None and right.saving_gpu_hours > 0:
            text += (
                f" At {most} GPUs a job, the plan's evaluation would cost "
                f"{float(right.right_sized_gpu_hours):,.2f} GPU-hours instead of "
                f"{float(right.planned_gpu_hours):,.2f}: an alternative, not a verdict."
            )
        text += " " + CAVEAT
    return {
        "step": "oversized-evaluation",
        "summary": text,
        "measured_jobs": measured,
        "unmeasured_jobs": jobs - measured,
        "oversized_jobs": summary["oversized_jobs"],
        "unused_gpu_hours": unused,
        "most_gpus_used": most,
        "right_sized": right.as_dict(price) if right is not None else None,
        "caveat": CAVEAT,
        "jobs": _jobs(rows),
    }


def right_sized(plan: Plan | None, gpus_used: int) -> RightSized | None:
    """The plan's evaluation lines at `gpus_used` GPUs a job (a line that reserves fewer keeps
    its own), the same jobs and hours as the campaign model prices them (jobs × GPUs ×
    (hours + load_hours + write_hours), diagnosis.evaluation_finding); None without any."""
    if plan is None or not plan.evaluation or gpus_used < 1:
        return None
    lines, planned, sized = [], Decimal(0), Decimal(0)
    for e in plan.evaluation:
        jobs = e.jobs if e.jobs is not None else e.checkpoints * e.suites * e.replicas
        hours = e.hours + e.load_hours + e.write_hours
        gpus = min(e.gpus, gpus_used)
        planned += jobs * e.gpus * hours
        sized += jobs * gpus * hours
        lines.append(
            {
                "name": e.name,
                "gpus": e.gpus,
                "right_sized_gpus": gpus,
                "planned_gpu_hours": jobs * e.gpus * hours,
                "right_sized_gpu_hours": jobs * gpus * hours,
            }
        )
    return RightSized(gpus_used, planned, sized, tuple(lines))

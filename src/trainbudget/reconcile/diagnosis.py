"""The weekly diagnosis, in seed 000's order: (1) reconcile allocated hours, (2) classify failed
and cancelled jobs, (3) verify recovered versus recomputed steps, (4) count evaluation
invocations against the schedule, (5) reconcile retained artifacts against the manifest and
retention policy; then (6) one job, one count: the same job landed under two cluster names;
(7) idle allocations and (8) oversized evaluation, from what the GPUs did (gpu_findings.py).
Each finding is a sentence plus the figures behind it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.reconcile.timelines import TrackedJob
from trainbudget.reconcile.variance import gpu_hours

if TYPE_CHECKING:
    from collections.abc import Callable

    from trainbudget.plan import Plan

ORDER = (
    "allocated-hours",
    "failed-and-cancelled",
    "recovered-vs-recomputed",
    "evaluation-invocations",
    "retained-artifacts",
    "double-counts",
    # What the GPUs did, priced (reconcile/gpu_findings.py): a diagnostic, never a verdict.
    "idle-allocations",
    "oversized-evaluation",
)


def _n(count: int, noun: str) -> str:
    """'1 job', '3 jobs'."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def _h(gpu_seconds: int | Decimal) -> str:
    return f"{float(gpu_hours(gpu_seconds)):,.2f}"


def allocated_finding(totals: dict[str, Any], lines: dict[str, Any]) -> dict[str, Any]:
    """Step 1: allocation counted once per job; the four classes sum back to it."""
    parts = totals["useful"] + totals["recovery"] + totals["lost"] + totals["unverified"]
    sentence = (
        f"{_n(totals['jobs'], 'allocation')} hold {_h(totals['allocated'])} GPU-hours "
        f"(useful {_h(totals['useful'])}, recovery {_h(totals['recovery'])}, lost "
        f"{_h(totals['lost'])}, unverified {_h(totals['unverified'])})"
    )
    if lines["lines"] > totals["jobs"]:
        sentence += (
            f"; summing all {lines['lines']:,} sacct lines (steps repeat their job's "
            f"AllocTRES) would have claimed {_h(lines['gpu_seconds'])}"
        )
    if totals["untracked_jobs"]:
        sentence += (
            f"; untracked (in no experiment): {_n(totals['untracked_jobs'], 'job')}, "
            f"{_h(totals['untracked_gpu_seconds'])} GPU-hours"
        )
    sentence += _time_notes(totals)
    return {
        "step": ORDER[0],
        "summary": sentence + ".",
        "allocated_gpu_hours": gpu_hours(totals["allocated"]),
        "classes_sum_gpu_hours": gpu_hours(parts),
        "balanced": parts == totals["allocated"],
        "sacct_lines": lines["lines"],
        "sum_over_lines_gpu_hours": gpu_hours(lines["gpu_seconds"]),
        "untracked_jobs": totals["untracked_jobs"],
        "untracked_gpu_hours": gpu_hours(totals["untracked_gpu_seconds"]),
        "allocations_built_from_steps": totals["built_from_steps"],
        "clock_disagreements": totals["clock_flagged"],
        "local_time_ambiguous_jobs": totals["time_ambiguous"],
        "local_time_nonexistent_jobs": totals["time_nonexistent"],
        "split_across_weeks_jobs": totals["split_across_weeks"],
        "outside_week_gpu_hours": gpu_hours(totals["outside_week_gpu_seconds"]),
    }


def _time_notes(totals: dict[str, Any]) -> str:
    """The allocated finding's notes on local times at a DST change and week-spanning jobs."""
    notes = ""
    odd = [
        f"{_n(totals[key], 'job')} with {what} local time"
        for key, what in (
            ("time_ambiguous", "an ambiguous"),
            ("time_nonexistent", "a non-existent"),
        )
        if totals[key]
    ]
    if odd:
        notes += (
            f"; {' and '.join(odd)} (a DST change in --cluster-tz: Start / End placed by "
            "ElapsedRaw, flagged on the job)"
        )
    if totals["split_across_weeks"]:
        notes += (
            f"; {_n(totals['split_across_weeks'], 'job')} ran past the week's bounds and count "
            f"only their seconds inside it ({_h(totals['outside_week_gpu_seconds'])} GPU-hours "
            "outside)"
        )
    return notes


def double_count_finding(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Step 6: (job id, submit time) pairs landed under two or more cluster names."""
    excess = sum(r["excess"] for r in rows)
    pairs = [
        {
            "job_id": r["job_id"],
            "submit_time": r["submit_time"],
            "clusters": list(r["clusters"]),
            "copies": r["copies"],
            "allocated_gpu_hours": gpu_hours(r["allocated"]),
            "excess_gpu_hours": gpu_hours(r["excess"]),
        }
        for r in rows
    ]
    if not rows:
        summary = "No job landed under two cluster names."
    else:
        names = sorted({c for r in rows for c in r["clusters"]})
        summary = (
            f"{_n(len(rows), 'job')} landed under more than one cluster name "
            f"({', '.join(names)}) with the same job id and submit time: probably one export "
            f"landed twice, {_h(excess)} GPU-hours counted twice; land exports without a "
            "Cluster field with --cluster NAME."
        )
    return {
        "step": ORDER[5],
        "summary": summary,
        "probable_double_counts": len(rows),
        "excess_gpu_hours": gpu_hours(excess),
        "jobs": pairs[:50],
    }


NO_REGISTRY = (
    "no experiment registry: every job's work class is unknown (none counts as pilot, main, "
    "retry or evaluation against the plan) and no result is judged valid; the registry maps "
    "each job id to its experiment, work class and result: pass --registry FILE (CSV or YAML, "
    "columns in docs/reconcile.md, Inputs)"
)


def review_warnings(
    findings: list[dict[str, Any]], *, has_registry: bool = True, jobs: int = 0
) -> list[str]:
    """One stderr line per finding that the user must act on (probable double counts), and
    what to pass when no registry was ever landed and the week has jobs (NO_REGISTRY)."""
    warnings = [] if has_registry or not jobs else [NO_REGISTRY]
    for finding in findings:
        if finding["step"] == "double-counts" and finding["probable_double_counts"]:
            warnings.append(f"probable double count: {finding['summary']}")
    return warnings


def failures_finding(groups: list[dict[str, Any]]) -> dict[str, Any]:
    """Step 2: failed / cancelled / preempted ... jobs by state, exit code and diagnosed cause."""
    rows = [
        {
            "state": g["state"],
            "exit_code": g["exit_code"],
            "diagnosed_cause": g["diagnosed_cause"],
            "jobs": g["jobs"],
            "allocated_gpu_hours": gpu_hours(g["allocated"]),
            "lost_gpu_hours": gpu_hours(g["lost"]),
            "recovery_gpu_hours": gpu_hours(g["recovery"]),
            "unverified_gpu_hours": gpu_hours(g["unverified"]),
            "cancelled_while_pending": g["pending_cancelled"],
            "example_jobs": g["example_jobs"],
        }
        for g in groups
    ]
    jobs = sum(g["jobs"] for g in groups)
    undiagnosed = sum(g["jobs"] for g in groups if not g["diagnosed_cause"])
    if not rows:
        summary = "No failed or cancelled jobs."
    else:
        worst = rows[0]
        summary = (
            f"{_n(jobs, 'job')} did not complete ({undiagnosed:,} without a diagnosed cause); the "
            f"largest group is {worst['state']} exit {worst['exit_code'] or '-'} "
            f"({_n(worst['jobs'], 'job')}, {float(worst['allocated_gpu_hours']):,.2f} GPU-hours)."
        )
    return {"step": ORDER[1], "summary": summary, "groups": rows, "undiagnosed_jobs": undiagnosed}


def recovery_finding(
    tracked: list[TrackedJob],
    in_week: set[int],
    earlier: Callable[[str], list[TrackedJob]] | None = None,
) -> dict[str, Any]:
    """Step 3: each resumed job — steps recomputed, recovery hours, the interruption to blame.
    `earlier(chain)`: the chain's jobs walked before `tracked` (the closed ones, oldest first),
    read only when a resume reaches back past the chain's jobs here."""
    by_job = {t.job_id: t for t in tracked}
    unread: dict[str, list[TrackedJob]] = {}
    for job in tracked:
        unread.setdefault(job.chain, []).append(job)
    seen: dict[str, set[int]] = {}
    before: dict[str, list[TrackedJob]] = {}

    def closed(chain: str) -> list[TrackedJob]:
        if chain not in before:
            before[chain] = earlier(chain) if earlier is not None else []
            unread[chain] = before[chain] + unread.get(chain, [])
        return before[chain]

    def accepted(chain: str, step: int) -> bool:
        """Whether a job of `chain` accepted a checkpoint at `step`: its jobs are read from the
        last back and only until one has it (a stored split decodes when read, split_cache.py;
        a resume names a recent checkpoint, so most of a long chain stays unread)."""
        steps = seen.setdefault(chain, set())
        while step not in steps and (unread[chain] or chain not in before):
            if not unread[chain]:
                closed(chain)
                continue
            steps.update(s for _, s in unread[chain].pop().timeline.accepted_checkpoints)
        return step in steps

    def blamed(job: TrackedJob) -> TrackedJob | None:
        """The job its recovery is blamed on: the chain's previous one, here or closed."""
        name = job.recovery_caused_by or ""
        if name in by_job or not name:
            return by_job.get(name)
        return next((c for c in reversed(closed(job.chain)) if c.job_id == name), None)

    resumes, total = [], 0
    for job in tracked:
        if job.alloc_id not in in_week:  # before .timeline: an earlier week's stays unread
            continue
        t = job.timeline
        if not (job.split.recovery_s or t.resumed_from_step):
            continue
        cause = blamed(job)
        seconds = job.split.recovery_s * t.gpus
        total += seconds
        resumes.append(
            {
                "job_id": job.job_id,
                "resumed_from_step": t.resumed_from_step,
                "high_water_step": t.high_water_step,
                "recomputed_steps": max(t.high_water_step - t.resumed_from_step, 0),
                "recovery_gpu_hours": gpu_hours(seconds),
                "caused_by_job": job.recovery_caused_by,
                "caused_by_state": cause.timeline.state if cause else None,
                "resumed_from_accepted_checkpoint": t.resumed_from_step == 0
                or accepted(job.chain, t.resumed_from_step),
            }
        )
    unverified = [r["job_id"] for r in resumes if not r["resumed_from_accepted_checkpoint"]]
    summary = (
        f"{_n(len(resumes), 'resumed job')} spent {_h(total)} GPU-hours regaining earlier progress"
        + (
            f"; {len(unverified)} resumed from a step with no accepted checkpoint"
            if unverified
            else ""
        )
        + "."
    )
    return {"step": ORDER[2], "summary": summary, "resumes": resumes}


def evaluation_finding(counts: dict[str, Any], plan: Plan | None) -> dict[str, Any]:
    """Step 4: evaluation jobs run against the plan's evaluation schedule."""
    scheduled = planned_hours = None
    if plan is not None:
        scheduled = sum(
            e.jobs if e.jobs is not None else e.checkpoints * e.suites * e.replicas
            for e in plan.evaluation
        )
        planned_hours = sum(
            (
                (e.jobs if e.jobs is not None else e.checkpoints * e.suites * e.replicas)
                * e.gpus
                * (e.hours + e.load_hours + e.write_hours)
                for e in plan.evaluation
            ),
            Decimal(0),
        )
    done = counts["to_date_jobs"]
    summary = f"{_n(done, 'evaluation job')} to date ({counts['week_jobs']:,} this week)"
    if scheduled is not None:
        summary += f" against {scheduled:,} scheduled"
        if done > scheduled:
            summary += f": {done - scheduled:,} more than planned"
    return {
        "step": ORDER[3],
        "summary": summary + ".",
        "jobs_this_week": counts["week_jobs"],
        "jobs_to_date": done,
        "completed_to_date": counts["to_date_completed"],
        "scheduled_jobs": scheduled,
        "gpu_hours_to_date": gpu_hours(counts["to_date_gpu_seconds"]),
        "planned_gpu_hours": planned_hours,
    }


def artifacts_finding(roles: list[dict[str, Any]], plan: Plan | None) -> dict[str, Any]:
    """Step 5: retained artifacts and GB-months against the plan's checkpoint policy."""
    gb_months = sum((Decimal(str(r["gb_months"] or 0)) for r in roles), Decimal(0))
    count = sum(r["artifacts"] for r in roles)
    planned = plan.checkpoints if plan is not None else None
    planned_gb_months = (
        planned.count * planned.size_gb * planned.retention_months if planned else None
    )
    over = sum(r["over_retention"] for r in roles)
    summary = f"{_n(count, 'artifact')} retained, {float(gb_months):,.1f} GB-months"
    if planned_gb_months is not None:
        summary += f" against {float(planned_gb_months):,.1f} planned"
        if planned and count > planned.count:
            summary += f"; {count - planned.count:,} artifacts beyond the planned {planned.count}"
    if over:
        summary += f"; {over:,} kept longer than the {planned.retention_months}-month policy"
    return {
        "step": ORDER[4],
        "summary": summary + ".",
        "artifacts": count,
        "gb_months": gb_months,
        "planned_artifacts": planned.count if planned else None,
        "planned_gb_months": planned_gb_months,
        "over_retention": over,
        "by_role": [{**r, "gb_months": Decimal(str(r["gb_months"] or 0))} for r in roles],
    }

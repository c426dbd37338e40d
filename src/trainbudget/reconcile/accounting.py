"""Split one job's allocation into useful / recovery / lost / unverified GPU-seconds.

DESIGN.md, "Accounting definitions". On the job's scheduler timeline [T0, T1):
  recovery   [T0, min(t_regain, t_kept))  restart overhead and recomputed steps, until the job is
                                          back at the furthest step its experiment had reached;
  useful     [t_regain, t_kept)           new progress that was kept;
  lost       [t_kept, T1)                 progress never kept (unverified while still RUNNING);
where t_kept is the accepted end (COMPLETED with an end event and a result not marked invalid)
or else the last accepted checkpoint written in this job. A job with no progress events is all
unverified; a job whose result is marked invalid is all lost. Integer seconds throughout, so
the four parts sum to the allocation exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class JobTimeline:
    """What is known of one allocation: scheduler times (epoch s) and application events."""

    gpus: int
    start_s: int  # scheduler Start
    elapsed_s: int  # ElapsedRaw
    state: str
    has_progress: bool = False
    result_valid: bool | None = None
    resumed_from_step: int = 0
    high_water_step: int = 0  # furthest step reached by earlier jobs of the same experiment
    steps: tuple[tuple[int, int], ...] = ()  # (time s, step reached), time order
    accepted_checkpoints: tuple[tuple[int, int], ...] = ()  # (time s, step)
    app_start_s: int | None = None
    app_end_s: int | None = None


@dataclass(frozen=True)
class Split:
    """Wall seconds of each class for one job (multiply by GPUs for GPU-seconds)."""

    useful_s: int
    recovery_s: int
    lost_s: int
    unverified_s: int
    flags: tuple[str, ...] = field(default=())

    def gpu_seconds(self, gpus: int) -> tuple[int, int, int, int]:
        """(useful, recovery, lost, unverified) GPU-seconds."""
        return (
            gpus * self.useful_s,
            gpus * self.recovery_s,
            gpus * self.lost_s,
            gpus * self.unverified_s,
        )


def split_job(job: JobTimeline) -> Split:
    """Classify every second of the allocation exactly once (see the module docstring)."""
    t0, t1 = job.start_s, job.start_s + job.elapsed_s
    if not job.has_progress:
        return Split(0, 0, 0, job.elapsed_s, ("no-progress",))
    if job.result_valid is False:
        return Split(0, 0, job.elapsed_s, 0, ("result-invalid",))

    def clamp(t: int) -> int:
        return min(max(t, t0), t1)

    flags: list[str] = []
    ended_ok = job.state == "COMPLETED" and job.app_end_s is not None
    if ended_ok:
        t_kept = t1
    elif job.accepted_checkpoints:
        t_kept = clamp(max(t for t, _ in job.accepted_checkpoints))
    else:
        t_kept = t0

    target = max(job.high_water_step, job.resumed_from_step)
    if target == 0:
        t_regain = t0
    else:
        reached = [
            t
            for t, step in (*job.steps, *job.accepted_checkpoints)
            if step >= target and step > job.resumed_from_step
        ]
        if reached:
            t_regain = clamp(min(reached))
        elif ended_ok and not job.steps:
            t_regain = t0  # completed, but no step events to place the regain on
            flags.append("regain-not-observed")
        else:
            t_regain = t1
    recovery = min(t_regain, t_kept) - t0
    useful = max(0, t_kept - t_regain)
    tail = t1 - t_kept
    if job.state == "RUNNING":
        # The tail of a running job is not lost yet: its next checkpoint may keep it.
        return Split(useful, recovery, 0, tail, (*flags, "running"))
    return Split(useful, recovery, tail, 0, tuple(flags))


def clock_disagrees(job: JobTimeline, tolerance_s: int) -> bool:
    """True when application start/end differ from the scheduler's by more than the tolerance."""
    t0, t1 = job.start_s, job.start_s + job.elapsed_s
    checks = []
    if job.app_start_s is not None:
        checks.append(abs(job.app_start_s - t0))
    if job.app_end_s is not None:
        checks.append(abs(job.app_end_s - t1))
    for t, _ in (*job.steps, *job.accepted_checkpoints):
        checks.append(max(0, t0 - t, t - t1))
    return any(gap > tolerance_s for gap in checks)

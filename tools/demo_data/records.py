"""The scheduler and bookkeeping records of the demo campaign: sacct lines (with steps, as
`sacct --parsable2` prints them), the experiment registry and the artifact manifest."""

from __future__ import annotations

from datetime import datetime, timedelta

from tools.demo_data.story import (
    ACCOUNT,
    CHECKPOINT_BYTES,
    CHECKPOINT_EVERY_STEPS,
    FINAL_STEP,
    HOUR,
    STEPS_PER_HOUR,
    Job,
    t,
)
from trainbudget.demo_data import DEMO_CLUSTER

SACCT_FIELDS = (
    "JobID|JobIDRaw|JobName|Account|Partition|State|ExitCode|Elapsed|ElapsedRaw|"
    "Submit|Start|End|AllocTRES|ReqTRES|NNodes|AllocCPUS|TRESUsageInTot"
)


def _elapsed(seconds: int) -> str:
    days, rest = divmod(seconds, 86_400)
    text = f"{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    return f"{days}-{text}" if days else text


def _stamp(when: datetime | None) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S") if when else "None"


def sacct_lines(job: Job) -> list[str]:
    """The allocation line and its .batch/.extern/.0 steps, as `sacct --parsable2` prints them."""
    cpus = 8 * job.gpus
    tres = (
        f"billing={cpus},cpu={cpus},gres/gpu:a100={job.gpus},gres/gpu={job.gpus},"
        f"mem={64 * job.gpus}G,node=1"
    )
    req = f"billing={cpus},cpu={cpus},gres/gpu={job.gpus},mem={64 * job.gpus}G,node=1"
    if job.start is None:
        return [
            f"{job.job_id}|{job.job_id}|{job.name}|{ACCOUNT}|gpu|{job.state}|0:0|00:00:00|0|"
            f"{_stamp(job.submit)}|None|{_stamp(job.end)}||{req}|1|0|"
        ]
    seconds = int((job.end - job.start).total_seconds())
    common = (
        f"{_elapsed(seconds)}|{seconds}|{_stamp(job.submit)}|{_stamp(job.start)}|{_stamp(job.end)}"
    )
    step_state = {"TIMEOUT": "CANCELLED", "REQUEUED": "CANCELLED"}.get(job.state, job.state)
    step_exit = "0:15" if step_state == "CANCELLED" else job.exit_code
    usage = f"cpu={_elapsed(seconds * cpus // 2)},gres/gpuutil={72 * job.gpus}"
    return [
        f"{job.job_id}|{job.job_id}|{job.name}|{ACCOUNT}|gpu|{job.state}|{job.exit_code}|"
        f"{common}|{tres}|{req}|1|{cpus}|",
        f"{job.job_id}.batch|{job.job_id}.batch|batch|{ACCOUNT}||{step_state}|{step_exit}|"
        f"{common}|{tres.replace(f'billing={cpus},', '')}||1|{cpus}|{usage}",
        f"{job.job_id}.extern|{job.job_id}.extern|extern|{ACCOUNT}||COMPLETED|0:0|{common}|"
        f"{tres.replace(f'billing={cpus},', '')}||1|{cpus}|cpu=00:00:00",
        f"{job.job_id}.0|{job.job_id}.0|python|{ACCOUNT}||{step_state}|{step_exit}|{common}|"
        f"{tres.replace(f'billing={cpus},', '')}||1|{cpus}|{usage}",
    ]


def iso_week(job: Job) -> str:
    when = job.start or job.submit
    year, week, _ = when.isocalendar()
    return f"{year}-W{week:02d}"


def registry_rows(jobs: list[Job]) -> list[dict[str, str]]:
    rows, seen = [], set()
    for job in jobs:
        if not job.in_registry or job.job_id in seen:
            continue
        seen.add(job.job_id)
        # A requeued job has one registry row; its diagnosed cause is the latest one.
        last = [j for j in jobs if j.job_id == job.job_id][-1]
        rows.append(
            {
                "job_id": job.job_id,
                "cluster": DEMO_CLUSTER,
                "experiment_id": job.experiment_id,
                "work_class": job.work_class,
                "code_revision": "3f9c2ab" if job.work_class != "pilot" else "1d07e55",
                "data_snapshot": "fineweb-edu-2026-10-01",
                "result_valid": last.result_valid,
                "diagnosed_cause": last.diagnosed_cause,
                "cause_addressed": last.cause_addressed,
            }
        )
    return rows


def manifest_rows() -> list[dict[str, str]]:
    """Main-run checkpoints (recovery points, one promoted, the final) and evaluation results."""
    rows = []
    for step in range(CHECKPOINT_EVERY_STEPS, FINAL_STEP + 1, CHECKPOINT_EVERY_STEPS):
        job_id = "2001" if step <= 12_600 else "2002"
        begin, base = (
            (t(9, 8), 0)
            if step <= 7200
            else ((t(10, 7, 30), 7200) if step <= 12_600 else (t(11, 9, 30), 12_600))
        )
        created = begin + HOUR * ((step - base) / STEPS_PER_HOUR)
        role = "final" if step == FINAL_STEP else ("promoted" if step == 18_000 else "recovery")
        keep = (
            created + timedelta(days=14) if role == "recovery" else t(30, 0) + timedelta(days=180)
        )
        rows.append(
            {
                "artifact_id": f"ckpt-main-1b-{step:06d}",
                "experiment_id": "main-1b",
                "job_id": job_id,
                "step": str(step),
                "size_bytes": str(CHECKPOINT_BYTES),
                "created": created.isoformat(),
                "role": role,
                "retain_until": keep.isoformat(),
            }
        )
    for k in range(11):
        step = CHECKPOINT_EVERY_STEPS * (k + 1)
        job_id = "3012" if step == 10_800 else f"30{k + 1:02d}"
        done = t(20, 10, 30) if step == 10_800 else t(16 + k // 4, 8 + 3 * (k % 4), 30) + 2 * HOUR
        rows.append(
            {
                "artifact_id": f"eval-main-1b-{step:06d}",
                "experiment_id": f"eval-main-1b-{step:06d}",
                "job_id": job_id,
                "step": str(step),
                "size_bytes": str(48_000_000),
                "created": done.isoformat(),
                "role": "evaluation",
                "retain_until": "",
            }
        )
    return rows

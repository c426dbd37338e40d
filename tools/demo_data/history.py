"""The demo cluster's failure history before the campaign (weeks 2026-W40 to W44).

Other training jobs on `demo-cluster` of 8, 16, 32 and 64 GPUs, each planned for 24 h, fail
at the times of a Poisson process whose job MTBF is 40 h × (n / 8)^−0.6: a job that fails
before 24 h ends NODE_FAIL, PREEMPTED or REQUEUED (drawn) at the failure time, the rest
complete. Drawn from their own seeded generator, so the campaign's files do not change. They
are not in the registry (untracked) and carry no progress; `trainbudget reliability` fits them.
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np

from tools.demo_data.story import HOUR, Job, t

TRUE_MTBF_HOURS_AT_8 = 40.0
TRUE_EXPONENT = -0.6
PLANNED_HOURS = 24
JOBS_BY_GPUS = {8: 12, 16: 10, 32: 8, 64: 6}
FAILURE_STATES = ("NODE_FAIL", "PREEMPTED", "REQUEUED")


def history_jobs(rng: np.random.Generator) -> list[Job]:
    """The history's allocations in start order (one every 6 hours from 2026-09-28 00:00)."""
    jobs: list[Job] = []
    start = t(1, 0) - timedelta(days=35)  # Monday 2026-09-28
    number = 0
    for gpus, count in JOBS_BY_GPUS.items():
        mtbf = TRUE_MTBF_HOURS_AT_8 * (gpus / 8) ** TRUE_EXPONENT
        for _ in range(count):
            number += 1
            fails_after = float(rng.exponential(mtbf))
            minutes = round(min(fails_after, PLANNED_HOURS) * 60)
            failed = fails_after < PLANNED_HOURS and minutes > 0
            state = str(rng.choice(FAILURE_STATES)) if failed else "COMPLETED"
            begin = start + 6 * HOUR * (number - 1)
            jobs.append(
                Job(
                    f"9{number:03d}",
                    f"fleet-{gpus}gpu-{number}",
                    "",
                    "",
                    gpus,
                    begin - timedelta(minutes=10),
                    begin,
                    begin + timedelta(minutes=minutes if failed else PLANNED_HOURS * 60),
                    state,
                    result_valid="",
                    in_registry=False,
                )
            )
    return jobs

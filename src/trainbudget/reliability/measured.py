"""What each weekly review measured of a campaign's main run, stored for the next forecast.

After the review (weekly.review_week) the campaign's ETTR and badput to date, its main-run
interruptions and time at risk, and its median restart time go to `measured_reliability`
(migration 013), one row per campaign and reviewed week; `latest` reads the newest back.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from statistics import median
from typing import TYPE_CHECKING, Any

from trainbudget.reconcile.goodput import total
from trainbudget.reliability.interruptions import is_interruption

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger
    from trainbudget.reconcile.review import Review


@dataclass(frozen=True)
class Measured:
    """A campaign's stored main-run measurements (newest reviewed week); times in seconds."""

    campaign: str
    week: str
    cluster: str | None
    main_gpus: int | None
    ettr: Decimal | None
    allocated_gpu_seconds: int
    productive_gpu_seconds: int
    restart_gpu_seconds: int
    recomputation_gpu_seconds: int
    lost_progress_gpu_seconds: int
    checkpoint_write_gpu_seconds: int
    interruptions: int
    job_seconds_at_risk: int
    restarts: int
    restart_median_seconds: float | None

    @property
    def observed_mtbf_hours(self) -> Decimal | None:
        """The main run's job hours at risk ÷ its interruptions; None without one."""
        if not self.interruptions:
            return None
        return Decimal(self.job_seconds_at_risk) / Decimal(3600) / self.interruptions


def store_measured(ledger: Ledger, campaign: str, week: str | None, review: Review) -> None:
    """Write the campaign-week's row (replacing an earlier review of the same week)."""
    if review.jobs is None:
        return
    review.jobs.check(ledger)
    jobs = ledger.records("reliability/calibrate/main_run_jobs")
    if not jobs:
        return
    by_cluster: Counter[str] = Counter()
    by_gpus: Counter[int] = Counter()
    for j in jobs:
        by_cluster[j["cluster"]] += j["gpu_seconds"]
        by_gpus[j["gpus"]] += j["gpu_seconds"]
    restarts = [int(j["restart_s"]) for j in jobs if j["restart_s"] is not None]
    to_date = total(review.goodput, campaign, week)
    ledger.execute(
        "reliability/calibrate/measured_upsert",
        campaign=campaign,
        week=week or "all",
        cluster=by_cluster.most_common(1)[0][0],
        main_gpus=by_gpus.most_common(1)[0][0],
        allocated=to_date.allocated,
        productive=to_date.productive,
        restart=to_date.causes["restart"],
        recomputation=to_date.causes["recomputation"],
        lost_progress=to_date.causes["lost_progress"],
        checkpoint_writes=to_date.causes["checkpoint_writes"],
        ettr=float(to_date.ettr) if to_date.ettr is not None else None,
        interruptions=sum(is_interruption(j["state"], j["diagnosed_cause"]) for j in jobs),
        job_seconds_at_risk=sum(int(j["seconds_at_risk"]) for j in jobs),
        restarts=len(restarts),
        restart_median_seconds=float(median(restarts)) if restarts else None,
        now=datetime.now(UTC),
    )


def latest(ledger: Ledger, campaign: str) -> Measured | None:
    """The newest stored measurements of `campaign`; None when no review stored any."""
    rows = ledger.records("reliability/calibrate/measured_rows", campaign=campaign)
    if not rows:
        return None
    r: dict[str, Any] = rows[0]
    allocated, productive = int(r["allocated_gpu_seconds"]), int(r["productive_gpu_seconds"])
    return Measured(
        campaign=r["campaign"],
        week=r["week"],
        cluster=r["cluster"],
        main_gpus=r["main_gpus"],
        ettr=Decimal(productive) / Decimal(allocated) if allocated else None,
        allocated_gpu_seconds=allocated,
        productive_gpu_seconds=productive,
        restart_gpu_seconds=int(r["restart_gpu_seconds"]),
        recomputation_gpu_seconds=int(r["recomputation_gpu_seconds"]),
        lost_progress_gpu_seconds=int(r["lost_progress_gpu_seconds"]),
        checkpoint_write_gpu_seconds=int(r["checkpoint_write_gpu_seconds"]),
        interruptions=int(r["interruptions"]),
        job_seconds_at_risk=int(r["job_seconds_at_risk"]),
        restarts=int(r["restarts"]),
        restart_median_seconds=r["restart_median_seconds"],
    )

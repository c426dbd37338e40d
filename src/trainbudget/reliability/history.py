"""A cluster's failure history from the landed sacct, registry and progress (read-only).

Each allocation that ran is an exposure: its GPU count, its time at risk (ElapsedRaw, wall
seconds) and whether it ended in an interruption (interruptions.py). Restart times are
measured on resumed jobs (allocation start → first step beyond the resumed one) and
blocking checkpoint writes where progress events (`write_seconds`) or pilots carry them.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from statistics import median
from typing import TYPE_CHECKING, Any

from trainbudget.reconcile.session import Session, build_allocations
from trainbudget.reconcile.timelines import restart_seconds, split_tracked_jobs
from trainbudget.reliability.interruptions import is_interruption

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger

HOUR = Decimal(3600)


@dataclass(frozen=True)
class Exposure:
    """One allocation at risk: GPUs, wall seconds, and whether it ended interrupted."""

    job_id: str
    gpus: int
    seconds: int
    interrupted: bool


@dataclass(frozen=True)
class Bucket:
    """The jobs of one GPU count: their interruptions and time at risk (exact integers)."""

    gpus: int
    jobs: int
    interruptions: int
    job_seconds_at_risk: int

    @property
    def gpu_hours_at_risk(self) -> Decimal:
        return Decimal(self.gpus * self.job_seconds_at_risk) / HOUR

    @property
    def observed_mtbf_hours(self) -> Decimal | None:
        """Job hours at risk ÷ interruptions (the MTBF of one job of this size); None if 0."""
        if not self.interruptions:
            return None
        return Decimal(self.job_seconds_at_risk) / HOUR / self.interruptions


@dataclass(frozen=True)
class History:
    """Exposures of one cluster (None: every cluster of the ledger) and the measured times."""

    cluster: str | None
    exposures: tuple[Exposure, ...]
    restart_seconds: tuple[int, ...] = ()
    checkpoint_write_seconds: tuple[int, ...] = ()
    pilot_checkpoint_seconds: tuple[float, ...] = ()

    @property
    def interruptions(self) -> int:
        return sum(e.interrupted for e in self.exposures)

    def buckets(self) -> list[Bucket]:
        """One bucket per GPU count, smallest first."""
        counts = sorted({e.gpus for e in self.exposures})
        out = []
        for gpus in counts:
            own = [e for e in self.exposures if e.gpus == gpus]
            out.append(
                Bucket(
                    gpus,
                    len(own),
                    sum(e.interrupted for e in own),
                    sum(e.seconds for e in own),
                )
            )
        return out

    def medians(self) -> dict[str, Any]:
        """Median restart and checkpoint-write seconds, with how many each is over."""

        def mid(values: tuple[Any, ...]) -> Any:
            return median(values) if values else None

        return {
            "restart_median_seconds": mid(self.restart_seconds),
            "restarts_measured": len(self.restart_seconds),
            "checkpoint_write_median_seconds": mid(self.checkpoint_write_seconds),
            "checkpoint_writes_measured": len(self.checkpoint_write_seconds),
            "pilot_checkpoint_median_seconds": mid(self.pilot_checkpoint_seconds),
            "pilots_with_checkpoints": len(self.pilot_checkpoint_seconds),
        }


def clusters(ledger: Ledger) -> list[str]:
    """The clusters the ledger has scheduler records of."""
    return [r[0] for r in ledger.query("reliability/history/clusters")]


def load_history(ledger: Ledger, cluster: str | None, tolerance_s: int = 300) -> History:
    """The failure history of `cluster` (None: all) from what is landed; temp tables only."""
    session = Session(ledger)
    build_allocations(session, None)  # the whole history: every landed job is read
    rows = session.records("reliability/history/job_exposures", cluster=cluster)
    exposures = tuple(
        Exposure(
            job_id=r["job_id"],
            gpus=int(r["gpus"]),
            seconds=int(r["elapsed_seconds"]),
            interrupted=is_interruption(r["state"], r["diagnosed_cause"]),
        )
        for r in rows
    )
    in_scope = {r["alloc_id"] for r in rows}
    tracked = split_tracked_jobs(
        session.records("reconcile/review/tracked_allocations", tolerance_s=tolerance_s),
        ledger.records("reconcile/review/progress_event_list"),
        tolerance_s,
    )
    restarts = tuple(
        restart_seconds(j)
        for j in tracked
        if j.alloc_id in in_scope and j.timeline.resumed_from_step > 0 and j.split.recovery_s
    )
    job_ids = {e.job_id for e in exposures}
    session.build("measured_writes")
    writes = tuple(
        int(w["write_s"])
        for w in session.records("reconcile/review/checkpoint_write_events")
        if w["job_id"] in job_ids
    )
    pilots = tuple(
        float(r[0]) for r in ledger.query("reliability/history/pilot_checkpoint_seconds")
    )
    return History(cluster, exposures, restarts, writes, pilots)

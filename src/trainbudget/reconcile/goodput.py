"""Goodput of the main run in the field's words (DESIGN.md): ETTR and badput by cause, per week.

Every cause is a part of one accounting class, so nothing is counted twice:
  useful     = productive + checkpoint_writes   (blocking writes inside the kept stretch)
  recovery   = restart + recomputation          (allocation start → first new step; the rest)
  lost       = lost_progress + invalid_result
  unverified = unverified
The main run is one scope for ETTR, badput, goodput and seed 000's measured f: the campaign's
main-class jobs and the retry-class jobs of an experiment that has a main-class job (its
retries and resumptions, as job 102 resumes job 101 in DESIGN.md's worked example, where
f = (16 + 20) ÷ 128 counts both). The `main` row of actual-versus-plan is the main work class
alone; it is named so there.
ETTR (Kokolis et al. 2024) = productive ÷ allocated GPU-seconds of the main-run jobs. Queue wait
(Submit → Start) is reported beside these, never inside ETTR. Exact: integer GPU-seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.reconcile.variance import gpu_hours

if TYPE_CHECKING:
    from trainbudget.reconcile.session import Session

# cause → the accounting class it is a part of.
CAUSES: dict[str, str] = {
    "restart": "recovery",
    "recomputation": "recovery",
    "lost_progress": "lost",
    "invalid_result": "lost",
    "checkpoint_writes": "useful",
    "unverified": "unverified",
}
CLASSES = ("useful", "recovery", "lost", "unverified")


@dataclass(frozen=True)
class GoodputWeek:
    """One campaign-week of the main run; every figure in GPU-seconds (queue wait: seconds)."""

    campaign: str | None
    week: str
    jobs_started: int
    allocated: int
    productive: int
    causes: dict[str, int]
    queue_wait_seconds: int
    queue_wait_gpu_seconds: int

    @property
    def ettr(self) -> Decimal | None:
        """Productive ÷ allocated; None for a week with nothing allocated."""
        return Decimal(self.productive) / Decimal(self.allocated) if self.allocated else None

    def by_class(self) -> dict[str, int]:
        """The four accounting classes, rebuilt from productive time and the causes."""
        classes = {c: 0 for c in CLASSES}
        classes["useful"] = self.productive
        for cause, seconds in self.causes.items():
            classes[CAUSES[cause]] += seconds
        return classes

    def payload(self) -> dict[str, Any]:
        """The `goodput` row of `reconcile --json` (exact Decimals)."""
        return {
            "campaign": self.campaign,
            "week": self.week,
            "jobs_started": self.jobs_started,
            "ettr": self.ettr,
            "allocated_gpu_hours": gpu_hours(self.allocated),
            "productive_gpu_hours": gpu_hours(self.productive),
            "badput_gpu_hours": {c: gpu_hours(s) for c, s in self.causes.items()},
            "queue_wait_hours": gpu_hours(self.queue_wait_seconds),
            "queue_wait_gpu_hours": gpu_hours(self.queue_wait_gpu_seconds),
        }


def campaign_goodput(session: Session, campaign: str | None) -> tuple[GoodputWeek, ...]:
    """The main run's goodput per week over the review's job_accounting (relations.py)."""
    session.build("measured_writes")
    session.build("goodput_stretches")  # the restarts and the blocking checkpoint writes
    session.build("goodput_stretches_all")  # with the closed tracked jobs' (closed_jobs.py)
    weeks = []
    for r in session.records("reconcile/review/goodput_by_week"):
        causes = {
            "restart": int(r["restart"]),
            "recomputation": int(r["recovery"] - r["restart"]),
            "lost_progress": int(r["lost"] - r["invalid_result"]),
            "invalid_result": int(r["invalid_result"]),
            "checkpoint_writes": int(r["checkpoint_writes"]),
            "unverified": int(r["unverified"]),
        }
        weeks.append(
            GoodputWeek(
                campaign=campaign,
                week=r["week"],
                jobs_started=int(r["jobs_started"]),
                allocated=int(r["allocated"]),
                productive=int(r["useful"] - r["checkpoint_writes"]),
                causes=causes,
                queue_wait_seconds=int(r["queue_wait_seconds"]),
                queue_wait_gpu_seconds=int(r["queue_wait_gpu_seconds"]),
            )
        )
    return tuple(weeks)


def total(
    weeks: tuple[GoodputWeek, ...], campaign: str | None, until: str | None = None
) -> GoodputWeek:
    """The campaign to date: the weeks up to `until` (ISO week; None: all) summed."""
    weeks = tuple(w for w in weeks if until is None or w.week <= until)
    causes = {c: sum(w.causes[c] for w in weeks) for c in CAUSES}
    return GoodputWeek(
        campaign=campaign,
        week="total",
        jobs_started=sum(w.jobs_started for w in weeks),
        allocated=sum(w.allocated for w in weeks),
        productive=sum(w.productive for w in weeks),
        causes=causes,
        queue_wait_seconds=sum(w.queue_wait_seconds for w in weeks),
        queue_wait_gpu_seconds=sum(w.queue_wait_gpu_seconds for w in weeks),
    )


def up_to(weeks: tuple[GoodputWeek, ...], until: str) -> tuple[GoodputWeek, ...]:
    """The weeks up to `until` (ISO week, inclusive): the main run to the end of a review."""
    return tuple(w for w in weeks if w.week <= until)


def failure_fraction(week: GoodputWeek) -> Decimal | None:
    """Seed 000's measured f of the main run = (lost + recovery) ÷ useful GPU-seconds of `week`
    (a week or the `total`), None when nothing was useful: (lost progress + invalid result +
    restart + recomputation) ÷ (productive + checkpoint writes), the goodput table's columns."""
    classes = week.by_class()
    if classes["useful"] <= 0:
        return None
    return Decimal(classes["lost"] + classes["recovery"]) / Decimal(classes["useful"])


def goodput_payload(weeks: tuple[GoodputWeek, ...], campaign: str | None) -> dict[str, Any]:
    """`reconcile --json` key `goodput`: {campaign, weeks: [...], total}."""
    return {
        "campaign": campaign,
        "weeks": [w.payload() for w in weeks],
        "total": total(weeks, campaign).payload(),
    }

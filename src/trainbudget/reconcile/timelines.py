"""Build each tracked job's timeline from progress events and split it (accounting.py).

Jobs of one experiment form a chain in start order (evaluation jobs a chain of their own):
a job's high-water step is the furthest step any earlier job of its chain reached, and the
recovery it spends is attributed to the interruption of the job before it. An event belongs
to the allocation of its job id that started last at or before it (requeued instances share
a job id).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from trainbudget.reconcile.accounting import JobTimeline, Split, clock_disagrees, split_job

# A tracked job's timeline, split, recovery_caused_by and last_checkpoint_step: what a stored
# split decodes to when first read (split_cache.decode_split).
Detail = tuple[JobTimeline, Split, str | None, int | None]
# A chain's walk state: its high-water step and the job id of its last job (None: none yet).
ChainState = tuple[int, str | None]


class TrackedJob:
    """A job with progress: its split and what the diagnosis needs to explain it.

    alloc_id, job_id, chain and max_step (what the chain walk reads) are plain values; the
    timeline, split, recovery_caused_by and last_checkpoint_step may come from `load`, run on
    first use: a review reuses tens of thousands of stored splits and reads few of them whole.
    """

    __slots__ = ("_detail", "_load", "alloc_id", "chain", "job_id", "max_step")

    def __init__(
        self,
        alloc_id: int,
        job_id: str,
        timeline: JobTimeline,
        split: Split,
        chain: str,
        recovery_caused_by: str | None,
        max_step: int | None,
        last_checkpoint_step: int | None,
    ) -> None:
        self.alloc_id, self.job_id, self.chain, self.max_step = alloc_id, job_id, chain, max_step
        self._detail: Detail | None = (timeline, split, recovery_caused_by, last_checkpoint_step)
        self._load: Callable[[], Detail] | None = None

    @classmethod
    def stored(
        cls, alloc_id: int, job_id: str, chain: str, max_step: int | None,
        load: Callable[[], Detail],
    ) -> TrackedJob:  # fmt: skip
        """A job whose timeline, split, cause and last checkpoint `load` gives when first read."""
        job = cls.__new__(cls)
        job.alloc_id, job.job_id, job.chain, job.max_step = alloc_id, job_id, chain, max_step
        job._detail, job._load = None, load
        return job

    def _details(self) -> Detail:
        """The detail, loaded (once, then the loader dropped) on first use."""
        if self._detail is None:
            assert self._load is not None
            self._detail, self._load = self._load(), None
        return self._detail

    @property
    def timeline(self) -> JobTimeline:
        return self._details()[0]

    @property
    def split(self) -> Split:
        return self._details()[1]

    @property
    def recovery_caused_by(self) -> str | None:
        return self._details()[2]

    @property
    def last_checkpoint_step(self) -> int | None:
        return self._details()[3]

    def _key(self) -> tuple[object, ...]:
        return (self.alloc_id, self.job_id, self.chain, self.max_step, *self._details())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TrackedJob) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"TrackedJob{self._key()!r}"


def split_tracked_jobs(
    allocations: list[dict[str, Any]], events: list[dict[str, Any]], tolerance_s: int
) -> list[TrackedJob]:
    """Split every allocation that has progress events; allocations in start order."""
    owned = own_events(allocations, events, tolerance_s)
    return split_chains(allocations, lambda alloc: owned.get(alloc["alloc_id"]), tolerance_s)


def own_events(
    allocations: list[dict[str, Any]], events: list[dict[str, Any]], tolerance_s: int
) -> dict[int, list[dict[str, Any]]]:
    """Each event under the alloc_id that owns it (the last of its job id started by then)."""
    by_job_id = candidates_by_job_id(allocations)
    owned: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        candidates = by_job_id.get(event["job_id"])
        if not candidates:
            continue
        if len(candidates) == 1:  # the usual case: one allocation answers to this id
            owned[candidates[0]["alloc_id"]].append(event)
            continue
        started = [a for a in candidates if a["start_s"] <= event["t"] + tolerance_s]
        if started:
            owner = max(started, key=lambda a: a["start_s"])
        else:
            owner = min(candidates, key=lambda a: a["start_s"])
        owned[owner["alloc_id"]].append(event)
    return owned


def candidates_by_job_id(allocations: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The allocations an event's job id can name: by job id as printed and by JobIDRaw."""
    by_job_id: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for alloc in allocations:
        by_job_id[alloc["job_id"]].append(alloc)
        if alloc["job_id_raw"] != alloc["job_id"]:
            by_job_id[alloc["job_id_raw"]].append(alloc)
    return by_job_id


# reuse(alloc, chain, high_water, previous job id): a stored split computed from these, or None.
Reuse = Callable[[dict[str, Any], str, int, str | None], "TrackedJob | None"]


def split_chains(
    allocations: list[dict[str, Any]],
    events_of: Callable[[dict[str, Any]], list[dict[str, Any]] | None],
    tolerance_s: int,
    reuse: Reuse | None = None,
    start: Mapping[str, ChainState] | None = None,
) -> list[TrackedJob]:
    """Walk the allocations in start order, each chain carrying its high-water step and its
    previous job; split each from its events (`events_of`) unless `reuse` gives its split.
    `start`: each chain's (high-water step, previous job id) after jobs walked before these
    (the closed jobs, closed_jobs.py); from (0, none) otherwise."""
    high_water: dict[str, int] = defaultdict(int)
    previous: dict[str, str] = {}
    for chain, (steps, job_id) in (start or {}).items():
        high_water[chain] = steps
        if job_id is not None:
            previous[chain] = job_id
    tracked = []
    for alloc in allocations:  # start order
        chain = chain_key(alloc)
        job = reuse(alloc, chain, high_water[chain], previous.get(chain)) if reuse else None
        if job is None:
            own = events_of(alloc)
            if not own:
                continue
            job = _split_one(alloc, own, chain, high_water[chain], previous, tolerance_s)
        tracked.append(job)
        if job.max_step is not None:  # the furthest step or accepted checkpoint it reached
            high_water[chain] = max(high_water[chain], job.max_step)
        previous[chain] = alloc["job_id"]
    return tracked


def _split_one(
    alloc: dict[str, Any],
    own: list[dict[str, Any]],
    chain: str,
    high_water: int,
    previous: dict[str, str],
    tolerance_s: int,
) -> TrackedJob:
    timeline = _timeline(alloc, own, high_water)
    split = split_job(timeline)
    flags = list(split.flags)
    if clock_disagrees(timeline, tolerance_s):
        flags.append("clock-disagreement")
    split = Split(split.useful_s, split.recovery_s, split.lost_s, split.unverified_s,
                  tuple(flags))  # fmt: skip
    reached = [s for _, s in (*timeline.steps, *timeline.accepted_checkpoints)]
    checkpoints = [s for _, s in timeline.accepted_checkpoints]
    return TrackedJob(
        alloc_id=alloc["alloc_id"],
        job_id=alloc["job_id"],
        timeline=timeline,
        split=split,
        chain=chain,
        recovery_caused_by=previous.get(chain) if split.recovery_s else None,
        max_step=max(reached) if reached else None,
        last_checkpoint_step=max(checkpoints) if checkpoints else None,
    )


def chain_key(alloc: dict[str, Any]) -> str:
    """The chain an allocation continues: its experiment's training or evaluation jobs."""
    experiment = alloc.get("experiment_id")
    if not experiment:
        return f"job:{alloc['cluster']}:{alloc['job_id']}"
    kind = "evaluation" if alloc.get("work_class") == "evaluation" else "training"
    return f"{experiment}:{kind}"


def _timeline(alloc: dict[str, Any], events: list[dict[str, Any]], high_water: int) -> JobTimeline:
    starts = [e for e in events if e["event"] == "start"]
    ends = [e for e in events if e["event"] == "end"]
    return JobTimeline(
        gpus=alloc["gpus"],
        start_s=alloc["start_s"],
        elapsed_s=alloc["elapsed_seconds"],
        state=alloc["state"],
        has_progress=True,
        result_valid=alloc.get("result_valid"),
        resumed_from_step=(starts[0]["resumed_from_step"] or 0) if starts else 0,
        high_water_step=high_water,
        steps=tuple((e["t"], e["step"]) for e in events if e["event"] == "step"),
        accepted_checkpoints=tuple(
            (e["t"], e["step"]) for e in events if e["event"] == "checkpoint" and e["accepted"]
        ),
        app_start_s=starts[0]["t"] if starts else None,
        app_end_s=ends[-1]["t"] if ends else None,
    )


def job_split_rows(tracked: list[TrackedJob]) -> list[dict[str, Any]]:
    """Rows of the `job_splits` table joined back to the allocations in SQL."""
    rows = []
    for job in tracked:
        t = job.timeline
        app_elapsed = (
            t.app_end_s - t.app_start_s
            if t.app_start_s is not None and t.app_end_s is not None
            else None
        )
        rows.append(
            {
                "alloc_id": job.alloc_id,
                "useful_s": job.split.useful_s,
                "recovery_s": job.split.recovery_s,
                "lost_s": job.split.lost_s,
                "unverified_s": job.split.unverified_s,
                "flags": list(job.split.flags),
                "recovery_caused_by": job.recovery_caused_by,
                "app_start": t.app_start_s,
                "app_end": t.app_end_s,
                "app_elapsed_seconds": app_elapsed,
                "resumed_from_step": t.resumed_from_step,
                "high_water_step": t.high_water_step,
                "last_checkpoint_step": job.last_checkpoint_step,
                "max_step": job.max_step,
                "restart_s": restart_seconds(job),
            }
        )
    return rows


def restart_seconds(job: TrackedJob) -> int:
    """Allocation start → first step beyond the resumed one, within the job's recovery (s)."""
    t = job.timeline
    if job.split.recovery_s == 0:
        return 0
    new = [s for s, step in (*t.steps, *t.accepted_checkpoints) if step > t.resumed_from_step]
    if not new:
        return job.split.recovery_s
    return min(max(0, min(new) - t.start_s), job.split.recovery_s)

"""Tracked splits kept in the ledger (tracked_splits, migration 016), so a review splits only
the jobs whose inputs changed: the new week's, and those a late landing touched.

A stored split is reused when the allocation's fields, the count and newest landing of its
job ids' progress events, the clock tolerance (checked in tracked_allocations.sql) and its
chain's high-water step and previous job (checked here, walking the chains in start order) are
those it was computed from, and its job ids name no other allocation. Everything else is split
from its events, read for those jobs only, and stored for the next review.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

import orjson

from trainbudget.base.collector import collector_paused
from trainbudget.reconcile.accounting import JobTimeline, Split
from trainbudget.reconcile.timelines import (
    ChainState,
    Detail,
    TrackedJob,
    candidates_by_job_id,
    chain_key,
    job_split_rows,
    own_events,
    split_chains,
)

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger
    from trainbudget.reconcile.session import Session


def split_with_cache(
    session: Session, tolerance_s: int, start: Mapping[str, ChainState] | None = None
) -> list[TrackedJob]:
    """The review's tracked jobs in start order, as split_tracked_jobs would split them;
    `start`: each chain's state after its closed jobs, which the review did not read."""
    # A few small, acyclic objects per tracked job of the campaign to date: 0.31-0.42 ->
    # 0.21-0.33 CPU-s for 9,870 stored splits with the collector paused (docs/reconcile.md).
    with collector_paused():
        return _split_with_cache(session, tolerance_s, start or {})


def _split_with_cache(
    session: Session, tolerance_s: int, start: Mapping[str, ChainState]
) -> list[TrackedJob]:
    ledger = session.ledger
    allocations = session.records("reconcile/review/tracked_allocations", tolerance_s=tolerance_s)
    by_job_id = candidates_by_job_id(allocations)
    stored = {
        a["alloc_id"]: a
        for a in allocations
        if a["tracked_json"] is not None
        and all(len(by_job_id[k]) == 1 for k in (a["job_id"], a["job_id_raw"]))
    }
    chains: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for alloc in allocations:
        chains[chain_key(alloc)].append(alloc)
    # From a chain's first allocation without a stored split on, its later splits may change.
    needed: list[dict[str, Any]] = []
    for members in chains.values():
        fresh = [i for i, a in enumerate(members) if a["alloc_id"] not in stored]
        if fresh:
            needed += members[fresh[0] :]
    owned: dict[int, list[dict[str, Any]]] = {}
    fetched: set[str] = set()

    def fetch(allocs: list[dict[str, Any]]) -> None:
        ids = sorted({k for a in allocs for k in (a["job_id"], a["job_id_raw"])} - fetched)
        if not ids:
            return
        fetched.update(ids)
        if len(allocs) == len(allocations):  # nothing stored yet: every event, unfiltered
            events = ledger.records("reconcile/review/progress_event_list")
        else:
            events = ledger.records("reconcile/review/progress_events_of", job_ids=ids)
        for alloc_id, own in own_events(allocations, events, tolerance_s).items():
            owned.setdefault(alloc_id, []).extend(own)

    def events_of(alloc: dict[str, Any]) -> list[dict[str, Any]] | None:
        if alloc["job_id"] not in fetched or alloc["job_id_raw"] not in fetched:
            members = chains[chain_key(alloc)]
            fetch(members[members.index(alloc) :])  # a stored split its chain no longer fits
        own = owned.get(alloc["alloc_id"])
        return sorted(own, key=lambda e: (e["t"], e["job_id"])) if own else None

    def reuse(alloc: dict[str, Any], chain: str, high_water: int, prev: str | None):
        row = stored.get(alloc["alloc_id"])
        if row is None or row["high_water_in"] != high_water or row["previous_in"] != prev:
            return None
        # Decoded only when read: the walk needs the stored max_step alone.
        load = partial(decode_split, row["tracked_json"])
        return TrackedJob.stored(alloc["alloc_id"], alloc["job_id"], chain, row["max_step"], load)

    fetch(needed)
    inputs: dict[int, tuple[int, str | None]] = {}

    def remember(alloc: dict[str, Any], chain: str, high_water: int, prev: str | None):
        job = reuse(alloc, chain, high_water, prev)
        if job is None:
            inputs[alloc["alloc_id"]] = (high_water, prev)
        return job

    tracked = split_chains(allocations, events_of, tolerance_s, remember, start)
    _store(session, allocations, tracked, inputs, tolerance_s)
    return tracked


def _store(
    session: Session,
    allocations: list[dict[str, Any]],
    tracked: list[TrackedJob],
    inputs: dict[int, tuple[int, str | None]],
    tolerance_s: int,
) -> None:
    """Store the splits computed in this review (replacing their allocations' old ones)."""
    by_id = {a["alloc_id"]: a for a in allocations}
    now = datetime.now(UTC)
    shared = _shared(tracked)
    fresh = [job for job in tracked if job.alloc_id in inputs and job.alloc_id not in shared]
    rows = []
    for job, split_row in zip(fresh, job_split_rows(fresh), strict=True):
        a = by_id[job.alloc_id]
        high_water, prev = inputs[job.alloc_id]
        rows.append(
            {
                "cluster": a["cluster"],
                "job_id": a["job_id"],
                "start_s": a["start_s"],
                "job_id_raw": a["job_id_raw"],
                "gpus": a["gpus"],
                "elapsed_seconds": a["elapsed_seconds"],
                "state": a["state"],
                "experiment_id": a["experiment_id"],
                "work_class": a["work_class"],
                "result_valid": a["result_valid"],
                "tolerance_s": tolerance_s,
                "event_count": a["event_count"],
                "event_source_max": a["event_source_max"],
                "high_water_in": high_water,
                "previous_in": prev,
                "tracked_json": _encode(job),
                "computed_at": now,
            }
            | {k: v for k, v in split_row.items() if k != "alloc_id"}
        )
    if not rows:
        return
    _claim(session.ledger, rows)
    session.ledger.execute(
        "reconcile/review/tracked_splits_forget",
        clusters=[r["cluster"] for r in rows],
        job_ids=[r["job_id"] for r in rows],
        starts=[r["start_s"] for r in rows],
    )
    session.ledger.insert_rows("tracked_splits", rows)


def _claim(ledger: Ledger, rows: list[dict[str, Any]]) -> None:
    """On the team ledger, claim the (cluster, UTC week of start) of every split about to be
    stored: two reviews storing one allocation's split at once (neither saw a row to replace,
    so neither deletes one) would each insert it, and the next review would read that
    allocation twice; with the claim one of them is retried and reuses the other's."""
    if not ledger.is_team:
        return
    keys = set()
    for row in rows:
        cluster = hashlib.sha256(row["cluster"].encode()).hexdigest()[:16]
        week = (row["start_s"] - (row["start_s"] + 3 * 86400) % (7 * 86400)) // 86400
        keys.add(f"{cluster}:{week}")  # the days since the epoch of that week's Monday (UTC)
    for key in sorted(keys):
        ledger.claim("splits", key)


def _encode(job: TrackedJob) -> str:
    t, s = job.timeline, job.split
    return orjson.dumps(
        [
            [
                t.gpus,
                t.start_s,
                t.elapsed_s,
                t.state,
                t.has_progress,
                t.result_valid,
                t.resumed_from_step,
                t.high_water_step,
                t.steps,
                t.accepted_checkpoints,
                t.app_start_s,
                t.app_end_s,
            ],
            [s.useful_s, s.recovery_s, s.lost_s, s.unverified_s, s.flags],
            job.recovery_caused_by,
            job.max_step,
            job.last_checkpoint_step,
        ]
    ).decode()


def decode_split(text: str) -> Detail:
    """A stored split's timeline, split, cause and last checkpoint (the inverse of _encode)."""
    t, s, caused_by, _max_step, last_checkpoint = orjson.loads(text)
    timeline = JobTimeline(
        *t[:8],
        steps=tuple(map(tuple, t[8])),
        accepted_checkpoints=tuple(map(tuple, t[9])),
        app_start_s=t[10],
        app_end_s=t[11],
    )
    return timeline, Split(*s[:4], tuple(s[4])), caused_by, last_checkpoint


def fill_job_splits(session: Session, tracked: list[TrackedJob]) -> None:
    """Fill the built job_splits from tracked_splits (split_with_cache stored every split),
    in Python only for the jobs that share their job id and start with another."""
    shared = _shared(tracked)
    stored = [job.alloc_id for job in tracked if job.alloc_id not in shared]
    shared_jobs = [job for job in tracked if job.alloc_id in shared]
    if stored:
        session.execute("reconcile/review/job_splits_stored", alloc_ids=stored)
    if shared_jobs:
        session.fill("job_splits", job_split_rows(shared_jobs))


def _shared(tracked: list[TrackedJob]) -> set[int]:
    """alloc_ids of tracked jobs whose job id and start another one has: never stored."""
    # Only a job id two jobs have can be shared: count starts for those few (53k jobs: 0.08 s).
    ids = Counter(job.job_id for job in tracked)
    twice = [job for job in tracked if ids[job.job_id] > 1]
    count = Counter((job.job_id, job.timeline.start_s) for job in twice)
    return {j.alloc_id for j in twice if count[(j.job_id, j.timeline.start_s)] > 1}

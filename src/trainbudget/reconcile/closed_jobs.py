"""The campaign to date's closed tracked jobs, kept per job (migration 021), so a weekly review
stops re-reading their lines, links and splits.

A tracked job is closed by the review of a week it ended before: every line started before the
week and ran no second after its start. From then on its rows in job_accounting, job_billing
and goodput_stretches are the same for every later week reviewed (not in the week, to date
whole), so the review keeps them and the next reviews read those rows (the *_all views)
instead of the job. In each chain (timelines.py) only a prefix in start order is closed, so
the next walk starts from the last closed job's high-water step and job id.

What lands later can change a closed job: a line of it or of a job with its id, a registry
row, progress event or estimate naming it, or a job joining its chain before it. Each review
first finds the earliest start such a landing can change (touched_from.sql) and forgets every
closed job that started from then on; a review of a week before the closed ones reads every job
itself. tests/reconcile/test_history_properties.py holds a grown ledger equal to a fresh one.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from trainbudget.reconcile.split_cache import decode_split
from trainbudget.reconcile.timelines import ChainState, TrackedJob

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger
    from trainbudget.reconcile.session import Session


@dataclass(frozen=True)
class ClosedJobs:
    """Whether this review reads the closed jobs' rows, and each chain's state after them."""

    in_use: bool
    state: tuple[Any, ...] | None = None  # (tolerance_s, has_registry, horizon) as stored
    chains: dict[str, ChainState] = field(default_factory=dict)
    positions: dict[str, int] = field(default_factory=dict)  # chain -> its last chain_pos

    def members(self, ledger: Ledger, chain: str) -> list[TrackedJob]:
        """The closed jobs of `chain` that its walk split, oldest first, each decoded when read."""
        if chain not in self.chains:
            return []
        rows = ledger.query("reconcile/closed/chain_members", chain=chain)
        return [
            TrackedJob.stored(-closed_id, job_id, chain, max_step, partial(decode_split, text))
            for closed_id, job_id, max_step, text in reversed(rows)
        ]


def unused(session: Session) -> ClosedJobs:
    """A review that reads every job itself (everything landed, or a week before the closed):
    its closed_keys and *_all views are built plain (session.reads_closed is false)."""
    session.build("closed_keys")
    return ClosedJobs(False)


def prepare(
    session: Session, week_start: datetime, tolerance_s: int, has_registry: bool
) -> ClosedJobs:
    """Bring the closed jobs up to date with what landed since (tracked_lines caught up first)
    and say whether this review of the weeks from `week_start` reads them."""
    ledger = session.ledger
    stored = ledger.query("reconcile/closed/state")
    state = stored[0] if stored else None
    if state is not None and week_start < state[2]:
        return unused(session)
    if state is not None and state[:2] != (tolerance_s, has_registry):
        _claim(ledger)
        ledger.execute("reconcile/closed/forget_all")
    ledger.execute("reconcile/closed/new_inputs")
    ((landings, touched),) = ledger.query("reconcile/closed/touched_from")
    if landings:
        _claim(ledger)
        if touched is not None:
            _forget_from(ledger, int(touched))
        ledger.execute("reconcile/closed/seen_insert")
    ledger.execute("reconcile/closed/use", in_use=True)
    ((session.reads_closed,),) = ledger.query("reconcile/closed/reads")
    session.build("closed_keys")
    chains, positions = {}, {}
    for chain, high_water, previous, last_pos in ledger.query("reconcile/closed/chain_state"):
        chains[chain] = (int(high_water), previous)
        positions[chain] = int(last_pos)
    return ClosedJobs(True, state, chains, positions)


def _forget_from(ledger: Ledger, t0: int) -> None:
    """Forget every closed allocation starting at or after `t0`, widened until no closed job
    (cluster, job id) is left in part: what stays is a prefix of every chain."""
    while True:
        ((earliest,),) = ledger.query("reconcile/closed/widen", t0=t0)
        if earliest is None or earliest >= t0:
            break
        t0 = int(earliest)
    ledger.execute("reconcile/closed/forget_from", t0=t0)
    ledger.execute("reconcile/closed/forget_gone")


def extend(
    session: Session,
    closed: ClosedJobs,
    tracked: list[TrackedJob],
    week_start: datetime,
    tolerance_s: int,
    has_registry: bool,
) -> None:
    """Close the tracked jobs this review read that ended before `week_start` (after every
    relation the review builds)."""
    if not closed.in_use:
        return
    ledger = session.ledger
    candidates = {
        a: (c, j) for a, c, j in session.query("reconcile/closed/candidates", week_start=week_start)
    }
    rows = _closing_rows(closed, tracked, candidates)
    horizon = closed.state[2] if closed.state is not None else week_start
    if rows:
        horizon = max(horizon, week_start)
    new_state = (tolerance_s, has_registry, horizon)
    if not rows and closed.state is not None and tuple(closed.state) == new_state:
        return
    _claim(ledger)
    if rows:
        ((last_id,),) = ledger.query("reconcile/closed/next_id")
        for offset, row in enumerate(rows, start=1):
            row["closed_id"] = int(last_id) + offset
        ledger.execute("reconcile/closed/closing")
        ledger.insert_rows("closing", rows)
        ledger.execute("reconcile/closed/insert_accounting", now=datetime.now(UTC))
        ledger.execute("reconcile/closed/insert_billing")
        ledger.execute("reconcile/closed/insert_stretches")
    ledger.execute(
        "reconcile/closed/state_replace",
        tolerance_s=tolerance_s,
        has_registry=has_registry,
        horizon=horizon,
    )


def _closing_rows(
    closed: ClosedJobs, tracked: list[TrackedJob], candidates: dict[int, tuple[str, str]]
) -> list[dict[str, Any]]:
    """The candidates that close: a job closes whole, and in each chain only while every
    earlier job of the walk closes too (its successors' splits start from its state)."""
    walked = {job.alloc_id for job in tracked}
    chains: dict[str, list[TrackedJob]] = defaultdict(list)
    for job in tracked:
        chains[job.chain].append(job)
    keys = set(candidates.values())
    while True:
        prefix: dict[int, TrackedJob] = {}
        for members in chains.values():
            for job in members:
                if candidates.get(job.alloc_id) not in keys:
                    break
                prefix[job.alloc_id] = job
        # A job with a split allocation outside its chain's closed prefix stays open whole.
        open_keys = {candidates[a] for a in walked if a in candidates and a not in prefix} & keys
        if not open_keys:
            break
        keys -= open_keys
    rows = []
    for chain, members in chains.items():
        high_water, _ = closed.chains.get(chain, (0, None))
        position = closed.positions.get(chain, 0)
        for job in members:
            if job.alloc_id not in prefix:
                break
            position += 1
            if job.max_step is not None:  # as split_chains carries it
                high_water = max(high_water, job.max_step)
            rows.append(_row(job.alloc_id, chain, position, high_water))
    rows += [
        _row(alloc_id, None, None, None)
        for alloc_id, key in candidates.items()
        if key in keys and alloc_id not in walked
    ]
    return rows


def _row(alloc_id: int, chain: str | None, position: int | None, high_water: int | None):
    return {
        "alloc_id": alloc_id,
        "closed_id": 0,
        "chain": chain,
        "chain_pos": position,
        "walk_high_water": high_water,
    }


def _claim(ledger: Ledger) -> None:
    """On the team ledger, two reviews changing the closed jobs at once conflict, and one is
    retried (each would otherwise close the same jobs, or keep one another landing changed)."""
    ledger.claim("closed", "jobs")

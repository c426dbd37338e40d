"""A review on a ledger grown week by week equals one from scratch (hypothesis, issue 28).

Random four-week histories of a small campaign (main, retry and evaluation jobs of two
experiments, untracked jobs, jobs running across a week boundary, now and then a requeued job
id) are landed week by week on one ledger, each week reviewed as a Monday run does, so every
cache the review keeps (week_allocations, tracked_splits, tracked_lines, the closed jobs) is
filled from the earlier weeks. Some progress events and
some sacct lines land late: with a later week's drop, for a job of an earlier week, which
re-splits its chain and changes the earlier weeks' figures. After every week, that ledger's
review of the week must equal, figure by figure, the review of the same week on a fresh ledger
that landed the same files and keeps nothing from an earlier review. (It found the events of one
job in one second read in two orders, the whole list against a few jobs' events: fixed in
progress_event_list.sql and progress_events_of.sql.) Every week has one untracked job of its
own, so no drop is empty.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from tempfile import TemporaryDirectory

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from trainbudget.ledger import Ledger
from trainbudget.weekly import WeeklyInputs, land_records, prepare_week, reconcile

from .conftest import HEADER, sacct_line
from .test_split_cache import PLAN, _figures

MONDAY = datetime(2026, 11, 16, tzinfo=UTC)  # 2026-W47
WEEKS = ("2026-W47", "2026-W48", "2026-W49", "2026-W50")
H = 3600
# (experiment, class) of the tracked jobs; None: an untracked job
ROLES = [("exp-a", "main"), ("exp-a", "retry"), ("exp-a", "evaluation"), ("exp-b", "main"),
         ("exp-b", "retry"), None]  # fmt: skip
STATES = ["COMPLETED", "FAILED", "NODE_FAIL", "TIMEOUT", "CANCELLED"]


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S")


@st.composite
def histories(draw) -> dict:
    """Jobs (week, start, hours, gpus, state, role, events) and which drop each part lands in."""
    jobs = []
    for n in range(draw(st.integers(3, 9))):
        week = draw(st.integers(0, len(WEEKS) - 1))
        start = MONDAY + timedelta(weeks=week, hours=draw(st.integers(0, 7 * 24 - 1)))
        hours = draw(st.integers(1, 40))  # a job started on Sunday runs into the next week
        role = draw(st.sampled_from(ROLES))
        events = []
        if role is not None:
            step = draw(st.integers(0, 3)) * 100
            events.append((0, "start", {"resumed_from_step": step}))
            for _ in range(draw(st.integers(0, 4))):
                at = draw(st.integers(1, hours * 60 - 1))  # minutes into the job
                step += draw(st.integers(1, 3)) * 50
                if draw(st.booleans()):
                    events.append((at, "checkpoint", {"step": step, "accepted": True}))
                else:
                    events.append((at, "step", {"step": step}))
            if draw(st.booleans()):
                events.append((hours * 60, "end", {}))
        # The drop each part lands with: its own week's, or (late) a later one.
        late = st.integers(week, len(WEEKS) - 1)
        # Now and then a requeue: the id of an earlier job, started at another time (an event
        # of the id belongs to the one started last before it; neither can be closed alone).
        ids = [j["id"] for j in jobs if j["start"] != start]
        requeue = bool(ids) and draw(st.integers(0, 5)) == 0
        jobs.append({
            "id": draw(st.sampled_from(ids)) if requeue else str(300 + n),
            "week": week, "start": start, "hours": hours,
            "gpus": draw(st.sampled_from([1, 2, 4, 8])), "state": draw(st.sampled_from(STATES)),
            "role": role, "sacct_drop": draw(late) if draw(st.integers(0, 4)) == 0 else week,
            "events": [(at, kind, extra, draw(late) if draw(st.integers(0, 3)) == 0 else week)
                       for at, kind, extra in events],
        })  # fmt: skip
    return {"jobs": jobs}


def _drops(folder: Path, history: dict) -> list[dict[str, Path]]:
    """One (sacct, registry, progress) drop a week; the registry names every tracked job."""
    drops = []
    for index, _ in enumerate(WEEKS):
        noon = MONDAY + timedelta(weeks=index, days=2, hours=12)  # an untracked job a week
        lines = [sacct_line(f"90{index}", submit=_iso(noon), start=_iso(noon),
                            end=_iso(noon + timedelta(hours=1)), elapsed_raw=str(H),
                            tres="cpu=8,gres/gpu=1,node=1")]  # fmt: skip
        events = []
        for job in history["jobs"]:
            start, seconds = job["start"], job["hours"] * H
            if job["sacct_drop"] == index:
                lines.append(sacct_line(
                    job["id"], job["state"], submit=_iso(start), start=_iso(start),
                    end=_iso(start + timedelta(seconds=seconds)), elapsed="",
                    elapsed_raw=str(seconds), tres=f"cpu=8,gres/gpu={job['gpus']},node=1",
                ))  # fmt: skip
            for at, kind, extra, drop in job["events"]:
                if drop == index:
                    t = (start + timedelta(minutes=at)).strftime("%Y-%m-%dT%H:%M:%SZ")
                    events.append({"job_id": job["id"], "time": t, "event": kind, **extra})
        drop = {"sacct": folder / f"w{index}.psv"}
        drop["sacct"].write_text("\n".join([HEADER, *lines]) + "\n")
        if events:
            progress = folder / f"w{index}.jsonl"
            progress.write_text("".join(json.dumps(e) + "\n" for e in events))
            drop["progress"] = progress
        drops.append(drop)
    registry = folder / "registry.csv"
    registry.write_text("job_id,experiment_id,work_class\n" + "".join(
        f"{j['id']},{j['role'][0]},{j['role'][1]}\n" for j in history["jobs"] if j["role"]
    ))  # fmt: skip
    drops[0]["registry"] = registry
    return drops


def _inputs(week: str, drop: dict[str, Path]) -> WeeklyInputs:
    return WeeklyInputs(sacct=[drop["sacct"]], registry=drop.get("registry"),
                        progress=drop.get("progress"), plan=PLAN, week=week)  # fmt: skip


def _from_scratch(folder: Path, drops: list[dict[str, Path]], upto: int) -> dict:
    """Week `upto`'s review on a fresh ledger that landed drops 0..upto and reviewed nothing."""
    with Ledger.open(folder / f"scratch{upto}.duckdb") as book:
        for drop in drops[: upto + 1]:
            land_records(book, prepare_week(_inputs(WEEKS[upto], drop)))
        result = reconcile(book, WeeklyInputs(sacct=[], plan=PLAN, week=WEEKS[upto]), None)
        return _figures(result) | {"jobs": _jobs(book)}


def _jobs(book: Ledger) -> dict[str, list[tuple]]:
    """The review's per-job rows: the week's (what the jobs JSON prints) in report order, and
    the campaign to date's (job_accounting_all: a grown ledger reads its closed jobs' rows,
    closed_jobs.py) in a fixed order. The alloc_ids, which number only the jobs read, are left
    out."""
    return {
        "week": book.con.execute(
            "SELECT * EXCLUDE (alloc_id) FROM job_accounting WHERE in_week ORDER BY alloc_id"
        ).fetchall(),
        "to_date": book.con.execute(
            "SELECT * EXCLUDE (alloc_id) FROM job_accounting_all ORDER BY ALL"
        ).fetchall(),
    }


# No shrinking: one example is eight reviews and four fresh ledgers, and a shrink ran past five
# minutes; a failure prints its whole history (and the seed to run it again).
@pytest.mark.slow  # about a minute (64 reviews): make test runs it, make test-fast does not
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(histories())
def test_a_review_grown_week_by_week_equals_one_from_scratch(history) -> None:
    with TemporaryDirectory() as tmp:
        folder = Path(tmp)
        drops = _drops(folder, history)
        with Ledger.open(folder / "grown.duckdb") as book:
            for index, week in enumerate(WEEKS):
                grown = _figures(reconcile(book, _inputs(week, drops[index]), None))
                grown["jobs"] = _jobs(book)
                assert grown == _from_scratch(folder, drops, index), week

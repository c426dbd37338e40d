"""The closed tracked jobs (closed_jobs.py, migration 021), on test_split_cache.py's chain.

Worked by hand from that history (exp-main; 4 GPUs unless said):
  201  Tue 17 Nov 10:00-13:00 (W47), FAILED: useful 2 h, lost 1 h; reached step 300.
  202  Tue 24 Nov 10:00-13:00 (W48): recovery 0.5 h, useful 2.5 h; reached step 500.
  204  Sun 29 Nov 22:00 (W48) - Mon 30 Nov 02:00 (W49), 2 GPUs; 203 Tue 1 Dec (W49).
The review of W48 (from Mon 23 Nov) closes 201: it ended before the week, and is first in its
chain. The review of W49 (from Mon 30 Nov) closes 202 after it; 204 ran into W49 and stays
open, and so does 203. So after W49 the closed rows are 201 (12 GPU-hours: useful 8, lost 4)
and 202 (12: useful 10, recovery 2), the chain's walk at step 500 after 202, and the W49 review
did not read 201 again. A late event for 201 (step 400 at 12:45) forgets both (they start
at or after 201) and the review closes them again, 202 re-split: recovery 2 h, useful 1 h
(GPU-hours 8 and 4). The untracked jobs 601 and 602 are never closed (week_allocations counts
them).
"""

from __future__ import annotations

from pathlib import Path

from trainbudget.ledger import Ledger
from trainbudget.weekly import WeeklyInputs, land_records, prepare_week, reconcile

from .conftest import HEADER, sacct_line
from .test_split_cache import (
    PLAN,
    _all_at_once,
    _event,
    _figures,
    _inputs,
    _job,
    _late,
    _week_by_week,
    _weeks,
)

H = 3600
# A job on 2 GPUs from Mon 16 Nov 00:00 (W47) for 10 h: the sacct_line fields.
_MONDAY_10H = {"submit": "2026-11-16T00:00:00", "start": "2026-11-16T00:00:00",
               "end": "2026-11-16T10:00:00", "elapsed_raw": "36000",
               "tres": "cpu=8,gres/gpu=2,node=1"}  # fmt: skip


def _closed(book: Ledger) -> dict[str, tuple]:
    """job id → (allocated, useful, recovery, lost GPU-seconds to date, chain position, the
    chain's high-water step after it)."""
    rows = book.con.execute(
        "SELECT job_id, to_date_allocated_gpu_seconds, to_date_useful_gpu_seconds, "
        "to_date_recovery_gpu_seconds, to_date_lost_gpu_seconds, chain_pos, walk_high_water "
        "FROM closed_accounting"
    ).fetchall()
    return {r[0]: tuple(r[1:]) for r in rows}


def _read(book: Ledger) -> set[str]:
    """The job ids the last review read (review_keys)."""
    return {r[0] for r in book.con.execute("SELECT job_id FROM review_keys").fetchall()}


def test_the_jobs_that_ended_before_the_week_close_in_chain_order(tmp_path: Path) -> None:
    drops = _weeks(tmp_path)
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        reconcile(book, _inputs("2026-W47", [drops[0]["sacct"]], drops[0]["registry"],
                                drops[0]["progress"]), None)  # fmt: skip
        assert _closed(book) == {}
        reconcile(book, _inputs("2026-W48", [drops[1]["sacct"]], None, drops[1]["progress"]), None)
        assert _closed(book) == {"201": (12 * H, 8 * H, 0, 4 * H, 1, 300)}
        result = reconcile(book, _inputs("2026-W49", [drops[2]["sacct"]], None,
                                         drops[2]["progress"]), None)  # fmt: skip
        assert _closed(book) == {
            "201": (12 * H, 8 * H, 0, 4 * H, 1, 300),
            "202": (12 * H, 10 * H, 2 * H, 0, 2, 500),
        }
        # 201 from its closed row, 601 and 602 by week; 202 read, then closed at the end.
        assert _read(book) == {"202", "204", "203"}
    # The figures of the W49 review are a fresh ledger's, which closes nothing.
    assert _figures(result) == _all_at_once(tmp_path, drops)[0]


def test_a_late_event_forgets_the_closed_jobs_from_its_job_on(tmp_path: Path) -> None:
    drops = _weeks(tmp_path)
    late = _late(tmp_path)
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        _week_by_week(tmp_path, book, drops)
        result = reconcile(book, _inputs("2026-W49", [], progress=late), None)
        assert _read(book) == {"201", "202", "204", "203"}  # forgotten, so read again
        assert _closed(book) == {
            "201": (12 * H, 8 * H, 0, 4 * H, 1, 400),
            "202": (12 * H, 4 * H, 8 * H, 0, 2, 500),
        }
    assert _figures(result) == _all_at_once(tmp_path, drops, [late])[0]


def test_a_review_of_a_week_before_the_closed_ones_reads_every_job(tmp_path: Path) -> None:
    """After W49 (202 closed at W49's start), W48 again: 202 ran in it, so the closed rows do
    not hold for it; that review reads every job itself and leaves the closed rows as they are."""
    drops = _weeks(tmp_path)
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        _week_by_week(tmp_path, book, drops)
        closed = _closed(book)
        again = reconcile(book, _inputs("2026-W48", []), None)
        assert {"201", "202"} <= _read(book)
        assert _closed(book) == closed
    with Ledger.open(tmp_path / "fresh.duckdb") as fresh:
        for drop in drops:
            inputs = _inputs("2026-W48", [drop["sacct"]], drop.get("registry"), drop["progress"])
            land_records(fresh, prepare_week(inputs))
        assert _figures(reconcile(fresh, _inputs("2026-W48", []), None)) == _figures(again)


def test_a_chain_closes_only_up_to_its_first_open_job(tmp_path: Path) -> None:
    """exp-p (main): 301 starts Sat 21 Nov 10:00 (W47) on 4 GPUs and runs 60 h, to Mon 23 Nov
    22:00 (W48), reaching step 900; 302 starts after it, Sat 12:00, and ends at 14:00, in W47.
    301's line lands with W48's drop. The review of W48 may not close 302, though it ended
    before the week: 301, before it in the chain, ran into W48, and 302's split starts from
    301's high-water step (900) and blames 301. Closing 302 alone would start the next walk
    after 302, with 301 still to come: 301 would then be split from its own high water. The
    review of W49 closes both, in chain order."""
    lines = {
        "w47": [_job("302", 2, "2026-11-21T12:00:00", 2 * H)],
        "w48": [_job("301", 4, "2026-11-21T10:00:00", 60 * H)],
        "w49": [_job("901", 1, "2026-12-01T10:00:00", H)],  # untracked: a file says something
    }
    events = {
        "w47": [_event("302", "2026-11-21T12:00:00Z", "start", resumed_from_step=0),
                _event("302", "2026-11-21T13:00:00Z", "step", step=950),
                _event("302", "2026-11-21T14:00:00Z", "end")],
        "w48": [_event("301", "2026-11-21T10:00:00Z", "start", resumed_from_step=0),
                _event("301", "2026-11-21T11:00:00Z", "step", step=100),
                _event("301", "2026-11-23T20:00:00Z", "step", step=900),
                _event("301", "2026-11-23T22:00:00Z", "end")],
        "w49": [],
    }  # fmt: skip
    drops = []
    for week in ("w47", "w48", "w49"):
        (tmp_path / f"{week}.psv").write_text("\n".join([HEADER, *lines[week]]) + "\n")
        drop = {"sacct": tmp_path / f"{week}.psv"}
        if events[week]:
            (tmp_path / f"{week}.jsonl").write_text("".join(events[week]))
            drop["progress"] = tmp_path / f"{week}.jsonl"
        drops.append(drop)
    registry = tmp_path / "registry.csv"
    registry.write_text("job_id,experiment_id,work_class\n301,exp-p,main\n302,exp-p,main\n")
    drops[0]["registry"] = registry
    weeks = ("2026-W47", "2026-W48", "2026-W49")
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        grown = []
        for week, drop in zip(weeks, drops, strict=True):
            result = reconcile(book, _inputs(week, [drop["sacct"]], drop.get("registry"),
                                             drop.get("progress")), None)  # fmt: skip
            grown.append((_figures(result), _closed(book)))
    assert grown[1][1] == {}  # 302 ended in W47, but 301 before it is open
    assert set(grown[2][1]) == {"301", "302"}
    assert [grown[2][1][j][4] for j in ("301", "302")] == [1, 2]  # the chain's order
    for index, week in enumerate(weeks):
        with Ledger.open(tmp_path / f"fresh{index}.duckdb") as fresh:
            for drop in drops[: index + 1]:
                inputs = _inputs(week, [drop["sacct"]], drop.get("registry"), drop.get("progress"))
                land_records(fresh, prepare_week(inputs))
            assert grown[index][0] == _figures(reconcile(fresh, _inputs(week, []), None)), week


def _weekly(book: Ledger, week: str, sacct: list[Path], **inputs) -> object:
    """Land `sacct` (and the other inputs) and review `week`, as a Monday run does."""
    land_records(book, prepare_week(WeeklyInputs(sacct=sacct, week=week, **inputs)))
    return reconcile(book, WeeklyInputs(sacct=[], week=week, plan=PLAN), None)


def _two_runs(job_id: str) -> str:
    """Progress events naming `job_id` for two runs: Mon 16 Nov 00:01-10:00 (checkpoint at
    step 300) and Wed 2 Dec 00:01-05:00 (step 50)."""
    return (
        _event(job_id, "2026-11-16T00:01:00Z", "start", resumed_from_step=0)
        + _event(job_id, "2026-11-16T05:00:00Z", "checkpoint", step=300, accepted=True)
        + _event(job_id, "2026-11-16T10:00:00Z", "end")
        + _event(job_id, "2026-12-02T00:01:00Z", "start", resumed_from_step=0)
        + _event(job_id, "2026-12-02T02:00:00Z", "step", step=50)
        + _event(job_id, "2026-12-02T05:00:00Z", "end")
    )


def test_a_job_sharing_its_id_with_a_later_job_stays_open(tmp_path: Path) -> None:
    """Job 500 on cluster a (Mon 16 Nov, W47) and job 500 on cluster b (Wed 2 Dec, W49), both
    named (exp-a, exp-b) and both landed before W48 is reviewed; the events say only "500".
    From scratch, W49's review hands each event to the 500 that started last before it, so
    a's events stay a's. Had W48's review closed a:500, W49's would read b:500 alone and give
    it a's events too. So W48 closes nothing: b:500, though it starts after W48, shares the id."""
    later = {"submit": "2026-12-02T00:00:00", "start": "2026-12-02T00:00:00",
             "end": "2026-12-02T05:00:00", "elapsed_raw": "18000",
             "tres": "cpu=8,gres/gpu=2,node=1"}  # fmt: skip
    (tmp_path / "a.psv").write_text(f"{HEADER}\n{sacct_line('500', **_MONDAY_10H)}\n")
    (tmp_path / "b.psv").write_text(f"{HEADER}\n{sacct_line('500', 'FAILED', **later)}\n")
    registry = tmp_path / "registry.csv"
    registry.write_text(
        "job_id,cluster,experiment_id,work_class\n500,a,exp-a,main\n500,b,exp-b,main\n"
    )
    progress = tmp_path / "events.jsonl"
    progress.write_text(_two_runs("500"))

    def land(book: Ledger) -> None:
        _weekly(book, "2026-W48", [tmp_path / "a.psv"], cluster="a", registry=registry,
                progress=progress)  # fmt: skip
        _weekly(book, "2026-W48", [tmp_path / "b.psv"], cluster="b")

    with Ledger.open(tmp_path / "grown.duckdb") as book:
        land(book)
        assert _closed(book) == {}
        grown = _figures(reconcile(book, _inputs("2026-W49", []), None))
    with Ledger.open(tmp_path / "fresh.duckdb") as fresh:
        for path, cluster in ((tmp_path / "a.psv", "a"), (tmp_path / "b.psv", "b")):
            extra = {"registry": registry, "progress": progress} if cluster == "a" else {}
            land_records(fresh, prepare_week(WeeklyInputs(sacct=[path], cluster=cluster, **extra)))
        assert _figures(reconcile(fresh, _inputs("2026-W49", []), None)) == grown


def test_a_job_whose_jobidraw_a_later_job_has_stays_open(tmp_path: Path) -> None:
    """The same as above through JobIDRaw: array task 9_1 (JobIDRaw 510, Mon 16 Nov, W47) and
    job 510 (Wed 2 Dec, W49) on one cluster, both named and landed before W48 is reviewed; the
    events say "510". 9_1 goes by 510 too, so W48 closes nothing (counting only the job ids
    as printed, 9_1 and 510, would close it), and W49 equals a review from scratch."""
    later = {"submit": "2026-12-02T00:00:00", "start": "2026-12-02T00:00:00",
             "end": "2026-12-02T05:00:00", "elapsed_raw": "18000",
             "tres": "cpu=8,gres/gpu=2,node=1"}  # fmt: skip
    sacct = tmp_path / "sacct.psv"
    sacct.write_text(
        f"{HEADER}\n{sacct_line('9_1', raw='510', **_MONDAY_10H)}\n"
        f"{sacct_line('510', 'FAILED', **later)}\n"
    )
    registry = tmp_path / "registry.csv"
    registry.write_text("job_id,experiment_id,work_class\n9_1,exp-a,main\n510,exp-b,main\n")
    progress = tmp_path / "events.jsonl"
    progress.write_text(_two_runs("510"))
    inputs = {"registry": registry, "progress": progress}
    with Ledger.open(tmp_path / "grown.duckdb") as book:
        _weekly(book, "2026-W48", [sacct], **inputs)
        assert _closed(book) == {}
        grown = _figures(reconcile(book, _inputs("2026-W49", []), None))
    with Ledger.open(tmp_path / "fresh.duckdb") as fresh:
        land_records(fresh, prepare_week(WeeklyInputs(sacct=[sacct], **inputs)))
        assert _figures(reconcile(fresh, _inputs("2026-W49", []), None)) == grown


def test_a_line_that_replaces_a_closed_jobs_line_forgets_it(tmp_path: Path) -> None:
    """Array task 9_1 (JobIDRaw 10, Mon 16 Nov, 2 GPUs × 10 h), named only as 10, closes at
    W48's review. A re-export without the JobIDRaw column replaces its line: the job is 9_1
    alone now, which no name links. Its copy leaves tracked_lines and the new line is not
    copied; the closed row must go all the same (the new line has its job id), so W49 counts
    9_1 as untracked, 20 GPU-hours, as a fresh ledger does."""
    filler = sacct_line("777", submit="2026-11-30T00:00:00", start="2026-11-30T00:00:00",
                        end="2026-11-30T01:00:00", tres="cpu=8,gres/gpu=1,node=1")  # fmt: skip
    first = tmp_path / "first.psv"
    first.write_text(f"{HEADER}\n{sacct_line('9_1', raw='10', **_MONDAY_10H)}\n{filler}\n")
    fields = sacct_line("9_1", **_MONDAY_10H).split("|")
    del fields[1]  # JobIDRaw
    again = tmp_path / "again.psv"
    again.write_text(HEADER.replace("JobIDRaw|", "") + "\n" + "|".join(fields) + "\n")
    registry = tmp_path / "registry.csv"
    registry.write_text("job_id,experiment_id,work_class\n10,exp-a,main\n")
    progress = tmp_path / "events.jsonl"
    progress.write_text(_event("10", "2026-11-16T00:01:00Z", "start", resumed_from_step=0))
    with Ledger.open(tmp_path / "grown.duckdb") as book:
        _weekly(book, "2026-W48", [first], registry=registry, progress=progress)
        assert set(_closed(book)) == {"9_1"}
        grown = _figures(_weekly(book, "2026-W49", [again]))
        assert _closed(book) == {}
    actual = {r["work_class"]: r["actual_gpu_seconds"] for r in grown["variance"]["by_work_class"]}
    with Ledger.open(tmp_path / "fresh.duckdb") as fresh:
        land_records(fresh, prepare_week(WeeklyInputs(sacct=[first], registry=registry,
                                                      progress=progress)))  # fmt: skip
        land_records(fresh, prepare_week(WeeklyInputs(sacct=[again])))
        assert _figures(reconcile(fresh, _inputs("2026-W49", []), None)) == grown
    # To the end of W49: 9_1's 2 × 36,000 and 777's 3,600 GPU-seconds, all untracked.
    assert actual.get("main", 0) == 0 and actual["untracked"] == 2 * 36_000 + 3_600


def test_a_steps_only_job_closes_by_its_built_allocation(tmp_path: Path) -> None:
    """Job 800 (main), exported with steps only: 800.batch submitted Sun 22 Nov 00:00 with no
    Start and 20 h of Elapsed (as a line it ends at Submit + Elapsed, Sun 20:00), and 800.0 on
    Sun 22:00-23:00. Both lines end before Mon 23 Nov, but its built allocation runs from the
    earliest step start, Sun 22:00, for the longest Elapsed, 20 h: to Mon 18:00, inside W48.
    So W48's review does not close it (it is in the week: 2 GPUs × 18 h of it); W49's closes
    it, to date whole (2 × 20 h). Closed by its lines at W48, it kept in_week true and W49's
    review stopped on a broken identity. The weeks before W49 come from week_allocations,
    which counts such a job by its lines (the caveat under "Cost proportional to the week",
    as the code before the closed jobs did): those two figures are left out of the equality."""
    tres = "cpu=8,gres/gpu=2,node=1"
    sacct = tmp_path / "steps.psv"
    sacct.write_text("\n".join([
        HEADER,
        sacct_line("800.batch", raw="800.batch", submit="2026-11-22T00:00:00", start="Unknown",
                   end="Unknown", elapsed="", elapsed_raw=str(20 * H), tres=tres),
        sacct_line("800.0", raw="800.0", submit="2026-11-22T00:00:00",
                   start="2026-11-22T22:00:00", end="2026-11-22T23:00:00", elapsed="",
                   elapsed_raw=str(H), tres=tres),
        sacct_line("900", submit="2026-11-25T00:00:00", start="2026-11-25T00:00:00",
                   end="2026-11-25T01:00:00", tres=tres),
        sacct_line("901", submit="2026-12-02T00:00:00", start="2026-12-02T00:00:00",
                   end="2026-12-02T01:00:00", tres=tres),
    ]) + "\n")  # fmt: skip
    registry = tmp_path / "registry.csv"
    registry.write_text("job_id,experiment_id,work_class\n800,exp-a,main\n")
    with Ledger.open(tmp_path / "grown.duckdb") as book:
        _weekly(book, "2026-W48", [sacct], registry=registry)
        assert _closed(book) == {}
        week = book.con.execute(
            "SELECT allocated_gpu_seconds FROM job_accounting WHERE job_id = '800'"
        ).fetchone()
        assert week == (2 * 18 * H,)
        grown = _figures(reconcile(book, _inputs("2026-W49", []), None))
        assert set(_closed(book)) == {"800"}
        assert _closed(book)["800"][0] == 2 * 20 * H
    with Ledger.open(tmp_path / "fresh.duckdb") as fresh:
        land_records(fresh, prepare_week(WeeklyInputs(sacct=[sacct], registry=registry)))
        scratch = _figures(reconcile(fresh, _inputs("2026-W49", []), None))
    by_lines = ("accounting_by_week", "variance")  # week_allocations' steps-only caveat
    assert {k: v for k, v in grown.items() if k not in by_lines} == {
        k: v for k, v in scratch.items() if k not in by_lines
    }

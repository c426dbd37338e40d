"""A review that reuses the stored splits (tracked_splits) equals one computed from scratch.

One main-run chain (exp-main, worked by hand with accounting.py's rules), landed week by week:
  201  W47 Tue 17 Nov 10:00, 4 GPUs × 3 h, FAILED; checkpoint 200 at 12:00, step 300 at 12:30:
       useful 2 h, lost 1 h.
  202  W48 Tue 24 Nov 10:00, 4 × 3 h, COMPLETED, resumed from 200; the chain had reached 300,
       regained at step 300 (10:30): recovery 0.5 h, useful 2.5 h.
  204  Sun 29 Nov 22:00 (W48) → Mon 30 Nov 02:00 (W49), 2 × 4 h, COMPLETED, resumed from 500
       (high water 500), step 550 at 23:00: recovery 1 h, useful 3 h. Its first events land
       with W48, the rest and its sacct line with W49.
  203  W49 Tue 1 Dec 10:00, 4 × 2 h, COMPLETED, resumed from 700 (204 reached 700), step 800
       at 11:00: recovery 1 h, useful 1 h.
To the end of W49 the main run has allocated 12 + 12 + 8 + 8 = 40 GPU-hours: useful
8 + 10 + 6 + 4 = 28, recovery 2 + 2 + 4 = 8, lost 4. A late event for 201 (step 400 at
12:45) raises 202's target to 400, first reached at 12:00 (step 500): 202 becomes recovery
2 h, useful 1 h, so useful 28 − 6 = 22 and recovery 8 + 6 = 14; the others are unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

from trainbudget.ledger import Ledger
from trainbudget.weekly import WeeklyInputs, land_records, prepare_week, reconcile

from .conftest import HEADER, sacct_line

REPO = Path(__file__).resolve().parents[2]
PLAN = REPO / "examples" / "demo-7b.plan.yaml"
H = 3600


def _job(
    job_id: str, gpus: int, start: str, seconds: int, state: str = "COMPLETED",
    raw: str | None = None,
) -> str:  # fmt: skip
    from datetime import datetime, timedelta

    end = (datetime.fromisoformat(start) + timedelta(seconds=seconds)).isoformat()
    return sacct_line(job_id, state, raw=raw, submit=start, start=start, end=end, elapsed="",
                      elapsed_raw=str(seconds), tres=f"cpu=8,gres/gpu={gpus},node=1")  # fmt: skip


def _event(job_id: str, time: str, event: str, **extra: object) -> str:
    return json.dumps({"job_id": job_id, "time": time, "event": event, **extra}) + "\n"


def _weeks(folder: Path) -> list[dict[str, Path]]:
    """The three weekly drops (sacct, registry, progress), written to `folder`."""
    sacct = {
        "w47": [_job("201", 4, "2026-11-17T10:00:00", 3 * H, "FAILED"),
                _job("601", 8, "2026-11-18T10:00:00", 2 * H)],
        "w48": [_job("202", 4, "2026-11-24T10:00:00", 3 * H),
                _job("602", 8, "2026-11-25T10:00:00", H)],
        "w49": [_job("204", 2, "2026-11-29T22:00:00", 4 * H),
                _job("203", 4, "2026-12-01T10:00:00", 2 * H)],
    }  # fmt: skip
    progress = {
        "w47": [_event("201", "2026-11-17T10:00:00Z", "start", resumed_from_step=0),
                _event("201", "2026-11-17T12:00:00Z", "checkpoint", step=200, accepted=True),
                _event("201", "2026-11-17T12:30:00Z", "step", step=300)],
        "w48": [_event("202", "2026-11-24T10:00:00Z", "start", resumed_from_step=200),
                _event("202", "2026-11-24T10:30:00Z", "step", step=300),
                _event("202", "2026-11-24T12:00:00Z", "step", step=500),
                _event("202", "2026-11-24T13:00:00Z", "end"),
                _event("204", "2026-11-29T22:00:00Z", "start", resumed_from_step=500),
                _event("204", "2026-11-29T23:00:00Z", "step", step=550)],
        "w49": [_event("204", "2026-11-30T01:00:00Z", "step", step=700),
                _event("204", "2026-11-30T02:00:00Z", "end"),
                _event("203", "2026-12-01T10:00:00Z", "start", resumed_from_step=700),
                _event("203", "2026-12-01T11:00:00Z", "step", step=800),
                _event("203", "2026-12-01T12:00:00Z", "end")],
    }  # fmt: skip
    drops = []
    for week in ("w47", "w48", "w49"):
        (folder / f"{week}.psv").write_text("\n".join([HEADER, *sacct[week]]) + "\n")
        (folder / f"{week}.jsonl").write_text("".join(progress[week]))
        drops.append({"sacct": folder / f"{week}.psv", "progress": folder / f"{week}.jsonl"})
    registry = folder / "registry.csv"
    registry.write_text(
        "job_id,experiment_id,work_class\n"
        "201,exp-main,main\n202,exp-main,main\n203,exp-main,main\n204,exp-main,main\n"
    )
    drops[0]["registry"] = registry
    return drops


def _late(folder: Path) -> Path:
    late = folder / "late.jsonl"
    late.write_text(_event("201", "2026-11-17T12:45:00Z", "step", step=400))
    return late


def _inputs(week: str, sacct: list[Path], registry=None, progress=None) -> WeeklyInputs:
    return WeeklyInputs(sacct=sacct, registry=registry, progress=progress, plan=PLAN, week=week)


def _figures(result) -> dict[str, object]:
    """Everything the review hands to the gates and the report, but the ledger handles and
    the jobs it split (a grown ledger does not split its closed jobs again: closed_jobs.py)."""
    r = result.review
    return {
        "totals": r.totals, "variance": r.variance, "diagnosis": r.diagnosis,
        "breakdown": r.breakdown, "audit": r.audit, "failure_fraction": r.failure_fraction,
        "top_jobs": r.top_jobs, "failed_jobs": r.failed_jobs,
        "accounting_by_week": r.accounting_by_week, "goodput": r.goodput,
        "warnings": r.warnings,
    }  # fmt: skip


def _main_to_date(book: Ledger) -> tuple[int, int, int, int]:
    """(allocated, useful, recovery, lost) GPU-seconds of the main run to the week's end."""
    return book.con.execute(
        "SELECT sum(to_date_allocated_gpu_seconds), sum(to_date_useful_gpu_seconds), "
        "sum(to_date_recovery_gpu_seconds), sum(to_date_lost_gpu_seconds) "
        "FROM job_accounting_all WHERE work_class = 'main'"
    ).fetchone()


def _computed(book: Ledger) -> dict[str, object]:
    rows = book.con.execute("SELECT job_id, computed_at FROM tracked_splits").fetchall()
    return dict(rows)


def _week_by_week(folder: Path, book: Ledger, drops: list[dict[str, Path]]):
    result = None
    for week, drop in zip(("2026-W47", "2026-W48", "2026-W49"), drops, strict=True):
        result = reconcile(
            book, _inputs(week, [drop["sacct"]], drop.get("registry"), drop["progress"]), None
        )
    return result


def _all_at_once(folder: Path, drops: list[dict[str, Path]], extra: list[Path] = ()):
    """A fresh ledger: every file landed, then W49 reviewed once, with nothing stored."""
    with Ledger.open(folder / "fresh.duckdb") as book:
        for drop in drops:
            inputs = _inputs("2026-W49", [drop["sacct"]], drop.get("registry"), drop["progress"])
            land_records(book, prepare_week(inputs))
        for path in extra:
            land_records(book, prepare_week(_inputs("2026-W49", [], progress=path)))
        result = reconcile(book, _inputs("2026-W49", []), None)
        return _figures(result), _main_to_date(book)


def _again_from_scratch(book: Ledger) -> dict[str, object]:
    """The same ledger's W49 review with the stored splits dropped."""
    book.con.execute("DELETE FROM tracked_splits")
    return _figures(reconcile(book, _inputs("2026-W49", []), None))


def test_a_review_from_stored_splits_equals_one_from_scratch(tmp_path: Path) -> None:
    drops = _weeks(tmp_path)
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        reconcile(book, _inputs("2026-W47", [drops[0]["sacct"]], drops[0]["registry"],
                                drops[0]["progress"]), None)  # fmt: skip
        reconcile(book, _inputs("2026-W48", [drops[1]["sacct"]], None, drops[1]["progress"]), None)
        before = _computed(book)
        cached = reconcile(book, _inputs("2026-W49", [drops[2]["sacct"]], None,
                                         drops[2]["progress"]), None)  # fmt: skip
        after = _computed(book)
        cached_main = _main_to_date(book)
        assert _again_from_scratch(book) == _figures(cached)
    # 201 and 202 were split by earlier reviews and reused; 204 and 203 split now.
    assert after["201"] == before["201"] and after["202"] == before["202"]
    assert set(after) == {"201", "202", "203", "204"}
    assert cached_main == (40 * H, 28 * H, 8 * H, 4 * H)
    scratch, scratch_main = _all_at_once(tmp_path, drops)
    assert _figures(cached) == scratch
    assert scratch_main == cached_main


def test_late_progress_for_an_earlier_week_changes_the_later_splits(tmp_path: Path) -> None:
    drops = _weeks(tmp_path)
    late = _late(tmp_path)
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        _week_by_week(tmp_path, book, drops)
        assert _main_to_date(book) == (40 * H, 28 * H, 8 * H, 4 * H)
        before = _computed(book)
        result = reconcile(book, _inputs("2026-W49", [], progress=late), None)
        after = _computed(book)
        main = _main_to_date(book)
        assert _again_from_scratch(book) == _figures(result)
    assert main == (40 * H, 22 * H, 14 * H, 4 * H)
    # 201 has a new event and 202 a new high-water step: split again; 204 and 203 reused.
    assert after["201"] != before["201"] and after["202"] != before["202"]
    assert after["203"] == before["203"] and after["204"] == before["204"]
    scratch, scratch_main = _all_at_once(tmp_path, drops, [late])
    assert _figures(result) == scratch
    assert scratch_main == main


def _late_job(folder: Path) -> dict[str, Path]:
    """Job 205 of exp-main (W47, Thu 19 Nov 10:00, 2 GPUs × 2 h, COMPLETED), landed with W49:
    its sacct line, its registry row and its events (resumed from 200, step 300 at 10:30, step
    450 at 11:00, end at 12:00)."""
    sacct = folder / "late.psv"
    sacct.write_text("\n".join([HEADER, _job("205", 2, "2026-11-19T10:00:00", 2 * H)]) + "\n")
    registry = folder / "late-registry.csv"
    registry.write_text("job_id,experiment_id,work_class\n205,exp-main,main\n")
    progress = folder / "late-205.jsonl"
    progress.write_text(
        _event("205", "2026-11-19T10:00:00Z", "start", resumed_from_step=200)
        + _event("205", "2026-11-19T10:30:00Z", "step", step=300)
        + _event("205", "2026-11-19T11:00:00Z", "step", step=450)
        + _event("205", "2026-11-19T12:00:00Z", "end")
    )
    return {"sacct": sacct, "registry": registry, "progress": progress}


def test_a_late_job_joins_its_chain_and_resplits_the_later_jobs(tmp_path: Path) -> None:
    """205 lands late between 201 and 202. Its chain had reached 300 (201), first reached at
    10:30: recovery 0.5 h, useful 1.5 h (× 2 GPUs: 1 and 3 GPU-hours). 202's target rises from
    300 to 450, first passed at 12:00 (step 500): recovery 2 h, useful 1 h (× 4: 8 and 4, were
    2 and 10), caused by 205 now. 204 resumes from 500, its target still 500 (202 reached it):
    unchanged, as 203. Main run to the end of W49: allocated 40 + 4 = 44 GPU-hours, useful
    28 − 10 + 4 + 3 = 25, recovery 8 − 2 + 8 + 1 = 15, lost 4."""
    drops = _weeks(tmp_path)
    late = _late_job(tmp_path)
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        _week_by_week(tmp_path, book, drops)
        before = _computed(book)
        result = reconcile(book, _inputs("2026-W49", [late["sacct"]], late["registry"],
                                         late["progress"]), None)  # fmt: skip
        after = _computed(book)
        main = _main_to_date(book)
        caused = dict(book.con.execute(
            "SELECT job_id, recovery_caused_by FROM job_accounting_all WHERE work_class = 'main'"
        ).fetchall())  # fmt: skip
        assert _again_from_scratch(book) == _figures(result)
    assert main == (44 * H, 25 * H, 15 * H, 4 * H)
    assert caused["202"] == "205" and caused["205"] == "201"
    # 201 keeps its split; 205 is new, 202 re-split; 204 and 203 reused.
    assert after["201"] == before["201"] and after["202"] != before["202"]
    assert after["203"] == before["203"] and after["204"] == before["204"]
    assert set(after) == {"201", "202", "203", "204", "205"}
    with Ledger.open(tmp_path / "fresh.duckdb") as fresh:
        for drop in [*drops, late]:
            inputs = _inputs("2026-W49", [drop["sacct"]], drop.get("registry"), drop["progress"])
            land_records(fresh, prepare_week(inputs))
        assert _figures(reconcile(fresh, _inputs("2026-W49", []), None)) == _figures(result)


def test_a_split_stored_without_its_restart_is_split_again(tmp_path: Path) -> None:
    """Splits stored before migration 020 have no restart_s: the next review splits them again
    and stores it. Restart = allocation start → first step past the resumed one, within the
    recovery: 201 none (fresh start), 202 10:00 → 10:30 (step 300) 0.5 h, 204 22:00 → 23:00
    (step 550) 1 h, 203 10:00 → 11:00 (step 800) 1 h."""
    drops = _weeks(tmp_path)
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        first = _figures(_week_by_week(tmp_path, book, drops))
        before = _computed(book)
        book.con.execute("UPDATE tracked_splits SET restart_s = NULL")
        for table in ("closed_accounting", "closed_billing", "closed_stretches", "closed_seen",
                      "closed_state"):  # fmt: skip
            book.con.execute(f"DELETE FROM {table}")  # none before 020 (021 keeps them)
        again = _figures(reconcile(book, _inputs("2026-W49", []), None))
        after = _computed(book)
        restart = dict(book.con.execute("SELECT job_id, restart_s FROM tracked_splits").fetchall())
    assert restart == {"201": 0, "202": H // 2, "203": H, "204": H}
    assert all(after[job] != before[job] for job in before)
    assert again == first


def test_an_array_task_named_by_its_job_id_raw_reuses_its_stored_split(tmp_path: Path) -> None:
    """Array task 9_1 (JobIDRaw 510), W48 Tue 24 Nov 10:00, 4 GPUs × 2 h, COMPLETED; its events
    name 510 only (a fresh start, checkpoint 100 at 11:00, end at 12:00): all of it useful,
    4 × 2 = 8 GPU-hours. Its split is stored under 9_1, a job id no event names; the second
    review of the week reads it back (computed_at kept) and agrees with a split from scratch."""
    sacct = tmp_path / "w48.psv"
    sacct.write_text(f"{HEADER}\n{_job('9_1', 4, '2026-11-24T10:00:00', 2 * H, raw='510')}\n")
    registry = tmp_path / "registry.csv"
    registry.write_text("job_id,experiment_id,work_class\n9_1,exp-main,main\n")
    progress = tmp_path / "w48.jsonl"
    progress.write_text(
        _event("510", "2026-11-24T10:00:00Z", "start", resumed_from_step=0)
        + _event("510", "2026-11-24T11:00:00Z", "checkpoint", step=100, accepted=True)
        + _event("510", "2026-11-24T12:00:00Z", "end")
    )
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        first = _figures(reconcile(book, _inputs("2026-W48", [sacct], registry, progress), None))
        before = _computed(book)
        again = _figures(reconcile(book, _inputs("2026-W48", []), None))
        after = _computed(book)
        main = _main_to_date(book)
        book.con.execute("DELETE FROM tracked_splits")
        scratch = _figures(reconcile(book, _inputs("2026-W48", []), None))
    assert set(before) == {"9_1"} and after == before
    assert main == (8 * H, 8 * H, 0, 0)
    assert again == first == scratch

"""The review's relations: declared once, built in order, handed on by handle, not by name."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from trainbudget.ledger import Ledger
from trainbudget.plan import load_plan
from trainbudget.reconcile.land import land_manifest, land_progress, land_registry, land_sacct
from trainbudget.reconcile.relations import RELATIONS
from trainbudget.reconcile.review import FailedJob, review, write_jobs
from trainbudget.reconcile.session import RelationError, Session

REPO = Path(__file__).resolve().parents[2]
SQL = REPO / "sql"
PLAN = REPO / "examples" / "demo-7b.plan.yaml"
WEEK = (datetime(2026, 11, 23, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC))


@pytest.fixture
def landed(tmp_path: Path, campaign: dict[str, Path]) -> Ledger:
    book = Ledger.open(tmp_path / "ledger.duckdb")
    with book.transaction():
        land_sacct(book, campaign["sacct"])
        land_registry(book, campaign["registry"])
        land_progress(book, campaign["progress"])
        land_manifest(book, campaign["manifest"])
    yield book
    book.close()


def _body(path: Path) -> str:
    """The SQL of a file without its comments."""
    return re.sub(r"--[^\n]*", "", path.read_text(encoding="utf-8"))


def test_each_relation_has_the_columns_it_declares(landed: Ledger) -> None:
    with landed.transaction():
        review(landed, load_plan(PLAN), WEEK)
        # review_keys is built only for weeks that leave some landed lines out (not here).
        session = Session(landed)
        session.build("closed_keys")
        session.build("review_keys", week_start=WEEK[0], week_end=WEEK[1])
        for relation in RELATIONS.values():
            if relation.name == "audit_ratios":  # built only when estimates were landed
                continue
            described = landed.con.execute(f'DESCRIBE "{relation.name}"').fetchall()
            assert tuple(row[0] for row in described) == relation.columns, relation.name


def test_every_query_that_reads_a_relation_is_declared_as_its_consumer() -> None:
    for relation in RELATIONS.values():
        word = re.compile(rf"\b{relation.name}\b")
        readers = {
            path.relative_to(SQL).with_suffix("").as_posix()
            for path in SQL.rglob("*.sql")
            if word.search(_body(path))
        }
        producers = {relation.producer, relation.whole, relation.plain} - {None}
        assert readers == {*producers, *relation.consumers}, relation.name
        for need in relation.needs:
            assert relation.producer in RELATIONS[need].consumers


def test_a_step_out_of_order_is_refused_with_what_it_needs(landed: Ledger) -> None:
    session = Session(landed)
    with pytest.raises(RelationError, match=r"review_rows \(reconcile/review/review_rows\)"):
        session.build("job_lines")
    with pytest.raises(RelationError, match=r"review_keys \(reconcile/review/review_keys\)"):
        session.build("review_rows")  # for some weeks it reads their keys
    session.build("review_rows", whole=True)  # for everything landed it needs nothing
    session.build("review_records", whole=True)
    session.build("job_lines")
    with pytest.raises(RelationError, match=r"allocation_records \(reconcile/review/allocation"):
        session.build("allocations")
    with pytest.raises(RelationError, match="job_accounting"):
        session.records("reconcile/summarize/totals")
    with pytest.raises(RelationError, match="job_accounting"):
        session.handle("job_accounting")


def test_the_review_hands_on_the_weeks_failed_jobs_artifacts_and_weeks(landed: Ledger) -> None:
    with landed.transaction():
        result = review(landed, load_plan(PLAN), WEEK)
    # Job 101 (8 GPUs, NODE_FAIL, exp-main) banked 00:00-08:00 = 64 useful GPU-hours; 401
    # failed too but is untracked, 501 never started.
    assert result.failed_jobs == (
        FailedJob("101", "NODE_FAIL", "exp-main", "main", "node failure", False, Decimal(64), 0),
    )
    assert [(a.artifact_id, a.role, a.size_bytes) for a in result.artifacts] == [
        ("ckpt-800", "recovery", 180 * 10**9),
        ("final", "final", 180 * 10**9),
    ]
    assert result.artifacts[0].retain_until == datetime(2027, 1, 22, tzinfo=UTC)
    # Every allocation starts in 2026-W48: 80 + 84 + 12 + 5 + 1 + 0 GPU-hours.
    (week,) = result.accounting_by_week
    assert week["week"] == "2026-W48" and week["allocated_gpu_hours"] == 182
    assert result.week == WEEK
    assert result.jobs is not None and result.jobs.relation is RELATIONS["job_accounting"]


def test_without_a_week_there_are_no_failed_jobs_to_retry(landed: Ledger) -> None:
    with landed.transaction():
        assert review(landed, None).failed_jobs == ()


def test_write_jobs_needs_the_review_and_its_ledger(landed: Ledger, tmp_path: Path) -> None:
    with landed.transaction():
        result = review(landed, None, WEEK)
    with pytest.raises(RelationError, match="needs the Review that review"):
        write_jobs(landed, replace(result, jobs=None), tmp_path / "jobs.json")
    other = Ledger.open(tmp_path / "other.duckdb")
    try:
        with pytest.raises(RelationError, match="another ledger connection"):
            write_jobs(other, result, tmp_path / "jobs.json")
    finally:
        other.close()
    landed.con.execute("DROP TABLE job_accounting")
    with pytest.raises(RelationError, match="gone from the ledger session"):
        write_jobs(landed, result, tmp_path / "jobs.json")
    assert not (tmp_path / "jobs.json").exists()

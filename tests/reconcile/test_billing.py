"""Billing units in the review (reconcile/billing.py): AllocTRES `billing=N` × elapsed, by
class and week, and the jobs whose recorded billing the plan's weights do not give."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from trainbudget.plan import parse_plan
from trainbudget.reconcile.land import land_registry, land_sacct
from trainbudget.reconcile.review import review

from .conftest import HB_FIELDS, sacct_line

WEEK = (datetime(2026, 11, 23, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC))


def _seconds(text: str) -> int:
    """sacct's Elapsed, [DD-]HH:MM:SS, as seconds."""
    days, _, clock = text.rpartition("-")
    h, m, s = (int(x) for x in clock.split(":"))
    return int(days or 0) * 86400 + h * 3600 + m * 60 + s


def test_real_export_billing_seconds_equal_the_files(ledger, fixtures_dir: Path) -> None:
    """hb-jobinfo's real export (Hábrók; AllocTRES `billing=24,cpu=1,mem=199G,node=1`): the
    review's billing-seconds are, job line by job line, billing=N × Elapsed read off the file."""
    path = fixtures_dir / "sacct" / "hb-jobinfo_sacct_snowman.txt"
    fields = HB_FIELDS.split(",")
    expected, billed = 0, 0
    for line in path.read_text(encoding="utf-8").splitlines():
        row = dict(zip(fields, line.split("☃"), strict=False))
        if "." in row["JobID"]:
            continue  # steps repeat their job's TRES
        found = re.search(r"(?:^|,)billing=(\d+)", row["AllocTRES"])
        if found:
            billed += 1
            expected += int(found.group(1)) * _seconds(row["Elapsed"])
    land_sacct(ledger, path, fields=fields)
    with ledger.transaction():
        result = review(ledger, None)
    assert billed > 50 and expected > 0
    assert result.billing.billed_jobs == billed
    assert result.totals["allocated_billing_seconds"] == expected
    assert result.totals["allocated_billing_hours"] == Decimal(expected) / 3600
    assert result.billing.to_date_seconds() == expected  # no week: to date is everything


def _two_weeks(write_sacct) -> Path:
    """Week W47 (Nov 16-23) and W48 (Nov 23-30): job 1 billed 8 for 2 h in W47; job 2
    billed 16, from Nov 22 23:00 to Nov 23 02:00 (1 h in W47, 2 h in W48); job 3 billed
    208 for 1 h in W48; job 4 has no billing in its AllocTRES."""
    return write_sacct([
        sacct_line("1", elapsed="02:00:00", elapsed_raw="7200", submit="2026-11-17T00:00:00",
                   start="2026-11-17T00:00:00", end="2026-11-17T02:00:00",
                   tres="billing=8,cpu=8,gres/gpu=1,mem=64G,node=1"),
        sacct_line("2", elapsed="03:00:00", elapsed_raw="10800", submit="2026-11-22T23:00:00",
                   start="2026-11-22T23:00:00", end="2026-11-23T02:00:00",
                   tres="billing=16,cpu=16,gres/gpu=2,mem=128G,node=1"),
        sacct_line("3", elapsed_raw="3600", submit="2026-11-24T00:00:00",
                   start="2026-11-24T00:00:00", end="2026-11-24T01:00:00",
                   tres="billing=208,cpu=64,gres/gpu=8,mem=512G,node=1"),
        sacct_line("4", elapsed_raw="3600", submit="2026-11-25T00:00:00",
                   start="2026-11-25T00:00:00", end="2026-11-25T01:00:00",
                   tres="cpu=64,gres/gpu=8,mem=512G,node=1"),
    ])  # fmt: skip


def test_billing_by_week_and_class_worked_by_hand(ledger, write_sacct, tmp_path: Path) -> None:
    land_sacct(ledger, _two_weeks(write_sacct))
    registry = tmp_path / "registry.csv"
    registry.write_text(
        "job_id,experiment_id,work_class,code_revision,data_snapshot,result_valid\n"
        "1,e1,pilot,r,d,\n2,e2,main,r,d,\n3,e3,main,r,d,\n4,e4,evaluation,r,d,\n",
        encoding="utf-8",
    )
    land_registry(ledger, registry)
    with ledger.transaction():
        result = review(ledger, None, WEEK)
    b = result.billing
    # The week W48: job 2's last 2 h × 16 + job 3's 1 h × 208 = 32 + 208 = 240 billing-hours.
    assert b.allocated_billing_seconds == (2 * 16 + 208) * 3600
    assert result.totals["allocated_billing_hours"] == 240
    assert (b.billed_jobs, b.unbilled_jobs) == (2, 1)  # job 4 is in the week, unbilled
    # By week, every read job: W47 = 2 h × 8 + 1 h × 16 = 32; W48 = 240.
    assert [(r["week"], r["billing_hours"]) for r in b.by_week] == [
        ("2026-W47", 32), ("2026-W48", 240),
    ]  # fmt: skip
    # To date by class: pilot 16; main 3 h × 16 + 208 = 256; the evaluation job has none.
    assert {r["work_class"]: r["billing_hours"] for r in b.by_class} == {"pilot": 16, "main": 256}
    assert b.to_date_seconds() == sum(r["billing_seconds"] for r in b.by_week)


PLAN = """\
campaign: t
unit_of_progress: tokens
prices: {gpu_hour_usd: 2}
ceiling: {gpu_hours: 1000}
main: {gpus: 8, hours: 10}
cluster:
  node: {gpus: 8, cpus: 64, mem_gib: 512}
"""


def test_jobs_billed_other_than_the_plan_says_are_flagged(ledger, write_sacct) -> None:
    land_sacct(ledger, _two_weeks(write_sacct))
    # cpu 1 + gpu 2 + mem 0.25/GiB: job 3 (64 CPUs, 8 GPUs, 512 GiB) = 64 + 16 + 128 = 208,
    # as recorded; job 2 (16, 2, 128 GiB) = 16 + 4 + 32 = 52, recorded 16: disagrees.
    plan = parse_plan(PLAN + "  billing: {weights: {cpu: 1, gpu: 2, mem_gib: 0.25}}\n")
    with ledger.transaction():
        result = review(ledger, plan, WEEK)
    rows = result.billing.disagreements
    assert [(r["recorded_billing"], r["plan_billing"], r["job_ids"]) for r in rows] == [
        (16, 52, ["2"])
    ]
    finding = next(f for f in result.diagnosis if f["step"] == "billing-disagrees")
    assert "recorded 16, plan 52" in finding["summary"]


def test_a_partition_the_plan_does_not_know_is_flagged(ledger, write_sacct) -> None:
    land_sacct(ledger, _two_weeks(write_sacct))  # every job in partition `gpu`
    plan = parse_plan(
        PLAN + "  partition: a100\n  billing: {partitions: {a100: {cpu: 1, gpu: 2}}}\n"
    )
    with ledger.transaction():
        result = review(ledger, plan, WEEK)
    assert result.billing.disagreements == ()
    assert {r["partition"] for r in result.billing.unknown_partitions} == {"gpu"}
    finding = next(f for f in result.diagnosis if f["step"] == "billing-disagrees")
    assert "partitions the plan does not know: gpu" in finding["summary"]


def test_reconcile_json_carries_billing(cli, write_sacct, tmp_path: Path) -> None:
    sacct = _two_weeks(write_sacct)
    out = cli("--ledger", str(tmp_path / "l.duckdb"), "reconcile", "--sacct", str(sacct),
              "--week", "2026-W48", "--json").json()  # fmt: skip
    assert out["totals"]["allocated_billing_hours"] == 240
    jobs = {j["job_id"]: j for j in out["jobs"]}
    assert jobs["3"]["billing"] == 208 and jobs["3"]["allocated_billing_hours"] == 208
    assert jobs["2"]["allocated_billing_hours"] == 32  # its 2 h inside W48 × 16
    assert jobs["4"]["billing"] is None and jobs["4"]["allocated_billing_hours"] is None
    assert [r["week"] for r in out["billing"]["by_week"]] == ["2026-W47", "2026-W48"]

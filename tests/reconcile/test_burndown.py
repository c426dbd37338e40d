"""The burn-down (reconcile/burndown.py): dates worked by hand, and a lower rate never
projects an earlier day."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from trainbudget.reconcile.burndown import Week, day_reached, project_burn_down

D = Decimal
W47, W48 = date(2026, 11, 16), date(2026, 11, 23)  # Mondays


def test_a_two_week_history_worked_by_hand() -> None:
    # W47 burned 100 GPU-hours, W48 140: the rate is (100 + 140) / 2 = 120 a week (the
    # campaign is two weeks old, so the four-week window holds two). Ceiling 600, 240 spent:
    # 360 left, reached on day d = ⌈7 · 360 / 120⌉ = 21 after W48, day 1 = Mon 2026-11-30,
    # so on Sun 2026-12-20, ISO week 2026-W51. Allocation 700 GPU-hours left: d = ⌈7 · 700 /
    # 120⌉ = ⌈40.83⌉ = 41, so Sat 2027-01-09. The plan (allocation) ends 2027-01-01: the
    # ceiling comes before it, the allocation's end after.
    weeks = [Week("2026-W47", W47, D(100)), Week("2026-W48", W48, D(140))]
    burn = project_burn_down(
        weeks, W48, D(240), D(600), allocation_unit="gpu_hours",
        allocation_remaining=D(700), plan_end=date(2027, 1, 1),
    )  # fmt: skip
    assert burn.weekly_rate_gpu_hours == 120 and burn.weeks_measured == 2
    assert (burn.ceiling_day, burn.ceiling_week) == (date(2026, 12, 20), "2026-W51")
    assert burn.allocation_runs_out == date(2027, 1, 9)
    assert burn.ceiling_before_plan_end is True and burn.allocation_before_plan_end is False
    # The band: at the slowest week (100) d = ⌈25.2⌉ = 26 → Fri 2026-12-25 (W52); at the
    # fastest (140) d = 18 → Thu 2026-12-17 (W51).
    assert burn.ceiling_week_band == {"earliest": "2026-W51", "latest": "2026-W52"}
    assert "reached in 2026-W51 (2026-12-20), before the plan's end (2027-01-01)" in (
        burn.sentence()
    )


def test_a_ceiling_past_the_plans_end_is_null_and_a_quiet_week_counts_as_zero() -> None:
    # Only W47 burned (100); the window from W47 to W48 is two weeks: rate 50. Ceiling 1,000:
    # 900 left, d = ⌈7 · 900 / 50⌉ = 126 → 2027-04-04, after the plan's end 2027-03-31.
    burn = project_burn_down(
        [Week("2026-W47", W47, D(100))], W48, D(100), D(1000), plan_end=date(2027, 3, 31)
    )
    assert burn.weekly_rate_gpu_hours == 50
    assert burn.ceiling_week is None and burn.ceiling_before_plan_end is False
    assert "not reached by the plan's end (2027-03-31)" in burn.sentence()


def test_an_allocation_in_billing_hours_burns_at_its_own_rate() -> None:
    weeks = [Week("2026-W47", W47, D(100), D(2000)), Week("2026-W48", W48, D(140), D(2800))]
    burn = project_burn_down(
        weeks, W48, D(240), D(600), allocation_unit="billing_hours", allocation_remaining=D(4800)
    )
    # 2,400 billing-hours a week; 4,800 left: d = ⌈7 · 2⌉ = 14 → Sun 2026-12-13.
    assert burn.weekly_rate_allocation == 2400
    assert burn.allocation_runs_out == date(2026, 12, 13)


def test_already_over_the_ceiling_and_no_rate() -> None:
    over = project_burn_down([Week("w", W48, D(700))], W48, D(700), D(600))
    assert over.already_over_ceiling and over.ceiling_day == date(2026, 11, 29)
    idle = project_burn_down([Week("w", W47, D(0)), Week("w", W48, D(0))], W48, D(0), D(600))
    assert idle.ceiling_day is None and idle.ceiling_week is None


@given(
    left=st.fractions(min_value=0, max_value=10**6),
    rate=st.fractions(min_value=0, max_value=10**5),
    slower=st.fractions(min_value=0, max_value=1),
)
def test_a_lower_rate_never_projects_an_earlier_day(left, rate, slower) -> None:
    day_one = date(2026, 11, 30)
    fast = day_reached(left, rate, day_one)
    slow = day_reached(left, rate * slower, day_one)
    if fast is None:
        assert slow is None  # no rate at all: never reached, and slower is no rate either
    elif slow is not None:
        assert slow >= fast


@given(
    history=st.lists(st.integers(min_value=0, max_value=5000), min_size=1, max_size=8),
    cut=st.fractions(min_value=0, max_value=1),
)
def test_burning_less_each_week_never_moves_the_ceiling_earlier(history, cut) -> None:
    mondays = [date.fromordinal(W48.toordinal() - 7 * i) for i in range(len(history))][::-1]
    weeks = [Week(f"w{i}", m, D(h)) for i, (m, h) in enumerate(zip(mondays, history, strict=True))]
    lower = [
        Week(w.week, w.monday, D(w.gpu_hours) * D(cut.numerator) / D(cut.denominator))
        for w in weeks
    ]
    spent = D(sum(history))
    base = project_burn_down(weeks, W48, spent, spent + 1000)
    less = project_burn_down(lower, W48, spent, spent + 1000)  # same spend, a lower rate
    if base.ceiling_day is None:
        assert less.ceiling_day is None
    elif less.ceiling_day is not None:
        assert less.ceiling_day >= base.ceiling_day


def test_reconcile_json_and_the_continuation_gate_carry_the_burn_down(cli, write_sacct, tmp_path):
    from .conftest import sacct_line

    # W47: 8 GPUs × 10 h = 80; W48: 8 × 12.5 h = 100. Rate 90 a week; ceiling 400, 180 spent:
    # d = ⌈7 · 220 / 90⌉ = ⌈17.1⌉ = 18 after W48 → Thu 2026-12-17, 2026-W51. Allocation
    # 1,000 GPU-hours with 700 used: 300 left, d = ⌈7 · 300 / 90⌉ = 24 → Wed 2026-12-23,
    # before its end 2027-01-01.
    sacct = write_sacct([
        sacct_line("1", elapsed_raw="36000", submit="2026-11-17T00:00:00",
                   start="2026-11-17T00:00:00", end="2026-11-17T10:00:00"),
        sacct_line("2", elapsed_raw="45000", submit="2026-11-24T00:00:00",
                   start="2026-11-24T00:00:00", end="2026-11-24T12:30:00"),
    ])  # fmt: skip
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "campaign: t\nunit_of_progress: tokens\nprices: {gpu_hour_usd: 2}\n"
        "ceiling: {gpu_hours: 400}\nmain: {gpus: 8, hours: 20}\n"
        "cluster:\n  allocation: {gpu_hours: 1000, used_gpu_hours: 700, ends: 2027-01-01}\n",
        encoding="utf-8",
    )
    out = cli("--ledger", str(tmp_path / "l.duckdb"), "reconcile", "--sacct", str(sacct),
              "--plan", str(plan), "--week", "2026-W48", "--json").json()  # fmt: skip
    burn = out["burn_down"]
    assert burn["weekly_rate_gpu_hours"] == 90
    assert (burn["ceiling_week"], burn["ceiling_day"]) == ("2026-W51", "2026-12-17")
    assert burn["allocation_runs_out"] == "2026-12-23"
    assert burn["allocation_before_plan_end"] is True
    gate = out["variance"]["continuation"]
    assert gate["details"]["reached_before_plan_end"] is True
    assert "the allocation runs out on 2026-12-23, before the plan's end" in gate["sentence"]

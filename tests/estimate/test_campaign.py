"""The campaign model over plan files: the seed scenario's numbers, derived main, eval, cadence."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from trainbudget.base.errors import InputError
from trainbudget.estimate.campaign import campaign_estimate
from trainbudget.plan import load_plan, parse_plan

REPO_ROOT = Path(__file__).resolve().parents[2]
SEED_PLAN = REPO_ROOT / "examples" / "demo-7b.plan.yaml"
DERIVED_PLAN = REPO_ROOT / "examples" / "derived-1b.plan.yaml"

BASE = """\
campaign: t
unit_of_progress: tokens
prices: {gpu_hour_usd: 2.40, storage_gb_month_usd: 0.023}
ceiling: {gpu_hours: 2000}
"""


def test_seed_000_scenario_line_by_line() -> None:
    result = campaign_estimate(load_plan(SEED_PLAN))
    by_class = {line.work_class: line for line in result.lines}
    # Seed 000: pilots 6·4·3 = 72, main 8·120 = 960, retries 2·8·10 = 160, eval 12·2·2.5 = 60.
    assert by_class["pilot"].gpu_hours == 6 * 4 * 3
    assert by_class["main"].gpu_hours == 8 * 120
    assert by_class["retry"].gpu_hours == 2 * 8 * 10
    assert by_class["evaluation"].gpu_hours == 12 * 2 * Decimal("2.5")
    assert by_class["retry"].kind == "contingency"
    assert {by_class[c].kind for c in ("pilot", "main", "evaluation")} == {"planned"}
    assert result.planned_gpu_hours == 1252
    assert result.contingency_gpu_hours == 160 and result.planned_work_gpu_hours == 1092
    assert result.compute_usd == Decimal("3004.80")
    assert result.storage_gb_months == 18 * 180 * 2 == 6480
    assert result.storage_usd == 6480 * Decimal("0.023")
    assert by_class["storage"].gb_months == 6480 and by_class["storage"].gpu_hours == 0
    assert result.total_usd == Decimal("3004.80") + 6480 * Decimal("0.023")


def test_seed_sensitivity_replaces_the_retry_line() -> None:
    result = campaign_estimate(load_plan(SEED_PLAN))
    cases = {(c.attempts, c.failure_fraction): c.gpu_hours for c in result.sensitivity}
    assert cases[(1, Decimal("0.05"))] == 1140
    assert cases[(1, Decimal("0.20"))] == 1284
    assert cases[(2, Decimal("0.05"))] == 2148
    assert cases[(2, Decimal("0.20"))] == 72 + 2 * 960 * Decimal("1.20") + 60
    # Adding the 160 retry hours on top would give 1,300 for the first case: it must not.
    assert 1140 + 160 not in cases.values()


def test_seed_ceiling_verdict_and_margin() -> None:
    ceiling = campaign_estimate(load_plan(SEED_PLAN)).ceiling
    assert ceiling.within and ceiling.margin_gpu_hours == 2000 - 1252
    assert ceiling.margin_fraction == Decimal(748) / 2000
    assert ceiling.worst_case_gpu_hours == 72 + 2 * 960 * Decimal("1.20") + 60
    assert ceiling.cases_over_ceiling == 2  # 2,148 and 2,436 exceed 2,000


def test_evaluation_from_checkpoints_suites_replicas_with_loading_and_writing() -> None:
    plan = parse_plan(
        BASE
        + "main: {gpus: 8, hours: 100}\n"
        + "evaluation: [{name: e, checkpoints: 10, suites: 3, replicas: 2, gpus: 4,"
        + " hours: 0.5, load_hours: 0.25, write_hours: 0.05}]\n"
    )
    (line,) = [ln for ln in campaign_estimate(plan).lines if ln.work_class == "evaluation"]
    assert line.gpu_hours == 10 * 3 * 2 * 4 * (Decimal("0.5") + Decimal("0.25") + Decimal("0.05"))


def test_diagnostics_are_a_planned_line_and_in_every_sensitivity_case() -> None:
    plan = parse_plan(
        BASE + "main: {gpus: 8, hours: 100}\n"
        "diagnostics: [{name: profile, runs: 2, gpus: 8, hours: 0.5}]\n"
        "sensitivity: {attempts: [1], failure_fraction: [0]}\n"
    )
    result = campaign_estimate(plan)
    (diag,) = [ln for ln in result.lines if ln.work_class == "diagnostic"]
    assert diag.gpu_hours == 8 and diag.kind == "planned"
    assert result.sensitivity[0].gpu_hours == 800 + 8


def test_main_derived_from_model_and_catalog(dense_prior_mfu: Decimal) -> None:
    plan = load_plan(DERIVED_PLAN)
    result = campaign_estimate(plan)
    (main,) = [ln for ln in result.lines if ln.work_class == "main"]
    # No mfu in the plan: the dense 16-bit prior's median, never a silent class default.
    flops = 6 * Fraction(13, 10) * 10**9 * 26 * 10**10
    wall_hours = flops / (16 * Fraction(9894, 10) * 10**12 * Fraction(dense_prior_mfu)) / 3600
    assert abs(Fraction(main.gpu_hours) - 16 * wall_hours) < Fraction(1, 10**20)
    assert result.main is not None and result.main.mfu_source == "prior"
    assert "band p10–p90" in main.detail and "(prior)" in main.detail


def test_pilot_mfu_overrides_and_is_reported() -> None:
    plan = load_plan(DERIVED_PLAN)
    base = campaign_estimate(plan)
    piloted = campaign_estimate(plan, mfu=Decimal("0.32"), mfu_source="pilot")
    assert piloted.main.mfu_source == "pilot"
    ratio = Fraction(piloted.main.gpu_hours) / Fraction(base.main.gpu_hours)
    assert abs(ratio - Fraction(base.main.mfu) / Fraction(32, 100)) < Fraction(1, 10**30)


def test_pilot_mfu_cannot_rederive_given_hours_without_a_model() -> None:
    result = campaign_estimate(load_plan(SEED_PLAN), mfu=Decimal("0.3"), mfu_source="pilot")
    assert result.planned_gpu_hours == 1252
    assert any("cannot re-derive" in w for w in result.warnings)


def test_cadence_adds_a_derived_failure_fraction() -> None:
    result = campaign_estimate(load_plan(DERIVED_PLAN))
    assert result.cadence is not None
    derived = [c for c in result.sensitivity if c.failure_fraction_source == "cadence"]
    assert [c.attempts for c in derived] == [1, 2]
    # The cadence column's f is Daly's whole overhead, checkpoint writes included (issue 16:
    # the write GPU-hours were once added to nothing).
    assert derived[0].failure_fraction == result.cadence.overhead_fraction
    assert derived[0].failure_fraction == result.cadence.expected_wall_factor - 1
    # 16 GPUs on 8-GPU nodes with a 2,000 h node MTBF: the job's MTBF is 1,000 h.
    assert result.cadence.mtbf_hours == 1000


def test_capacity_options_are_ranked_by_total_cost() -> None:
    result = campaign_estimate(load_plan(DERIVED_PLAN))
    totals = [c.total_usd for c in result.capacity]
    assert totals == sorted(totals)
    stable = next(c for c in result.capacity if c.name == "stable")
    assert abs(stable.gpu_hours - result.main.gpu_hours) < Decimal("1e-30")


def test_unknown_gpu_in_plan_is_an_input_error() -> None:
    plan = parse_plan(BASE + "main: {gpus: 8, gpu: Z100, params: 1e9, tokens: 1e10}\n")
    with pytest.raises(InputError, match=r"^gpu: unknown accelerator 'Z100'"):
        campaign_estimate(plan)


@pytest.mark.parametrize(
    ("section", "expected"),
    [
        (
            "cadence: {write_minutes: 2, mtbf_hours_per_gpu: 10, mtbf_hours_per_node: 80}\n",
            "plan.yaml:6: cadence: give exactly one of mtbf_hours_per_gpu or mtbf_hours_per_node",
        ),
        ("cadence: {write_minutes: -2, mtbf_hours_per_gpu: 10}\n", "plan.yaml:6: cadence."),
        (
            "capacity: [{name: spot, gpu_hour_usd: -1}]\n",
            "plan.yaml:6: capacity.0.gpu_hour_usd: must be",
        ),
        ("main: {gpus: 8, hours: 1, model_class: rnn}\n", "plan.yaml:5: main.model_class"),
    ],
)
def test_estimator_plan_sections_reject_bad_values(section: str, expected: str) -> None:
    text = BASE + ("main: {gpus: 8, hours: 100}\n" if not section.startswith("main") else "")
    with pytest.raises(InputError) as info:
        parse_plan(text + section, "plan.yaml")
    assert str(info.value).startswith(expected), str(info.value)

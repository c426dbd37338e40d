"""The one MFU rule: measured beats assumed, and the choice is stored for the weekly review."""

from __future__ import annotations

from decimal import Decimal

import pytest

from trainbudget.estimate.mfu_rule import (
    MfuChoice,
    choose_mfu,
    estimate_campaign,
    record_choice,
    stored_choice,
)
from trainbudget.plan import parse_plan

BASE = """
campaign: c
unit_of_progress: tokens
prices: {gpu_hour_usd: 2}
ceiling: {gpu_hours: 100000}
main: {MAIN}
"""
DERIVED = "{gpus: 8, gpu: A100-80GB, params: 1e9, tokens: 2e10}"


def _plan(main: str):
    return parse_plan(BASE.replace("{MAIN}", main))


@pytest.mark.parametrize(
    ("main", "pilot", "calibrated", "expected"),
    [
        # Nothing stated or measured: the dense 16-bit prior's median (conftest's oracle).
        (DERIVED, None, None, MfuChoice(Decimal("0.3784"), "prior")),
        (DERIVED[:-1] + ", mfu: 0.31}", None, None, MfuChoice(Decimal("0.31"), "plan")),
        (DERIVED[:-1] + ", mfu: 0.31}", Decimal("0.35"), None, MfuChoice(Decimal("0.35"), "pilot")),
        (DERIVED, Decimal("0.35"), Decimal("0.28"), MfuChoice(Decimal("0.28"), "calibrated")),
        # The plan fixes the hours and names no model: no MFU can re-derive them.
        ("{gpus: 8, hours: 10}", Decimal("0.35"), None, MfuChoice(None, "plan-hours")),
        # Hours and a derivation both given: the plan's hours stand unless something measured.
        (DERIVED[:-1] + ", hours: 10}", None, None, MfuChoice(None, "plan-hours")),
        (DERIVED[:-1] + ", hours: 10}", Decimal("0.5"), None, MfuChoice(Decimal("0.5"), "pilot")),
    ],
)
def test_measured_beats_assumed(main, pilot, calibrated, expected, dense_prior_mfu) -> None:
    assert choose_mfu(_plan(main), pilot=pilot, calibrated=calibrated) == expected
    assert expected.mfu_source != "prior" or expected.mfu == dense_prior_mfu


def test_the_chosen_mfu_prices_the_main_run() -> None:
    plan = _plan(DERIVED)
    choice = choose_mfu(plan, pilot=Decimal("0.25"))
    estimate = estimate_campaign(plan, choice)
    # 6·N·T FLOPs over 8 × 312 TFLOP/s (A100 bf16 dense) at MFU 0.25, as GPU-hours.
    expected = Decimal(6) * Decimal("1e9") * Decimal("2e10") / (Decimal("312e12") * Decimal("0.25"))
    main = sum(line.gpu_hours for line in estimate.lines if line.work_class == "main")
    assert main == pytest.approx(expected / 3600, rel=Decimal("1e-20"))
    assert estimate.main.mfu_source == "pilot"


def test_a_stored_choice_is_read_back_for_the_campaign(ledger, dense_prior_mfu) -> None:
    plan = _plan(DERIVED)
    assert stored_choice(ledger, plan) == MfuChoice(dense_prior_mfu, "prior")
    record_choice(ledger, "c", "prelaunch", MfuChoice(Decimal("0.398088"), "pilot"))
    record_choice(ledger, "other", "prelaunch", MfuChoice(Decimal("0.2"), "pilot"))
    assert stored_choice(ledger, plan) == MfuChoice(Decimal("0.398088"), "pilot")
    record_choice(ledger, "c", "prelaunch", MfuChoice(None, "plan-hours"))
    assert stored_choice(ledger, plan) == MfuChoice(None, "plan-hours")


def _independent_prior_median(kind: str) -> Decimal:
    """e^(mean ln MFU) of published_runs.toml's 16-bit points of `kind`, fp8 ones ÷ 0.7."""
    import math
    import tomllib
    from pathlib import Path

    import trainbudget.estimate as pkg

    runs = tomllib.loads((Path(pkg.__file__).parent / "published_runs.toml").read_text())["run"]
    logs = [
        math.log(r["mfu"] if r["group"] == "16-bit" else r["mfu"] / 0.7)
        for r in runs
        if r["kind"] == kind
    ]
    return Decimal(f"{math.exp(sum(logs) / len(logs)):.4g}")


def test_the_choice_and_the_forecast_give_one_mfu_at_the_prior() -> None:
    # A plan the forecast prices (reliability) with no throughput: the MFU line of the
    # pre-launch report (the choice) and the forecast's own rate are the prior's median.
    reliability = "{job_mtbf_hours: 40, restart_minutes: 10, checkpoint_write_minutes: 2}"
    plan = _plan(DERIVED + "\nreliability: " + reliability)
    choice = choose_mfu(plan)
    expected = _independent_prior_median("dense")
    assert choice == MfuChoice(expected, "prior")
    assert choice.describe() == f"{expected:.3g} (prior)"
    result = estimate_campaign(plan, choice)
    assert result.forecast.throughput_source == "prior"
    assert [p.mfu for p in result.forecast.phases] == [choice.mfu]

"""Seed 004's decision: each verdict on both sides of its boundary, gains from a scaling fit,
and the cheaper alternatives priced by the estimator against a hand calculation."""

from __future__ import annotations

from decimal import Decimal as D
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.gates.alternatives import RunShape, cheaper_alternatives
from trainbudget.gates.decision import CompetingWork, PredictedGain, decide_run

# Seed 004's worked example, computed exactly here: 6·7e9·1e11 FLOPs on 8 × 312 TFLOP/s at
# MFU 0.4 and $1.50 per GPU-hour.
FLOPS = 6 * 7 * 10**9 * 10**11
WALL_S = Fraction(FLOPS) / (8 * 312 * 10**12 * Fraction(4, 10))
SEED_COST = WALL_S / 3600 * 8 * Fraction(3, 2)
SHAPE = RunShape(D("7e9"), D("1e11"), 8, D("312e12"), D("0.4"), D("1.50"))


def test_seed_cost_is_about_14k_dollars() -> None:
    # seeds/README.md: the exact arithmetic gives ≈ 48.7 days and ≈ $14,0xx, not $14,400.
    assert round(float(WALL_S) / 86400, 1) == 48.7
    assert 14_000 < float(SEED_COST) < 14_100


def gain(value, spread, source="ablation seeds") -> PredictedGain:
    return PredictedGain.plus_minus(D(value), D(spread), source)


@pytest.mark.parametrize(
    ("g", "min_gain", "verdict", "reason"),
    [
        (gain("0.05", "0.02"), "0.03", "run", None),
        (gain("0.05", "0.05"), "0.03", "collect-more-data", "gain-within-uncertainty"),
        (gain("0.05", "0.0499"), "0.03", "run", None),
        (gain("0.05", "0.02"), "0.05", "run", None),
        (gain("0.05", "0.02"), "0.0501", "not-worth-it", "gain-below-minimum"),
        (gain("0", "0.02"), "0", "not-worth-it", "no-predicted-gain"),
        (gain("-0.01", "0.001"), "0", "not-worth-it", "no-predicted-gain"),
    ],
)
def test_verdict_boundaries(g, min_gain, verdict, reason) -> None:
    outcome = decide_run(D("14022.44"), g, D(min_gain))
    assert (outcome.outcome, outcome.reason) == (verdict, reason)


def test_gain_per_dollar_and_the_honest_sentence() -> None:
    outcome = decide_run(D(14000), gain("0.07", "0.01"), D("0.1"))
    # 0.07 × 1000 / 14000 = 0.005 per $1,000.
    assert outcome.details["gain_per_1000_usd"] == D("0.005")
    assert outcome.sentence.startswith("Not worth it:")
    assert "$14,000.00" in outcome.sentence


def test_a_competitor_with_more_gain_per_dollar_is_blocked_by_the_run() -> None:
    # run: 0.05 / $10,000 = 0.005 per $1k; a: 0.01 / $2,000 = 0.005 (equal: not better);
    # b: 0.012 / $2,000 = 0.006 (better).
    equal = CompetingWork("a", D("0.01"), D(2000))
    better = CompetingWork("b", D("0.012"), D(2000))
    assert decide_run(D(10000), gain("0.05", "0.01"), D(0), [equal]).outcome == "run"
    outcome = decide_run(D(10000), gain("0.05", "0.01"), D(0), [equal, better])
    assert (outcome.outcome, outcome.reason) == ("defer", "blocks-better-work")
    assert [w["name"] for w in outcome.details["better_work"]] == ["b"]


def test_gain_from_a_loss_prediction() -> None:
    g = PredictedGain.from_loss(D("2.20"), D("2.10"), (D("2.06"), D("2.17")), "fit")
    assert (g.value, g.low, g.high) == (D("0.10"), D("0.03"), D("0.14"))
    assert g.uncertainty == D("0.07")  # the wider half: 0.10 - 0.03


def test_an_interval_not_containing_the_value_is_refused() -> None:
    with pytest.raises(InputError, match="interval"):
        PredictedGain(D("0.1"), D("0.2"), D("0.3"), "x")
    with pytest.raises(InputError, match="gain_uncertainty"):
        PredictedGain.plus_minus(D("0.1"), D("-0.1"), "x")


def test_alternatives_match_a_hand_calculation() -> None:
    alternatives = {
        a.name: a
        for a in cheaper_alternatives(
            SHAPE,
            teacher_params=D("7e10"),
            competing=[CompetingWork("tokenizer", D("0.02"), D(1000))],
        )
    }
    assert list(alternatives) == ["smaller-scale", "shorter-run", "distillation", "another-idea"]
    # Cost ∝ FLOPs at fixed GPUs, MFU and price: N/4 → 1/4; T·0.3 → 0.3; distillation on
    # 0.3·T adds the teacher's 2·N_t per token: 0.3·(6·7e9 + 2·7e10)/(6·7e9) = 1.3.
    expected = {
        "smaller-scale": SEED_COST / 4,
        "shorter-run": SEED_COST * Fraction(3, 10),
        "distillation": SEED_COST * Fraction(13, 10),
    }
    for name, cost in expected.items():
        assert float(alternatives[name].cost_usd) == pytest.approx(float(cost), rel=1e-12)
    assert alternatives["smaller-scale"].cheaper is True
    assert alternatives["distillation"].cheaper is False
    assert "NOT cheaper" in alternatives["distillation"].note
    assert alternatives["another-idea"].cost_usd == 1000
    assert alternatives["another-idea"].gain_per_1000_usd == D("0.02")


def test_alternatives_get_a_point_gain_from_the_fitted_law() -> None:
    # Hoffmann et al. 2022 (Chinchilla), eq. 10: E=1.69, A=406.4, B=410.7, α=0.34, β=0.28.
    law = {"E": 1.69, "A": 406.4, "B": 410.7, "alpha": 0.34, "beta": 0.28}
    small = 1.69 + 406.4 / 1.75e9**0.34 + 410.7 / 1e11**0.28
    short = 1.69 + 406.4 / 7e9**0.34 + 410.7 / 3e10**0.28
    found = {a.name: a for a in cheaper_alternatives(SHAPE, law=law, baseline_loss=D("2.30"))}
    assert float(found["smaller-scale"].predicted_gain) == pytest.approx(2.30 - small)
    assert float(found["shorter-run"].predicted_gain) == pytest.approx(2.30 - short)
    assert found["distillation"].cost_usd is None  # no teacher given: not priced, said so
    assert "--teacher-params" in found["distillation"].note


@given(
    value=st.decimals(min_value=-1, max_value=1, places=4),
    spread=st.decimals(min_value=0, max_value=1, places=4),
    cost=st.decimals(min_value=1, max_value=10**6, places=2),
    floor=st.decimals(min_value=0, max_value=1, places=4),
)
def test_run_only_when_gain_is_positive_certain_and_big_enough(value, spread, cost, floor) -> None:
    outcome = decide_run(cost, PredictedGain.plus_minus(value, spread, "x"), floor)
    if outcome.outcome == "run":
        assert value > 0 and value > spread and value >= floor
    else:
        assert value <= 0 or value <= spread or value < floor

"""Stop rules: declared before launch (holdout refused, unknown metric refused), each limit on
both sides of its boundary, early stopping as Keras counts it, budget stops never promotable."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.gates.stop_rules import (
    EarlyStop,
    RunProgress,
    StopRules,
    declare_stop_rules,
    evaluate_stop_rules,
)

DEV = ("val_loss", "val_acc")
HOLDOUT = ("test_acc",)


def test_early_stop_on_the_final_holdout_is_refused() -> None:
    with pytest.raises(InputError, match=r"stop_rules\.early_stop\.metric: 'test_acc' is a final"):
        declare_stop_rules(
            development_metrics=DEV, holdout_metrics=HOLDOUT, early_stop=EarlyStop("test_acc")
        )


def test_early_stop_on_an_unknown_metric_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(InputError, match=r"unknown metric 'val_los'.*val_acc, val_loss"):
        declare_stop_rules(development_metrics=DEV, early_stop=EarlyStop("val_los"))


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"max_wall_hours": D(-1)}, "stop_rules.max_wall_hours"),
        ({"spend_limit_usd": D("NaN")}, "stop_rules.spend_limit_usd"),
        ({"max_failed_steps": -1}, "stop_rules.max_failed_steps"),
        ({"early_stop": EarlyStop("val_loss", patience=0)}, "stop_rules.early_stop.patience"),
        ({"early_stop": EarlyStop("val_loss", min_delta=D(-1))}, "early_stop.min_delta"),
    ],
)
def test_bad_limits_name_their_field(kw, field) -> None:
    with pytest.raises(InputError, match=field.replace(".", r"\.")):
        declare_stop_rules(development_metrics=DEV, **kw)


def progress(wall=0, spent=0, failed=0, history=None, finished=False) -> RunProgress:
    return RunProgress(D(str(wall)), D(str(spent)), failed, history or {}, finished)


RULES = declare_stop_rules(
    development_metrics=DEV,
    holdout_metrics=HOLDOUT,
    max_wall_hours=D(120),
    spend_limit_usd=D(3000),
    max_failed_steps=5,
)


@pytest.mark.parametrize(
    ("state", "outcome", "reason", "artifact"),
    [
        (progress(wall="119.99"), "continue", None, "in-progress"),
        (progress(wall=120), "stop", "wall-clock", "incomplete"),
        (progress(spent="2999.99"), "continue", None, "in-progress"),
        (progress(spent=3000), "stop", "spend-limit", "incomplete"),
        (progress(failed=5), "continue", None, "in-progress"),
        (progress(failed=6), "stop", "failed-steps", "failed"),
        (progress(wall=100, finished=True), "complete", None, "complete"),
    ],
)
def test_each_limit_on_both_sides(state, outcome, reason, artifact) -> None:
    result = evaluate_stop_rules(RULES, state)
    assert (result.outcome, result.reason, result.details["artifact_state"]) == (
        outcome,
        reason,
        artifact,
    )


def test_a_budget_stop_says_why_and_keeps_the_checkpoint() -> None:
    result = evaluate_stop_rules(RULES, progress(spent="3000.5"))
    assert "$3,000.50 spent reaches the $3,000.00 spend limit" in result.sentence
    assert "keep its last valid checkpoint" in result.sentence
    assert result.details["promotable"] is False


def test_budget_outranks_every_other_stop() -> None:
    result = evaluate_stop_rules(RULES, progress(wall=130, failed=50, finished=True))
    assert result.reason == "wall-clock"
    assert result.details["artifact_state"] == "incomplete"


def early(patience=2, mode="min", min_delta="0") -> StopRules:
    return declare_stop_rules(
        development_metrics=DEV, early_stop=EarlyStop("val_loss", mode, patience, D(min_delta))
    )


@pytest.mark.parametrize(
    ("rule", "history", "outcome"),
    [
        # Best 2.0 at the 2nd evaluation, then 2 without improvement: patience 2 is reached.
        (early(2), [2.5, 2.0, 2.1, 2.0], "stop"),
        (early(2), [2.5, 2.0, 2.1], "continue"),
        # 1.995 improves on 2.0 by 0.005, which is not more than min_delta 0.01.
        (early(2, min_delta="0.01"), [2.0, 1.995, 1.992], "stop"),
        (early(2, min_delta="0.01"), [2.0, 1.989, 1.985], "continue"),
        (early(1, mode="max"), [0.5, 0.6, 0.6], "stop"),
        (early(1, mode="max"), [0.5, 0.6, 0.61], "continue"),
        (early(1), [], "continue"),
    ],
)
def test_early_stop_counts_evaluations_without_strict_improvement(rule, history, outcome) -> None:
    result = evaluate_stop_rules(rule, progress(history={"val_loss": history}))
    assert result.outcome == outcome
    if outcome == "stop":
        assert result.reason == "early-stop"
        assert result.details["artifact_state"] == "early-stopped"
        assert result.details["promotable"] is True


def test_progress_values_are_checked() -> None:
    with pytest.raises(InputError, match=r"progress\.wall_hours"):
        evaluate_stop_rules(RULES, progress(wall=-1))


limits = st.one_of(st.none(), st.decimals(min_value=0, max_value=1000, places=2))
amounts = st.decimals(min_value=0, max_value=2000, places=2)


@given(
    wall_limit=limits,
    spend_limit=limits,
    failed_limit=st.one_of(st.none(), st.integers(0, 10)),
    wall=amounts,
    spent=amounts,
    failed=st.integers(0, 20),
    finished=st.booleans(),
    history=st.lists(st.floats(0, 10), max_size=8),
)
def test_over_budget_is_always_incomplete_and_unpromotable(
    wall_limit, spend_limit, failed_limit, wall, spent, failed, finished, history
) -> None:
    rules = declare_stop_rules(
        development_metrics=DEV,
        max_wall_hours=wall_limit,
        spend_limit_usd=spend_limit,
        max_failed_steps=failed_limit,
        early_stop=EarlyStop("val_loss", patience=1),
    )
    result = evaluate_stop_rules(
        rules, RunProgress(wall, spent, failed, {"val_loss": history}, finished)
    )
    over = (wall_limit is not None and wall >= wall_limit) or (
        spend_limit is not None and spent >= spend_limit
    )
    assert (result.details["artifact_state"] == "incomplete") == over
    if over:
        assert result.details["promotable"] is False


def test_the_plans_rules_or_the_flags_never_both() -> None:
    from trainbudget.gates.stop_rules import StopRules, chosen_stop_rules

    planned = StopRules(max_wall_hours=D(130))
    flags = StopRules(max_wall_hours=D(10))
    assert chosen_stop_rules(None, lambda: flags, []) is flags
    assert chosen_stop_rules(planned, lambda: flags, []) is planned
    with pytest.raises(InputError, match=r"^--max-wall-hours: the rules come from --plan"):
        chosen_stop_rules(planned, lambda: flags, ["--max-wall-hours"])

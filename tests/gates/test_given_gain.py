"""gates/given_gain.py: the predicted gain from a gain and its uncertainty, or from a fit."""

from __future__ import annotations

from decimal import Decimal

import pytest

from trainbudget.base.errors import InputError
from trainbudget.gates.given_gain import given_gain

D = Decimal


def test_a_gain_plus_minus_its_spread() -> None:
    gain = given_gain(gain=D("0.05"), gain_uncertainty=D("0.02"))
    assert (gain.value, gain.low, gain.high) == (D("0.05"), D("0.03"), D("0.07"))


def test_a_gain_with_its_interval() -> None:
    gain = given_gain(gain=D("0.05"), gain_low=D("0.01"), gain_high=D("0.06"), gain_source="x")
    assert (gain.value, gain.low, gain.high, gain.source) == (D("0.05"), D("0.01"), D("0.06"), "x")


def test_a_fit_gives_the_loss_reduction_against_the_baseline() -> None:
    # Baseline 2.73, predicted 2.70 in [2.68, 2.75]: gain 0.03 in [2.73 - 2.75, 2.73 - 2.68].
    gain = given_gain(
        gain=None, fit_loss=D("2.70"), fit_interval=(D("2.68"), D("2.75")),
        baseline_loss=D("2.73"), fit_source="scaling fit f.json",
    )  # fmt: skip
    assert (gain.value, gain.low, gain.high) == (D("0.03"), D("-0.02"), D("0.05"))
    assert gain.source == "scaling fit f.json"


@pytest.mark.parametrize(
    ("given", "field"),
    [
        ({"gain": None}, "`gain`: required"),
        ({"gain": D(1)}, "`gain_uncertainty`: required"),
        ({"gain": D(1), "gain_low": D(0)}, "`gain_uncertainty`: required"),
        ({"gain": D(1), "gain_uncertainty": D(0), "gain_low": D(0)}, "`gain_uncertainty`: give"),
        ({"gain": D(1), "fit_loss": D(2), "baseline_loss": D(3)}, "`gain`: give either"),
        ({"gain": None, "fit_loss": D(2)}, "`baseline_loss`: required with `fit`"),
    ],
)
def test_what_cannot_be_judged_is_refused_naming_the_field(given: dict, field: str) -> None:
    with pytest.raises(InputError) as caught:
        given_gain(**given)
    assert str(caught.value).startswith(field)

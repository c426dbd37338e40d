"""analyse_ablations end to end on synthetic points: prediction, gain, allocation, warnings."""

from __future__ import annotations

import numpy as np
import pytest

from trainbudget.base.errors import InputError
from trainbudget.scaling.allocation import allocate
from trainbudget.scaling.analysis import analyse_ablations, extrapolation_warnings
from trainbudget.scaling.load import read_ablations


@pytest.fixture(scope="module")
def points(tmp_path_factory, make_points, write_csv):
    params, tokens, loss = make_points(seed=21, noise=0.005)
    path = write_csv(tmp_path_factory.mktemp("abl") / "ablations.csv", params, tokens, loss)
    return read_ablations(path)


@pytest.fixture(scope="module")
def analysis(points):
    return analyse_ablations(points, 2e9, 4e10, baseline_loss=2.6, resamples=100, seed=3)


def test_payload_has_the_contract_keys(analysis) -> None:
    payload = analysis.payload()
    assert set(payload["params"]) == {"E", "A", "B", "alpha", "beta"}
    low, high = payload["predicted_loss_interval"]
    assert low <= payload["predicted_loss"] <= high
    assert payload["fit"]["points"] == 48
    assert payload["bootstrap"]["resamples"] == 100


def test_prediction_and_gain_follow_the_fitted_law(analysis, true_law, loss_of) -> None:
    law = analysis.fit.params
    expected = law.E + law.A / 2e9**law.alpha + law.B / 4e10**law.beta
    assert analysis.prediction.predicted_loss == pytest.approx(expected, rel=1e-12)
    assert float(analysis.gain.value) == pytest.approx(2.6 - expected, rel=1e-12)
    truth = loss_of(true_law, np.array([2e9]), np.array([4e10]))[0]
    assert analysis.prediction.predicted_loss == pytest.approx(truth, rel=0.01)


def test_allocation_defaults_to_the_targets_compute(analysis) -> None:
    law = analysis.fit.params
    expected = allocate(6 * 2e9 * 4e10, law.A, law.B, law.alpha, law.beta)
    assert analysis.allocation == expected
    low, high = analysis.allocation_intervals["params_opt"]
    assert low <= analysis.allocation.params <= high


def test_extrapolation_warnings(points) -> None:
    largest = float(points.flops.max())
    assert extrapolation_warnings(points, {"target": 50 * largest}) == []
    (message,) = extrapolation_warnings(points, {"target": 500 * largest})
    assert message.startswith("target compute") and "500× the largest ablation" in message
    (message,) = extrapolation_warnings(points, {"budget": float(points.flops.min()) / 1000})
    assert "below the smallest ablation" in message


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"target_params": 0.0}, "target_params: must be a positive number"),
        ({"confidence": 1.0}, "confidence: must lie strictly between 0 and 1"),
        ({"baseline_loss": -1.0}, "baseline_loss: must be a positive number"),
    ],
)
def test_bad_options_are_input_errors(points, kwargs, message) -> None:
    args = {"target_params": 1e9, "target_tokens": 2e10, **kwargs}
    with pytest.raises(InputError, match=message):
        analyse_ablations(
            points,
            args.pop("target_params"),
            args.pop("target_tokens"),
            resamples=10,
            **args,
        )

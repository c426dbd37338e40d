"""RunInputs: one run's inputs declared once, checked when built, errors naming the field."""

from __future__ import annotations

from decimal import Decimal

import pytest

from trainbudget.base.errors import InputError
from trainbudget.estimate.mfu_sources import LedgerMfu
from trainbudget.estimate.run_payload import RunInputs, estimate_payload

RUN = {
    "params": Decimal("1e9"),
    "tokens": Decimal("1e9"),
    "gpus": 1,
    "price": Decimal(3),
    "accelerator": None,
    "peak_flops_per_second": Decimal("1e14"),
    "peak_source": "given",
}
SHAPE = {"n_layers": 2, "d_model": 64, "heads": 4, "seq_len": 128}
MEMORY = "required by the memory check (micro_batch)"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"flops_terms": ("attention",), "method": "attention"},
            "flops_terms: give the terms or method attention, not both "
            "(method attention is the term attention)",
        ),
        (
            {"flops_terms": ("logits",), **SHAPE},
            "vocab: required by the logits term of flops_terms",
        ),
        ({"micro_batch": 1, **SHAPE, "heads": None}, "heads: " + MEMORY),
        ({"micro_batch": 1}, "n_layers: " + MEMORY),
    ],
)
def test_an_inconsistent_run_is_refused_naming_the_field(change: dict, message: str) -> None:
    with pytest.raises(InputError) as caught:
        RunInputs(**{**RUN, **change})
    assert str(caught.value) == message


def test_an_mfu_and_a_measured_one_are_refused() -> None:
    measured = LedgerMfu(Decimal("0.4"), "pilot", {"table": "pilot_analyses"}, "a pilot")
    with pytest.raises(InputError, match=r"^mfu: give either"):
        RunInputs(**RUN, mfu=Decimal("0.5"), measured=measured)


def test_the_payload_is_the_same_from_inputs_or_keywords() -> None:
    # 6·1e9·1e9 = 6e18 FLOPs at 0.5 · 1e14 FLOP/s = 120,000 s = 100/3 GPU-hours; · $3 = $100.
    by_inputs = estimate_payload(RunInputs(**RUN, mfu=Decimal("0.5")))
    by_keywords = estimate_payload(**RUN, mfu=Decimal("0.5"))
    assert by_inputs == by_keywords
    assert by_inputs["dollar_cost"] == 100

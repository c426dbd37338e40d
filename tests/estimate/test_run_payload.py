"""The estimate payload from parsed values: the MFU rule, exact dollars, errors naming fields."""

from __future__ import annotations

from decimal import Decimal

import pytest

from trainbudget.base.errors import InputError
from trainbudget.estimate.mfu_sources import LedgerMfu
from trainbudget.estimate.run_payload import estimate_payload

RUN = {
    "params": Decimal("1e9"),
    "tokens": Decimal("1e9"),
    "gpus": 1,
    "price": Decimal(3),
    "accelerator": None,
    "peak_flops_per_second": Decimal("1e14"),
    "peak_source": "given",
}


def test_a_given_mfu_prices_the_run_exactly() -> None:
    payload = estimate_payload(**RUN, mfu=Decimal("0.5"))
    # 6·1e9·1e9 = 6e18 FLOPs at 0.5 · 1e14 FLOP/s = 120,000 s = 100/3 GPU-hours; · $3 = $100.
    assert payload["flops"] == Decimal("6e18")
    assert payload["wall_seconds"] == 120_000
    assert payload["dollar_cost"] == 100
    assert (payload["mfu"], payload["mfu_source"], payload["mfu_from"]) == (
        Decimal("0.5"),
        "user",
        None,
    )


def test_without_an_mfu_the_class_default_is_used_and_named() -> None:
    payload = estimate_payload(**RUN, model_class="moe")
    # Seed 004: MoE 0.15–0.3, the default is 0.2; 6e18 / (0.2 · 1e14) = 300,000 s.
    assert payload["mfu_source"] == "class-default" and payload["model_class"] == "moe"
    assert payload["wall_seconds"] == 300_000


def test_a_measured_mfu_replaces_the_default_and_keeps_its_provenance() -> None:
    measured = LedgerMfu(Decimal("0.25"), "pilot", {"table": "pilot_analyses"}, "a pilot")
    payload = estimate_payload(**RUN, measured=measured)
    assert payload["mfu"] == Decimal("0.25") and payload["mfu_source"] == "pilot"
    assert payload["mfu_from"] == {
        "mfu_source": "pilot",
        "note": "a pilot",
        "table": "pilot_analyses",
    }
    with pytest.raises(InputError, match=r"^mfu: give either"):
        estimate_payload(**RUN, mfu=Decimal("0.5"), measured=measured)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"mfu": Decimal("1.5")}, "mfu"),
        ({"gpus": 0}, "gpus"),
        ({"params": Decimal(0)}, "params"),
        ({"micro_batch": 1, "n_layers": 2, "d_model": 8}, "heads"),
    ],
)
def test_bad_values_name_the_field_not_a_flag(change: dict, field: str) -> None:
    with pytest.raises(InputError, match=rf"^{field}: "):
        estimate_payload(**{**RUN, **change})

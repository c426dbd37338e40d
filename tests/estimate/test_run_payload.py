"""The estimate payload from parsed values: the MFU rule, exact dollars, errors naming fields."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

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


def test_without_an_mfu_the_throughput_prior_is_used_and_named() -> None:
    payload = estimate_payload(**RUN, model_class="moe")
    # The MoE 16-bit prior: DeepSeek-V2 0.205 (bf16), DeepSeek-V3 0.173 and Llama 4 Behemoth
    # 0.197 (fp8, ÷ 0.7 to 16-bit); the geometric mean to 4 digits, 6e18 / (MFU · 1e14) s.
    mfu = math.exp((math.log(0.205) + math.log(0.173 / 0.7) + math.log(0.197 / 0.7)) / 3)
    prior = Decimal(f"{mfu:.4g}")
    assert payload["mfu"] == prior == Decimal("0.2425")
    assert payload["mfu_source"] == "prior" and payload["model_class"] == "moe"
    exact = Fraction(6 * 10**18) / (Fraction(prior) * 10**14)
    assert abs(Fraction(payload["wall_seconds"]) - exact) < Fraction(1, 10**30)
    assert "3 published moe run(s)" in payload["throughput_prior"]


def test_a_kind_no_published_run_covers_keeps_the_class_default_labelled() -> None:
    payload = estimate_payload(**RUN, model_class="cnn")
    # Seed 004: CNN 0.1–0.2, the middle is 0.15; 6e18 / (0.15 · 1e14) = 400,000 s.
    assert (payload["mfu"], payload["mfu_source"]) == (Decimal("0.15"), "class-default")
    assert payload["wall_seconds"] == 400_000
    assert "no published cnn run" in payload["throughput_prior"]


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


def test_a_layout_adds_the_most_loaded_rank_and_the_bubble_and_only_then() -> None:
    # 1e9 parameters, no vocabulary, 4 GPUs as tp 1 × pp 2 × dp 2, micro-batch 1, batch 8:
    # P = 1e9 / 2 on the first stage; ZeRO 0: 18 bytes each. No accelerator: fits is null.
    shape = {"n_layers": 2, "d_model": 64, "seq_len": 16, "heads": 4, "recompute": "full"}
    run = {**RUN, "gpus": 4, "mfu": Decimal("0.5"), **shape}
    assert "memory_most_loaded_rank" not in estimate_payload(**run)
    payload = estimate_payload(**run, pp=2, global_batch=8)
    memory = payload["memory_most_loaded_rank"]
    assert memory["weights"] + memory["gradients"] + memory["optimizer"] == 18 * 500_000_000
    # Full recompute: 2·sbh per layer × 2, + (8sb + sbh)·p; m = 8 / 2 = 4 ≥ p: all in flight.
    sbh = 16 * 1 * 64
    assert memory["activations"] == 2 * sbh * 2 + (8 * 16 + sbh) * 2
    assert memory["fits"] is None and payload["warnings"] == []
    assert payload["pipeline_bubble_share"] == Decimal(1) / Decimal(5)  # 1 ÷ (4 + 1)
    assert payload["wall_seconds"] == estimate_payload(**run)["wall_seconds"]


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        ({"pp": 3, "global_batch": 8}, r"^pp: 3 × tp 1 does not divide the 4 GPUs"),
        ({"pp": 2}, r"^global_batch: required by the layout"),
        ({"pp": 2, "global_batch": 8, "n_layers": None}, r"^n_layers: required by the layout"),
    ],
)
def test_a_layout_that_cannot_be_names_the_field(layout, message) -> None:
    shape = {"n_layers": 2, "d_model": 64, "seq_len": 16, "recompute": "full"}
    with pytest.raises(InputError, match=message):
        estimate_payload(**{**RUN, "gpus": 4, "mfu": Decimal("0.5"), **shape, **layout})

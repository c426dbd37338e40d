"""The run options of `estimate` and `decide`: read by the one parser, errors name the flag."""

from __future__ import annotations

import pytest

from trainbudget.base.errors import InputError
from trainbudget.cli.run_options import build_estimate, resolve_peak

RUN = {"params": "1e9", "tokens": "1e9", "gpus": "1", "price": "2.40", "gpu_tflops": "100"}


def test_exact_decimal_price_reaches_the_dollars() -> None:
    payload = build_estimate({**RUN, "mfu": "0.5"})
    # 6e18 FLOPs / 5e13 FLOP/s = 120,000 s = 100/3 h; · $2.40 = $80 exactly.
    assert payload["dollar_cost"] == 80
    assert payload["mfu_source"] == "user"
    assert payload["peak_source"] == "--gpu-tflops"


@pytest.mark.parametrize(
    ("change", "flag"),
    [
        ({"params": "0"}, "--params"),
        ({"tokens": "0.5"}, "--tokens"),
        ({"gpus": "2.5"}, "--gpus"),
        ({"price": "-1"}, "--price"),
        ({"gpu_tflops": "nan"}, "--gpu-tflops"),
        ({"mfu": "1.01"}, "--mfu"),
        ({"active_params": "-1", "method": "moe"}, "--active-params"),
        ({"precision": "int4"}, "--precision"),
        ({"micro_batch": 1}, "--n-layers"),
        ({"flops_terms": "attention", "method": "attention"}, "--flops-terms"),
        ({"flops_terms": "logits"}, "--d-model"),
        ({"flops_terms": "bogus"}, "--flops-terms"),
    ],
)
def test_a_bad_option_names_its_flag(change: dict, flag: str) -> None:
    with pytest.raises(InputError, match=rf"^{flag}: "):
        build_estimate({**RUN, **change})


def test_the_run_inputs_checks_are_said_with_flags() -> None:
    """RunInputs names its fields; the command line says the same check with its flags."""
    with pytest.raises(InputError) as caught:
        build_estimate({**RUN, "micro_batch": 1, "n_layers": 2, "d_model": 8, "heads": 2})
    assert str(caught.value) == "--seq-len: required by the memory check (--micro-batch)"
    with pytest.raises(InputError) as caught:
        build_estimate({**RUN, "flops_terms": "recompute", "method": "recompute"})
    assert str(caught.value) == (
        "--flops-terms: give the terms or --method recompute, not both "
        "(--method recompute is the term recompute)"
    )


def test_options_that_are_not_the_run_are_ignored() -> None:
    """A command passes all its options (ctx.params); only the run's are read."""
    payload = build_estimate({**RUN, "mfu": "0.5", "as_json": True, "ledger": None, "gain": "1"})
    assert payload["dollar_cost"] == 80


def test_a_peak_needs_a_catalog_gpu_or_tflops() -> None:
    with pytest.raises(InputError, match=r"^--gpu: give a catalog name"):
        resolve_peak(None, None, "bf16")
    accelerator, peak, source = resolve_peak("A100-80GB", None, "bf16")
    # NVIDIA's A100 datasheet: 312 dense BF16 TFLOP/s.
    assert accelerator is not None and peak == 312 * 10**12 and source.startswith("catalog: ")

"""FLOPs from recorded shapes, with the formulas of torch.utils.flop_counter written out."""

from __future__ import annotations

import orjson
import pytest

from trainbudget.trace.flops import op_flops


def _flops(name, dims, types, concrete=None):
    return op_flops(
        name,
        orjson.dumps(dims),
        orjson.dumps(types),
        orjson.dumps(concrete) if concrete is not None else b"",
    )


def test_matmuls() -> None:
    assert _flops("aten::mm", [[10, 1000], [1000, 512]], ["c10::BFloat16"] * 2).flops == (
        2 * 10 * 1000 * 512
    )
    addmm = _flops(
        "aten::addmm",
        [[1000], [10, 512], [512, 1000], [], []],
        ["c10::BFloat16"] * 3 + ["Scalar"] * 2,
    )
    assert (addmm.flops, addmm.precision) == (2 * 10 * 512 * 1000, "bf16")
    assert _flops("aten::bmm", [[2048, 160, 45], [2048, 45, 20]], ["float"] * 2).flops == (
        2 * 2048 * 160 * 45 * 20
    )
    assert _flops("aten::baddbmm", [[4, 3, 5], [4, 3, 7], [4, 7, 5]], ["c10::Half"] * 3).flops == (
        2 * 4 * 3 * 7 * 5
    )


def test_convolution_forward_from_concrete_inputs() -> None:
    # ResNet layer from the MI300 fixture: x [10,256,14,14], w [512,256,3,3], stride 2, pad 1.
    concrete = ["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"]
    result = _flops(
        "aten::convolution",
        [[10, 256, 14, 14], [512, 256, 3, 3], [], [], [], [], [], [], []],
        ["c10::BFloat16"] * 2 + [""] * 7,
        concrete,
    )
    out = (14 + 2 * 1 - 1 * (3 - 1) - 1) // 2 + 1  # 7
    assert result.flops == 2 * 10 * out * out * 512 * 256 * 3 * 3


def test_convolution_backward_counts_the_requested_gradients() -> None:
    concrete = [
        "",
        "",
        "",
        "[0]",
        "[1, 1]",
        "[1, 1]",
        "[1, 1]",
        "False",
        "[0, 0]",
        "1",
        "[True, True, False]",
    ]
    dims = [[10, 512, 7, 7], [10, 512, 7, 7], [512, 512, 3, 3]] + [[]] * 8
    one = 2 * 10 * 7 * 7 * 512 * 512 * 3 * 3
    assert _flops("aten::convolution_backward", dims, ["c10::BFloat16"] * 3, concrete).flops == (
        2 * one
    )
    concrete[10] = "[False, True, False]"  # first layer: no input gradient
    assert _flops("aten::convolution_backward", dims, ["c10::BFloat16"] * 3, concrete).flops == one


def test_attention_forward_and_backward() -> None:
    q = [2, 8, 1024, 64]
    forward = _flops("aten::_scaled_dot_product_flash_attention", [q, q, q], ["c10::BFloat16"] * 3)
    assert forward.flops == 2 * 2 * 8 * 1024 * 1024 * 64 * 2  # QKᵀ and PV
    backward = _flops(
        "aten::_scaled_dot_product_flash_attention_backward", [q, q, q, q], ["c10::BFloat16"] * 4
    )
    assert backward.flops == 2 * forward.flops


@pytest.mark.parametrize(
    ("name", "dims", "concrete", "reason"),
    [
        ("aten::convolution", [[1, 3, 8, 8], [4, 3, 3, 3]], None, "without Concrete Inputs"),
        ("aten::mm", [[3, 4]], None, "unexpected shapes"),
    ],
)
def test_unusable_shapes_are_reported_not_guessed(name, dims, concrete, reason) -> None:
    result = _flops(name, dims, ["float"], concrete)
    assert result.flops is None and reason in result.reason


def test_no_shapes_recorded() -> None:
    assert op_flops("aten::mm", b"", b"", b"").flops is None

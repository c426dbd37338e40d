"""Attention, einsum and convolution FLOPs, and composite operators counted once (by nesting)."""

from __future__ import annotations

import numpy as np
import orjson
from hypothesis import given
from hypothesis import strategies as st

from trainbudget.trace.flops import innermost, op_flops
from trainbudget.trace.summary import summarize_rank

BF16 = "c10::BFloat16"


def _flops(name, dims, types, concrete=None):
    raw = orjson.dumps(concrete) if concrete is not None else b""
    return op_flops(name, orjson.dumps(dims), orjson.dumps(types), raw)


def test_sdpa_causal_halves_and_backward_doubles() -> None:
    q = [4, 16, 512, 128]  # B, H, L, D
    full = 2 * 4 * 16 * 512 * 512 * (128 + 128)  # QKᵀ + PV, 2 FLOPs per multiply-add
    concrete = ["", "", "", "", "0.", "True", "", "False"]
    causal = _flops("aten::scaled_dot_product_attention", [q, q, q], [BF16] * 3, concrete)
    assert (causal.flops, causal.precision) == (full // 2, "bf16")
    concrete[5] = "False"
    assert _flops("aten::scaled_dot_product_attention", [q, q, q], [BF16] * 3, concrete).flops == (
        full
    )
    backward = ["", "", "", "", "", "", "0.", "True", "", ""]
    dims = [q, q, q, q, q, [4, 16, 512]]
    name = "aten::_scaled_dot_product_flash_attention_for_cpu_backward"
    assert _flops(name, dims, [BF16] * 6, backward).flops == full  # 2 × the causal forward


def test_flash_kernel_layout_and_grouped_query_heads() -> None:
    # _flash_attention_forward takes (B, L, H, D); 8 query heads share 2 key/value heads.
    q, kv = [2, 1024, 8, 64], [2, 2048, 2, 64]
    concrete = [""] * 8 + ["True"] + [""] * 8
    result = _flops("aten::_flash_attention_forward", [q, kv, kv], [BF16] * 3, concrete)
    assert result.flops == 2 * 2 * 8 * 1024 * 2048 * (64 + 64) // 2
    sdpa = [2, 8, 1024, 64], [2, 2, 2048, 64]  # the same call in SDPA's (B, H, L, D)
    no_mask = _flops("aten::_scaled_dot_product_efficient_attention", [*sdpa, sdpa[1]], [BF16] * 3)
    assert no_mask.flops == 2 * result.flops
    mask_type = [""] * 9 + ["1"]  # custom_mask_type 1: causal from the top left
    efficient = _flops("aten::_efficient_attention_forward", [q, kv, kv], [BF16] * 3, mask_type)
    assert efficient.flops == result.flops


def test_packed_variable_length_attention_is_not_guessed() -> None:
    q = [4096, 8, 64]  # total tokens, heads, dim: the per-sequence lengths are not in the shapes
    result = _flops("aten::_flash_attention_forward", [q, q, q], [BF16] * 3)
    assert result.flops is None and "unexpected shapes" in result.reason


def test_einsum_with_its_equation_and_without() -> None:
    dims = [[], [[8, 32, 64], [8, 64, 16]], []]
    counted = _flops("aten::einsum", dims, ["", "TensorList", ""], ["'bij,bjk->bik'", "", ""])
    assert counted.flops == 2 * 8 * 32 * 64 * 16  # a batched matmul
    outer = _flops("aten::einsum", [[], [[5], [7]], []], ["", "TensorList", ""], ["'i,j'", "", ""])
    assert outer.flops == 5 * 7  # implicit output "ij": products only, nothing summed
    missing = _flops("aten::einsum", dims, ["", "TensorList", ""], ["", "", ""])
    assert missing.flops is None and "equation" in missing.reason


def test_conv2d_reads_its_own_argument_positions() -> None:
    x, w = [2, 3, 32, 32], [16, 3, 5, 5]
    concrete = ["", "", "", "[2, 2]", "[2, 2]", "[1, 1]", "1"]
    out = (32 + 2 * 2 - (5 - 1) - 1) // 2 + 1  # 16
    result = _flops("aten::conv2d", [x, w, [], [], [], [], []], ["float"] * 2, concrete)
    assert result.flops == 2 * 2 * out * out * 16 * 3 * 5 * 5
    same = ["", "", "", "[1, 1]", "", "[1, 1]", "1"]  # padding="same" is not recorded
    assert _flops("aten::conv2d", [x, w, [], [], [], [], []], ["float"] * 2, same).flops is None


def _op(t, name, ts, dur, dims, types, concrete=None):
    args = {"Input Dims": dims, "Input type": types}
    if concrete is not None:
        args["Concrete Inputs"] = concrete
    t.cpu(name, ts, dur, **args)


def test_composites_count_their_innermost_operator_once(make_trace) -> None:
    t = make_trace()
    q = [1, 4, 128, 32]
    inner = [1, 128, 4, 32]
    # SDPA → _scaled_dot_product_flash_attention → _flash_attention_forward (causal).
    _op(t, "aten::scaled_dot_product_attention", 10, 50, [q, q, q], [BF16] * 3,
        ["", "", "", "", "0.", "True", "", "False"])  # fmt: skip
    _op(t, "aten::_scaled_dot_product_flash_attention", 11, 40, [q, q, q], [BF16] * 3,
        ["", "", "", "0.", "True", "False", ""])  # fmt: skip
    _op(t, "aten::_flash_attention_forward", 12, 30, [inner, inner, inner], [BF16] * 3,
        [""] * 8 + ["True"] + [""] * 8)  # fmt: skip
    # SDPA's math fallback: its two matmuls are the bmm calls inside it.
    _op(t, "aten::scaled_dot_product_attention", 100, 50, [q, q, q], [BF16] * 3,
        ["", "", "", "", "0.", "False", "", "False"])  # fmt: skip
    _op(t, "aten::bmm", 105, 5, [[4, 128, 32], [4, 32, 128]], [BF16] * 2)
    _op(t, "aten::bmm", 120, 5, [[4, 128, 128], [4, 128, 32]], [BF16] * 2)
    # conv2d → convolution; and a bare mm right after, touching it.
    conv = ["", "", "", "[1]", "[0]", "[1]", "False", "[0]", "1"]
    _op(t, "aten::conv2d", 200, 20, [[1, 2, 9, 9], [3, 2, 3, 3]], ["float"] * 2,
        ["", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "1"])  # fmt: skip
    _op(t, "aten::convolution", 201, 18, [[1, 2, 9, 9], [3, 2, 3, 3]], ["float"] * 2, conv)
    _op(t, "aten::mm", 220, 0, [[2, 3], [3, 4]], ["float"] * 2)
    s = summarize_rank(t.write())
    attention = 2 * 4 * 128 * 128 * (32 + 32)
    bmm = 2 * 4 * 128 * 32 * 128
    conv_flops = 2 * 1 * 7 * 7 * 3 * 2 * 3 * 3
    assert s.flop_ops_counted == 5  # flash kernel, 2 bmm, convolution, mm
    assert s.flops == attention // 2 + 2 * bmm + conv_flops + 2 * 2 * 3 * 4
    assert s.flops_by_precision["bf16"] == attention // 2 + 2 * bmm


@given(
    st.lists(
        st.tuples(st.integers(1, 50), st.integers(0, 3), st.integers(0, 20)),
        min_size=1,
        max_size=30,
    )
)
def test_innermost_marks_exactly_the_leaves(calls) -> None:
    # Each call: a leaf of `length` µs wrapped in `depth` parents, after a gap.
    starts, ends, leaves = [], [], []
    at = 0
    for length, depth, gap in calls:
        at += gap + depth
        for level in range(depth, 0, -1):
            starts.append(at - level)
            ends.append(at + length + level)
            leaves.append(False)
        starts.append(at)
        ends.append(at + length)
        leaves.append(True)
        at += length + depth
    marked = innermost(np.array(starts), np.array(ends))
    assert marked.tolist() == leaves

"""Achieved FLOPs from the input shapes `torch.profiler(record_shapes=True)` writes.

torch writes no FLOP count into the trace, so the count is rebuilt from each operator's
`Input Dims` with the formulas of `torch.utils.flop_counter` (a multiply-add is 2 FLOPs). These
are FLOPs of the operators that ran (the "hardware" basis, as against the "model" basis of
6·N·T). A composite operator (`aten::scaled_dot_product_attention`, `aten::conv2d`,
`aten::einsum`, the `_scaled_dot_product_*` wrappers) is counted only when no counted operator
runs inside it (`innermost`), so the arithmetic is counted once, by the operator that does it:
SDPA's math fallback becomes `aten::bmm`, its fused kernels `_flash_attention_forward`, etc.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from math import prod
from typing import Any

import msgspec
import numpy as np

MATMUL_OPS = frozenset({"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm"})
CONV_OPS = frozenset({"aten::convolution", "aten::convolution_backward"})
# conv{1,2,3}d(input, weight, bias, stride, padding, dilation, groups): no `transposed` argument.
CONV_ND_OPS = frozenset({"aten::conv1d", "aten::conv2d", "aten::conv3d"})
EINSUM_OP = "aten::einsum"

# name → (backward?, index of query in the inputs, layout, index of is_causal / mask type).
# Layout "bhld": q (…, Lq, D), k (…, Lk, D), v (…, Lk, Dv) (the SDPA family);
# "blhd": q (B, Lq, H, D), k (B, Lk, H, D) (the flash / memory-efficient kernels).
# Argument positions are those of torch's native_functions.yaml schemas (torch 2.13).
ATTENTION_OPS: dict[str, tuple[bool, int, str, int]] = {
    "aten::scaled_dot_product_attention": (False, 0, "bhld", 5),
    "aten::_scaled_dot_product_attention_math": (False, 0, "bhld", 5),
    "aten::_scaled_dot_product_flash_attention": (False, 0, "bhld", 4),
    "aten::_scaled_dot_product_flash_attention_for_cpu": (False, 0, "bhld", 4),
    "aten::_scaled_dot_product_efficient_attention": (False, 0, "bhld", 6),
    "aten::_scaled_dot_product_cudnn_attention": (False, 0, "bhld", 6),
    "aten::_flash_attention_forward": (False, 0, "blhd", 8),
    "aten::_efficient_attention_forward": (False, 0, "blhd", 9),
    "aten::_scaled_dot_product_flash_attention_backward": (True, 1, "bhld", 11),
    "aten::_scaled_dot_product_flash_attention_for_cpu_backward": (True, 1, "bhld", 7),
    "aten::_scaled_dot_product_efficient_attention_backward": (True, 1, "bhld", 11),
    "aten::_scaled_dot_product_cudnn_attention_backward": (True, 1, "bhld", 14),
    "aten::_flash_attention_backward": (True, 1, "blhd", 11),
    "aten::_efficient_attention_backward": (True, 1, "blhd", 14),
}
FLOP_OPS = MATMUL_OPS | CONV_OPS | CONV_ND_OPS | frozenset(ATTENTION_OPS) | {EINSUM_OP}
# One operator call of more than 1e27 FLOPs (a 10⁹-wide matmul cubed) is a corrupt shape, not
# a measurement; the bound keeps a rank's sum of up to 10¹⁰ calls inside the ledger's HUGEINT.
MAX_OP_FLOPS = 10**27

# `Input type` strings of the first tensor argument → catalog precision names.
DTYPE_PRECISION = {
    "float": "fp32",
    "c10::BFloat16": "bf16",
    "c10::Half": "fp16",
    "c10::Float8_e4m3fn": "fp8",
    "c10::Float8_e5m2": "fp8",
}


@dataclass(frozen=True)
class OpFlops:
    """FLOPs of one operator call, or None with the reason when its shapes do not suffice."""

    flops: int | None
    precision: str | None
    reason: str | None = None


def innermost(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """True for each operator with no other operator nested in its [start, end] (same unit).

    Operators nest by time on their thread; the next one to start after an operator (ties: the
    longer first) lies inside it exactly when it has a nested one, unless another thread's
    operator starts in between, which for shape-bearing operators does not happen in practice.
    """
    order = np.lexsort((-end, start))
    s, e = start[order], end[order]
    nested = np.zeros(s.size, dtype=bool)
    same = (s[1:] == s[:-1]) & (e[1:] == e[:-1])
    nested[:-1] = (e[1:] <= e[:-1]) & ((s[1:] < e[:-1]) | same)
    result = np.empty(s.size, dtype=bool)
    result[order] = ~nested
    return result


def _mm(dims: Sequence[Sequence[int]], offset: int) -> int:
    (m, k), (_, n) = dims[offset], dims[offset + 1]
    return 2 * m * k * n


def _bmm(dims: Sequence[Sequence[int]], offset: int) -> int:
    (b, m, k), (_, _, n) = dims[offset], dims[offset + 1]
    return 2 * b * m * k * n


def _conv_out(size: int, kernel: int, stride: int, pad: int, dilation: int) -> int:
    # torch.nn.Conv*d output length.
    return (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1


def _literal(text: str) -> Any:
    return ast.literal_eval(text) if text else None


def _conv_forward(dims: Sequence[Sequence[int]], concrete: Sequence[str], nd: bool) -> int:
    """2·N·∏out·∏w (flop_counter's conv_flop_count); out from stride, padding, dilation."""
    x, w = dims[0], dims[1]
    stride, padding, dilation = (_literal(concrete[i]) for i in (3, 4, 5))
    transposed = not nd and concrete[6] == "True"
    spatial = len(x) - 2
    stride, padding, dilation = (
        list(v) * (spatial if len(v) == 1 else 1) for v in (stride, padding, dilation)
    )
    if transposed:
        out_spatial = list(x[2:])  # flop_counter counts transposed convs over the input grid
    else:
        out_spatial = [
            _conv_out(x[2 + i], w[2 + i], stride[i], padding[i], dilation[i])
            for i in range(spatial)
        ]
    return 2 * x[0] * prod(out_spatial) * prod(w)


def _conv_backward(dims: Sequence[Sequence[int]], concrete: Sequence[str]) -> int:
    grad_out, w = dims[0], dims[2]
    mask = _literal(concrete[10]) if len(concrete) > 10 and concrete[10] else [True, True]
    one = 2 * grad_out[0] * prod(grad_out[2:]) * prod(w)  # = the forward conv's FLOPs
    return one * (int(bool(mask[0])) + int(bool(mask[1])))


def _is_causal(concrete: Sequence[str], index: int, layout: str) -> bool:
    """From the recorded argument: `is_causal` ("True"), or the xformers-style custom_mask_type
    of the memory-efficient kernels (1, 2 = causal). Not recorded: not causal."""
    value = concrete[index].strip() if index < len(concrete) else ""
    if value in ("True", "False"):
        return value == "True"
    is_efficient_kernel = layout == "blhd" and index in (9, 14)
    return is_efficient_kernel and value in ("1", "2")


def _attention(dims: Sequence[Sequence[int]], offset: int, layout: str) -> int:
    """2·B·H·Lq·Lk·(D + Dv): QKᵀ and PV (flop_counter's sdpa_flop_count); GQA by query heads."""
    q, k, v = dims[offset], dims[offset + 1], dims[offset + 2]
    if layout == "bhld":
        batch_heads, lq, d, lk, dv = prod(q[:-2]), q[-2], q[-1], k[-2], v[-1]
    else:
        if len(q) != 4:
            raise ValueError("packed variable-length attention")  # lengths are not in the shapes
        (b, lq, h, d), lk, dv = q, k[1], v[-1]
        batch_heads = b * h
    return 2 * batch_heads * lq * lk * (d + dv)


def attention_flops(name: str, dims: Sequence[Sequence[int]], concrete: Sequence[str]) -> int:
    """Forward: `_attention`; backward: 2 × forward (flop_counter's sdpa_backward_flop_count:
    dQ, dK, dV and dP). Causal masking (from the recorded arguments) halves both, as in the
    FlashAttention papers' FLOP counts: the kernels skip the masked half of QKᵀ and PV."""
    backward, offset, layout, causal_at = ATTENTION_OPS[name]
    count = _attention(dims, offset, layout) * (2 if backward else 1)
    return count // 2 if _is_causal(concrete, causal_at, layout) else count


def einsum_flops(equation: str, dims: Sequence[Sequence[int]]) -> int:
    """opt_einsum's `flop_count`: ∏ of every index size × (terms − 1, plus 1 when an index is
    summed away); two operands with a contraction = 2·∏, as a matmul."""
    inputs, arrow, output = equation.replace(" ", "").partition("->")
    terms = inputs.split(",")
    if "." in equation or len(terms) != len(dims):
        raise ValueError("einsum equation with an ellipsis, or not one term per operand")
    if not arrow:  # implicit mode: the output is the indices that appear once
        output = "".join(c for c in sorted(set(inputs) - {","}) if inputs.count(c) == 1)
    sizes: dict[str, int] = {}
    for term, shape in zip(terms, dims, strict=True):
        if len(term) != len(shape):
            raise ValueError("einsum term and shape disagree")
        for letter, size in zip(term, shape, strict=True):
            sizes[letter] = max(sizes.get(letter, 1), size)
    summed = any(letter not in output for letter in sizes)
    return prod(sizes.values()) * (max(1, len(terms) - 1) + int(summed))


def op_flops(name: str, input_dims: bytes, input_type: bytes, concrete: bytes) -> OpFlops:
    """FLOPs of one operator from the raw JSON of its Input Dims, Input type, Concrete Inputs."""
    if not input_dims:
        return OpFlops(None, None, "no Input Dims (record_shapes off)")
    dims = msgspec.json.decode(input_dims)
    types = msgspec.json.decode(input_type) if input_type else []
    precision = DTYPE_PRECISION.get(types[0]) if types else None
    literal = msgspec.json.decode(concrete) if concrete else []
    try:
        if name in ("aten::mm", "aten::bmm"):
            count = _mm(dims, 0) if name == "aten::mm" else _bmm(dims, 0)
        elif name in ("aten::addmm", "aten::baddbmm"):
            count = _mm(dims, 1) if name == "aten::addmm" else _bmm(dims, 1)
            precision = DTYPE_PRECISION.get(types[1]) if len(types) > 1 else precision
        elif name in CONV_OPS or name in CONV_ND_OPS:
            backward = name == "aten::convolution_backward"
            # Forward: stride, padding, dilation at 3-5 (unrecorded: "", e.g. padding="same").
            if len(literal) < 7 or not (backward or all(literal[i] for i in (3, 4, 5))):
                return OpFlops(None, precision, "convolution without Concrete Inputs")
            if backward:
                count = _conv_backward(dims, literal)
            else:
                count = _conv_forward(dims, literal, name in CONV_ND_OPS)
        elif name == EINSUM_OP:
            equation = _literal(literal[0]) if literal and literal[0] else None
            if not isinstance(equation, str):  # torch ≤ 2.13 records no strings
                return OpFlops(None, None, "einsum without its equation in Concrete Inputs")
            count = einsum_flops(equation, dims[1])
            precision = DTYPE_PRECISION.get(types[1]) if len(types) > 1 else None
        else:
            count = attention_flops(name, dims, literal)
            offset = ATTENTION_OPS[name][1]
            precision = DTYPE_PRECISION.get(types[offset]) if len(types) > offset else precision
    except (ValueError, TypeError, IndexError, SyntaxError, OverflowError, MemoryError):
        return OpFlops(None, precision, f"unexpected shapes {_short(dims)}")
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_OP_FLOPS:
        # Dims that are no whole numbers, negative, or absurd (1e12 a side): not counted.
        return OpFlops(None, precision, f"shapes out of range {_short(dims)}")
    return OpFlops(count, precision)


def _short(dims: Any) -> str:
    text = repr(dims)
    return text if len(text) <= 200 else text[:197] + "..."

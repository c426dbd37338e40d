"""Achieved FLOPs from the input shapes `torch.profiler(record_shapes=True)` writes.

torch writes no FLOP count into the trace, so the count is rebuilt from each operator's
`Input Dims` with the formulas of `torch.utils.flop_counter` (a multiply-add is 2 FLOPs).
Only the leaf operators that do the arithmetic are counted, so nothing is counted twice:
`aten::linear` and `aten::matmul` dispatch to `aten::mm` / `aten::addmm` / `aten::bmm`, and
`aten::conv2d` to `aten::convolution`. Backward passes appear as the same leaf operators
(`aten::mm`) or as `aten::convolution_backward` and the fused attention backward operators.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from math import prod
from typing import Any

import msgspec

MATMUL_OPS = frozenset({"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm"})
CONV_OPS = frozenset({"aten::convolution", "aten::convolution_backward"})
ATTENTION_FORWARD_OPS = frozenset(
    {
        "aten::_scaled_dot_product_flash_attention",
        "aten::_scaled_dot_product_efficient_attention",
        "aten::_scaled_dot_product_cudnn_attention",
        "aten::_flash_attention_forward",
        "aten::_efficient_attention_forward",
    }
)
ATTENTION_BACKWARD_OPS = frozenset(
    {
        "aten::_scaled_dot_product_flash_attention_backward",
        "aten::_scaled_dot_product_efficient_attention_backward",
        "aten::_scaled_dot_product_cudnn_attention_backward",
    }
)
FLOP_OPS = MATMUL_OPS | CONV_OPS | ATTENTION_FORWARD_OPS | ATTENTION_BACKWARD_OPS
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


def _conv_forward(dims: Sequence[Sequence[int]], concrete: Sequence[str]) -> int:
    x, w = dims[0], dims[1]
    stride, padding, dilation = (_literal(concrete[i]) for i in (3, 4, 5))
    transposed = concrete[6] == "True"
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


def _attention(dims: Sequence[Sequence[int]], offset: int) -> int:
    q, k, v = dims[offset], dims[offset + 1], dims[offset + 2]
    b, h, lq, d = q
    lk, dv = k[-2], v[-1]
    return 2 * b * h * lq * lk * (d + dv)


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
        elif name in CONV_OPS:
            if not literal:
                return OpFlops(None, precision, "convolution without Concrete Inputs")
            if name == "aten::convolution":
                count = _conv_forward(dims, literal)
            else:
                count = _conv_backward(dims, literal)
        elif name in ATTENTION_FORWARD_OPS:
            count = _attention(dims, 0)
        else:
            # Backward: grad_out, query, key, value, ...; twice the forward's matmuls.
            count = 2 * _attention(dims, 1)
            precision = DTYPE_PRECISION.get(types[1]) if len(types) > 1 else precision
    except (ValueError, TypeError, IndexError, SyntaxError, OverflowError, MemoryError):
        return OpFlops(None, precision, f"unexpected shapes {_short(dims)}")
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_OP_FLOPS:
        # Dims that are no whole numbers, negative, or absurd (1e12 a side): not counted.
        return OpFlops(None, precision, f"shapes out of range {_short(dims)}")
    return OpFlops(count, precision)


def _short(dims: Any) -> str:
    text = repr(dims)
    return text if len(text) <= 200 else text[:197] + "..."

"""Kernel categories by name, as HTA 0.5.0 assigns them (hta/utils/utils.py)."""

from __future__ import annotations

import pytest

from trainbudget.trace.categories import CATEGORIES, kernel_category

CASES = [
    (
        "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
        "communication",
    ),
    ("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", "communication"),  # RCCL
    ("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication"),
    ("rcclKernel_AllReduce", "communication"),  # our extension
    ("hcclAllReduce", "communication"),  # our extension
    ("Memcpy HtoD (Pinned -> Device)", "memory"),
    ("Memset (Device)", "memory"),
    ("dma_copy", "memory"),
    ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>", "computation"),
    ("volta_sgemm_128x64_nn", "computation"),
    ("Stream Sync", "other"),
    ("Event Sync", "other"),
    ("void copyMemcpyKernel", "other"),  # HTA: `.*Memcpy` anywhere is not computation
    ("ncclSomethingElse", "computation"),  # nccl without Kernel is not communication
]


@pytest.mark.parametrize(("name", "expected"), CASES)
def test_kernel_category(name: str, expected: str) -> None:
    assert CATEGORIES[kernel_category(name)] == expected

"""GPU kernel categories, by kernel name, as HolisticTraceAnalysis 0.5.0 defines them.

Source: `hta/utils/utils.py` (`get_kernel_type`). Communication is `^nccl.*Kernel` (which also
covers RCCL on AMD, whose kernels keep the `nccl` prefix); we add `^rccl.*Kernel` and `^hccl`
(Ascend) so other collective libraries are not counted as computation. Memory is a name that
starts with Memcpy, Memset or dma. Synchronisation events (`… Sync`) and names containing
`Memcpy` elsewhere fall in `other`, exactly as HTA's computation test excludes them.
"""

from __future__ import annotations

import re

import numpy as np

CATEGORIES = ("computation", "communication", "memory", "other")
COMPUTATION, COMMUNICATION, MEMORY, OTHER = range(4)

_COMMUNICATION = re.compile(r"^(?:nccl|rccl).*Kernel|^hccl")
_MEMORY = re.compile(r"(^Memcpy)|(^Memset)|(^dma)")
# HTA's "not computation" test, verbatim: note `(Memset)` is anchored at the start by
# re.match while `.*(Memcpy)` and `.*Sync` match anywhere in the name.
_NOT_COMPUTATION = re.compile(r"(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)")


def kernel_category(name: str) -> int:
    """Category index (see CATEGORIES) of one GPU event name."""
    if _COMMUNICATION.match(name):
        return COMMUNICATION
    if _MEMORY.match(name):
        return MEMORY
    if not _NOT_COMPUTATION.match(name):
        return COMPUTATION
    return OTHER


def categorize(names: list[str]) -> np.ndarray:
    """Category index of each distinct name, for indexing by an event's name id."""
    return np.fromiter((kernel_category(n) for n in names), dtype=np.int8, count=len(names))

"""Which allocation ended in an interruption (DESIGN.md, "Goodput, in the field's words").

NODE_FAIL, BOOT_FAIL, PREEMPTED and REQUEUED always; a failed, timed-out, cancelled or
out-of-memory job only when its diagnosed cause (registry) names the infrastructure.
"""

from __future__ import annotations

import re

INTERRUPTION_STATES = frozenset({"NODE_FAIL", "BOOT_FAIL", "PREEMPTED", "REQUEUED"})
FAILED_STATES = frozenset({"FAILED", "TIMEOUT", "CANCELLED", "OUT_OF_MEMORY"})
# Words of a diagnosed cause that put the failure on the infrastructure, not the job.
INFRASTRUCTURE_WORDS = (
    "infrastructure", "infra", "node", "hardware", "gpu fell", "xid", "ecc", "nvlink",
    "infiniband", "network", "nccl", "interconnect", "filesystem", "file system", "storage",
    "power", "switch",
)  # fmt: skip
_INFRA = re.compile(r"\b(" + "|".join(re.escape(w) for w in INFRASTRUCTURE_WORDS) + r")\b")


def is_infrastructure(diagnosed_cause: str | None) -> bool:
    """True when a diagnosed cause names the infrastructure (a word of INFRASTRUCTURE_WORDS)."""
    return bool(diagnosed_cause) and _INFRA.search(diagnosed_cause.lower()) is not None


def is_interruption(state: str, diagnosed_cause: str | None) -> bool:
    """True when an allocation that ended in `state` counts as one interruption."""
    if state in INTERRUPTION_STATES:
        return True
    return state in FAILED_STATES and is_infrastructure(diagnosed_cause)

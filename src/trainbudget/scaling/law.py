"""The Chinchilla loss law itself, free of NumPy so the quick `decide` command can use it.

L(N, D) = E + A / N^α + B / D^β (Hoffmann et al. 2022, Approach 3). `law` maps "E", "A", "B",
"alpha", "beta" to floats, or to arrays of bootstrap samples; N and D may be arrays too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def law_loss(law: Mapping[str, Any], params: Any, tokens: Any) -> Any:
    """Predicted loss at `params` parameters trained on `tokens` tokens (element-wise)."""
    return law["E"] + law["A"] / params ** law["alpha"] + law["B"] / tokens ** law["beta"]

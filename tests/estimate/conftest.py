"""Shared oracles of the estimate tests: the throughput prior's median, from published MFUs."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

# The 13 dense 16-bit MFUs of estimate/published_runs.toml as their sources publish them
# (GPT-3, Megatron-LM 1T, Gopher, MT-NLG, PaLM, OPT, GLM, BLOOM, LLaMA-65B, MPT-7B, MegaScale,
# Nemotron-4, Llama 3.1 405B; tests/estimate/test_throughput_prior.py checks each one).
DENSE_MFUS = (0.213, 0.392, 0.325, 0.302, 0.462, 0.345, 0.325, 0.352, 0.476, 0.501, 0.552, 0.41,
              0.404)  # fmt: skip


@pytest.fixture
def dense_prior_mfu() -> Decimal:
    """The dense 16-bit prior's median: e^(mean ln MFU), to 4 significant digits (0.3784)."""
    mu = sum(math.log(m) for m in DENSE_MFUS) / len(DENSE_MFUS)
    return Decimal(f"{math.exp(mu):.4g}")

"""A real torch 2.13 CPU trace of a 2-layer GPT (tests/fixtures/traces/torch_2_13_cpu_gpt2layer).

The FLOPs are worked out here from the model's shapes (make_trace.py beside the fixture), not
from the trace; the CPU memory peak is read from the file with the standard json module.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from trainbudget.trace.summary import summarize_rank

BATCH, SEQ, WIDTH, HEADS, VOCAB, LAYERS, STEPS = 2, 64, 64, 4, 256, 2, 2


@pytest.fixture
def gpt_trace(fixtures_dir: Path) -> Path:
    return fixtures_dir / "traces" / "torch_2_13_cpu_gpt2layer" / "gpt2layer_cpu.json.gz"


def _expected_step_flops() -> int:
    tokens, head_dim = BATCH * SEQ, WIDTH // HEADS
    # Per layer: qkv (d→3d), proj (d→d), up (d→4d), down (4d→d); then the LM head (d→V).
    linear = LAYERS * 2 * tokens * WIDTH * (3 * WIDTH + WIDTH + 4 * WIDTH + 4 * WIDTH)
    linear += 2 * tokens * WIDTH * VOCAB
    # Causal attention: QKᵀ and PV over the lower triangle, half of 2·B·H·L²·(D + D).
    attention = LAYERS * 2 * BATCH * HEADS * SEQ * SEQ * (2 * head_dim) // 2
    # Backward: input and weight gradients (2 × each matmul), dQ/dK/dV/dP (2 × attention).
    return 3 * (linear + attention)


def test_flops_include_causal_attention(gpt_trace: Path) -> None:
    s = summarize_rank(gpt_trace)
    assert [step.step for step in s.steps] == [2, 3]
    assert [step.flops for step in s.steps] == [_expected_step_flops()] * STEPS
    assert s.flops == STEPS * _expected_step_flops()
    assert s.flops_by_precision == {"fp32": s.flops}
    assert s.flop_ops_unmeasured == 0


def test_cpu_memory_peak_when_there_is_no_accelerator(gpt_trace: Path) -> None:
    events = json.loads(gzip.decompress(gpt_trace.read_bytes()))["traceEvents"]
    cpu = [
        e["args"]["Total Allocated"]
        for e in events
        if e.get("name") == "[memory]" and e["args"].get("Device Type") == 0
    ]
    s = summarize_rank(gpt_trace)
    assert s.memory_peak_bytes_by_device == {"cpu": max(cpu)}
    assert (s.memory_peak_bytes, s.memory_peak_device) == (max(cpu), "cpu")


def test_json_and_screen_state_the_flops_basis(cli, gpt_trace: Path) -> None:
    args = ("trace", str(gpt_trace), "--gpu-tflops", "1", "--no-ledger")
    payload = cli(*args, "--json").json()
    assert payload["flops_basis"] == "hardware"
    assert payload["ranks"][0]["flops_basis"] == "hardware"
    assert payload["memory_peak_bytes"] == payload["memory_peak_bytes_by_device"]["cpu"] > 0
    assert payload["mfu"] is not None
    screen = cli(*args)
    assert screen.code == 0, screen.stderr
    assert "MFU (hardware FLOPs)" in screen.stdout

"""The pilot summary: mix-weighted MFU, memory headroom against the catalog, warnings."""

from __future__ import annotations

from decimal import Decimal

import pytest

from trainbudget.base.errors import InputError
from trainbudget.estimate.catalog import get_accelerator
from trainbudget.pilot.ingest import read_step_log
from trainbudget.pilot.mix import parse_shape_mix
from trainbudget.pilot.summary import PilotOptions, summarize_pilot

D = Decimal
GIB = 2**30


@pytest.fixture
def two_shapes(make_log, row):
    """2048x8 on 8 GPUs: 16,384 tokens in 1.0 s; 8192x2 on 8 GPUs: 16,384 tokens in 2.0 s."""
    rows = [row(i, 1.0) for i in range(3)] + [
        row(10 + i, 2.0, seq_len=8192, batch_size=2, peak_memory_bytes=76 * GIB) for i in range(3)
    ]
    return read_step_log(make_log(rows)).steps


def test_declared_mix_drives_throughput_mfu_and_projection(two_shapes) -> None:
    gpu = get_accelerator("A100-80GB")
    options = PilotOptions(
        params=D("1e9"),
        gpu="A100-80GB",
        shape_mix=parse_shape_mix(["2048=0.75", "8192=0.25"]),
        train_tokens=D("1e10"),
    )
    summary = summarize_pilot(two_shapes, options, gpu)
    # per GPU: 2048 shape 16384/1/8 = 2048 tok/s, 8192 shape 16384/2/8 = 1024 tok/s
    # GPU-seconds per token: 0.75/2048 + 0.25/1024 = 1.25/2048
    per_gpu = D(2048) / D("1.25")
    assert summary.tokens_per_gpu_second == per_gpu
    assert summary.mfu == 6 * D("1e9") * per_gpu / D("312e12")
    assert summary.projected_gpu_hours == D("1e10") / per_gpu / 3600
    # headroom: A100-80GB holds 80 GiB; the long shape peaks at 76 GiB
    long_bucket = summary.buckets[1]
    assert summary.headroom(long_bucket) == (4 * GIB, D(4) / D(80))
    assert summary.min_headroom_bytes() == 4 * GIB
    assert any("only 5.0% of the A100-80GB's memory" in w for w in summary.warnings)
    payload = summary.to_payload()
    assert payload["mfu_source"] == "pilot"
    assert payload["shape_mix"]["worst_case"]["measured"] is True
    assert [b["worst_case"] for b in payload["buckets"]] == [False, True]


def test_the_projection_agrees_with_6nt_over_peak_and_mfu(two_shapes) -> None:
    gpu = get_accelerator("A100-80GB")
    options = PilotOptions(params=D("1e9"), train_tokens=D("1e10"))
    summary = summarize_pilot(two_shapes, options, gpu)
    # seed 004: GPU-seconds = 6·N·T / (peak · MFU)
    gpu_seconds = 6 * D("1e9") * D("1e10") / (D("312e12") * summary.mfu)
    assert abs(summary.projected_gpu_hours - gpu_seconds / 3600) < D("1e-18")


def test_an_unmeasured_worst_case_shape_is_warned(two_shapes) -> None:
    options = PilotOptions(shape_mix=parse_shape_mix(["2048=0.5", "8192=0.3", "32768=0.2"]))
    summary = summarize_pilot(two_shapes, options)
    assert summary.mix.coverage == D("0.8")
    assert any("never ran the worst-case shape seq_len 32768" in w for w in summary.warnings)
    assert any("renormalised" in w for w in summary.warnings)
    assert summary.mfu is None  # no params, no GPU


def test_no_mix_declared_is_warned(two_shapes) -> None:
    summary = summarize_pilot(two_shapes, PilotOptions())
    assert summary.mix.source == "pilot"
    assert any("no --shape-mix declared" in w for w in summary.warnings)


def test_memory_beyond_the_accelerator_is_warned(make_log, row) -> None:
    steps = read_step_log(make_log([row(0, 1.0, peak_memory_bytes=90 * GIB)])).steps
    summary = summarize_pilot(steps, PilotOptions(gpu="A100-80GB"), get_accelerator("A100-80GB"))
    assert summary.min_headroom_bytes() == -10 * GIB
    assert any("exceeds the A100-80GB's" in w for w in summary.warnings)


def test_an_implausible_mfu_is_warned(make_log, row) -> None:
    steps = read_step_log(make_log([row(0, 1.0)])).steps
    options = PilotOptions(params=D("1e12"))
    summary = summarize_pilot(steps, options, get_accelerator("A100-80GB"))
    assert summary.mfu > 1
    assert any("measured MFU" in w and "check --params" in w for w in summary.warnings)


def test_warmup_that_removes_everything_is_an_error(make_log, row) -> None:
    steps = read_step_log(make_log([row(0, 1.0), row(1, 1.0)])).steps
    with pytest.raises(InputError, match="warmup_steps 2: leaves no steps"):
        summarize_pilot(steps, PilotOptions(warmup_steps=2))


def test_the_measured_mfu_feeds_the_estimator(two_shapes) -> None:
    from trainbudget.estimate.run import estimate_run

    gpu = get_accelerator("A100-80GB")
    options = PilotOptions(
        params=D("1e9"),
        shape_mix=parse_shape_mix(["2048=0.75", "8192=0.25"]),
        train_tokens=D("1e10"),
    )
    summary = summarize_pilot(two_shapes, options, gpu)
    estimate = estimate_run(
        D("1e9"), D("1e10"), 8, gpu.peak_flops_per_second("bf16"), summary.mfu, D(1),
        mfu_source="pilot",
    )  # fmt: skip
    assert estimate.mfu_source == "pilot"
    # both say GPU-hours = tokens / (tokens per GPU-second) / 3600
    assert abs(estimate.gpu_hours - summary.projected_gpu_hours) < D("1e-15")

"""Hand-built traces with answers worked out by hand (µs), one definition at a time."""

from __future__ import annotations

import pytest

from trainbudget.trace.summary import summarize_rank

LOADER = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"


def _two_step_trace(make_trace):
    t = make_trace()
    t.step(1, 0, 100)
    t.step(2, 100, 100)
    t.kernel("volta_sgemm_128x64_nn", 10, 20)  # A [10, 30)
    t.kernel("void at::native::vectorized_elementwise_kernel<4>", 20, 20)  # B [20, 40)
    t.kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 35, 25)  # C [35, 60)
    t.kernel("Memcpy HtoD (Pinned -> Device)", 70, 5, cat="gpu_memcpy")  # D [70, 75)
    t.kernel("volta_sgemm_128x64_nn", 110, 20)  # E [110, 130), launched at 109 (step 2)
    t.kernel("Stream Sync", 130, 5, cat="cuda_sync")  # F [130, 135)
    t.cpu(LOADER, 1, 5)
    t.cpu(LOADER, 101, 3)
    t.cpu(
        "aten::mm", 2, 1, **{"Input Dims": [[64, 128], [128, 32]], "Input type": ["float", "float"]}
    )
    t.cpu(
        "aten::addmm",
        102,
        1,
        **{
            "Input Dims": [[32], [16, 8], [8, 32], [], []],
            "Input type": ["float", "float", "float", "Scalar", "Scalar"],
        },
    )
    t.memory(1, 100)
    t.memory(2, 300)
    t.memory(3, 200)
    t.memory(4, 5000, device=0, device_type=0)  # CPU memory is not the accelerator peak
    return t.write()


def test_busy_idle_categories_and_overlap(make_trace) -> None:
    s = summarize_rank(_two_step_trace(make_trace))
    # Busy = [10,60) + [70,75) + [110,135) = 50 + 5 + 25; span 10 → 135.
    assert s.gpu.busy_ns == 80_000
    assert s.gpu.span_ns == 125_000
    assert s.gpu.idle_ns == 45_000
    # Computation A∪B∪E = [10,40) + [110,130); the sync event is "other", never computation.
    assert s.gpu.by_category_ns == {
        "computation": 50_000,
        "communication": 25_000,
        "memory": 5_000,
        "other": 5_000,
    }
    # Communication [35,60) overlaps computation on [35,40): 5 of 25 µs.
    assert s.gpu.overlap_pct == pytest.approx(20.0)


def test_steps_dataloader_memory_and_flops(make_trace) -> None:
    s = summarize_rank(_two_step_trace(make_trace))
    assert [(x.step, x.duration_ns) for x in s.steps] == [(1, 100_000), (2, 100_000)]
    first, second = s.steps
    assert first.gpu.busy_ns == 55_000  # A, B, C, D launched in step 1
    assert second.gpu.busy_ns == 25_000  # E and F
    assert first.gpu.overlap_pct == pytest.approx(20.0)
    assert second.gpu.overlap_pct is None  # no communication in step 2
    assert (first.dataloader_ns, second.dataloader_ns, s.dataloader_ns) == (5_000, 3_000, 8_000)
    assert s.memory_peak_bytes == 300
    assert s.memory_peak_bytes_by_device == {"cuda:0": 300, "cpu": 5000}
    assert s.memory_peak_device == "cuda:0"  # an accelerator wins over the larger CPU peak
    assert first.flops == 2 * 64 * 128 * 32
    assert second.flops == 2 * 16 * 8 * 32
    assert s.flops == first.flops + second.flops
    assert s.flops_by_precision == {"fp32": s.flops}
    assert s.wall_ns == 200_000


def test_hta_compatible_drops_the_last_step(make_trace) -> None:
    s = summarize_rank(_two_step_trace(make_trace), hta_compatible=True)
    # Only GPU events launched before the last step's start (100) stay: A, B, C, D.
    assert s.gpu.busy_ns == 55_000
    assert s.gpu.span_ns == 65_000
    assert [x.step for x in s.steps] == [1]
    assert s.flops == 2 * 64 * 128 * 32


def test_hta_rounding_start_up_end_down(make_trace) -> None:
    t = make_trace()
    t.kernel("gemm", 10.4, 5.2)  # exact: 5.2 µs; HTA: [11, 15] → 4 µs
    t.kernel("gemm", 20.0, 0.5)  # exact: 0.5 µs; HTA: [20, 20] → 0 µs
    path = t.write()
    assert summarize_rank(path).gpu.busy_ns == 5_700
    assert summarize_rank(path, hta_compatible=True).gpu.busy_ns == 4_000


def test_lengths_are_exact_at_epoch_microseconds(make_trace) -> None:
    # 2,000 kernels of 1.001 µs, 2 µs apart, at 1.7e15 µs: float64 sums of absolute times
    # lose whole µs here; summing lengths keeps every ns.
    t = make_trace()
    base = 1_712_195_495_519_689
    for i in range(2000):
        t.kernel("gemm", base + 2 * i, 1.001)
    s = summarize_rank(t.write())
    assert s.gpu.busy_ns == 2000 * 1001
    assert s.gpu.span_ns == 2 * 1999 * 1000 + 1001


def test_cpu_only_trace_summarizes_without_error(make_trace) -> None:
    t = make_trace()
    t.step(7, 0, 50)
    t.cpu(LOADER, 5, 10)
    s = summarize_rank(t.write())
    assert s.gpu.busy_ns == 0 and s.gpu.span_ns == 0
    assert s.gpu.overlap_pct is None
    assert [(x.step, x.duration_ns, x.dataloader_ns) for x in s.steps] == [(7, 50_000, 10_000)]
    assert any("no GPU events" in w for w in s.warnings)


def test_trace_without_steps_is_summarized_whole_with_a_warning(make_trace) -> None:
    t = make_trace()
    t.kernel("gemm", 0, 10)
    t.kernel("gemm", 20, 10)
    s = summarize_rank(t.write(), hta_compatible=True)
    assert s.steps == []
    assert s.gpu.busy_ns == 20_000 and s.gpu.idle_ns == 10_000
    assert any("no ProfilerStep" in w for w in s.warnings)


def test_gpu_user_annotation_steps_are_not_cpu_steps(make_trace) -> None:
    t = make_trace()
    t.step(3, 0, 100)
    t.cpu("ProfilerStep#3", 40, 100, cat="gpu_user_annotation")
    s = summarize_rank(t.write())
    assert [(x.step, x.start_ns, x.duration_ns) for x in s.steps] == [(3, 0, 100_000)]


def test_non_integer_stream_is_cpu_side(make_trace) -> None:
    # AMD runtime calls carry "stream": "0x0"; like HTA they are not GPU events.
    t = make_trace()
    t.kernel("gemm", 10, 10)
    t.cpu("hipMemcpyWithStream", 0, 50, cat="cuda_runtime", stream="0x0", correlation=5)
    s = summarize_rank(t.write())
    assert s.gpu.busy_ns == 10_000 and s.gpu_event_count == 1

"""The demo campaign's measurements: pilot step logs, torch.profiler rank traces and the
small-model ablation points."""

from __future__ import annotations

import math

import numpy as np

from tools.demo_data.story import CHECKPOINT_BYTES


def pilot_rows(
    rng: np.random.Generator,
    run_id: str,
    seq_len: int,
    batch: int,
    base_seconds: float,
    peak_bytes: int,
    steps: int,
) -> list[dict[str, object]]:
    """Step log of a short pilot on 8 GPUs: 3 slow warm-up steps, checkpoints every 50 steps."""
    rows = []
    for step in range(1, steps + 1):
        seconds = base_seconds * (2.5 if step <= 3 else float(rng.normal(1.0, 0.015)))
        ckpt = step % 50 == 0
        rows.append(
            {
                "run_id": run_id,
                "step": step,
                "wall_seconds": round(seconds, 3),
                "tokens": seq_len * batch,
                "seq_len": seq_len,
                "batch_size": batch,
                "gpus": 8,
                "peak_memory_bytes": peak_bytes + int(rng.integers(0, 50_000_000)),
                "checkpoint_seconds": round(float(rng.normal(96.0, 3.0)), 2) if ckpt else "",
                "checkpoint_bytes": CHECKPOINT_BYTES if ckpt else "",
            }
        )
    return rows


def trace_document(rng: np.random.Generator, rank: int, world: int) -> dict:
    """A torch.profiler Chrome trace of 4 steps of the main shape on one rank (times in µs).

    Per step: 40 forward GEMMs, 80 backward GEMMs with bucketed NCCL all-reduces overlapping
    them on a second stream, an H2D copy of the next batch and the optimizer kernels.
    """
    events: list[dict] = [
        {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "python"}},
    ]
    pid, base = 4100 + rank, 1_763_712_000_000_000 + rank * 137
    slow = 1.0 + 0.03 * rank  # a slightly slower rank, as in real jobs
    now, corr = base, 1
    for step in range(4):
        step_start = now
        for phase, count, kernel_us in (("fwd", 40, 75_000), ("bwd", 80, 76_000)):
            for k in range(count):
                dur = int(kernel_us * slow * float(rng.normal(1.0, 0.02)))
                name = f"ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_tn_{phase}"
                events.append(
                    {
                        "ph": "X",
                        "cat": "cuda_runtime",
                        "name": "cudaLaunchKernel",
                        "pid": pid,
                        "tid": pid,
                        "ts": now - 40,
                        "dur": 8,
                        "args": {"correlation": corr},
                    }
                )
                events.append(
                    {
                        "ph": "X",
                        "cat": "kernel",
                        "name": name,
                        "pid": 0,
                        "tid": 7,
                        "ts": now,
                        "dur": dur,
                        "args": {"device": 0, "stream": 7, "correlation": corr},
                    }
                )
                if phase == "bwd" and k % 8 == 7:
                    events.append(
                        {
                            "ph": "X",
                            "cat": "kernel",
                            "pid": 0,
                            "tid": 20,
                            "ts": now + 2_000,
                            "dur": int(310_000 * float(rng.normal(1.0, 0.05))),
                            "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, "
                            "unsigned long, ncclWork*)",
                            "args": {"device": 0, "stream": 20, "correlation": corr + 100_000},
                        }
                    )
                now += dur + 150
                corr += 1
        events.append(
            {
                "ph": "X",
                "cat": "gpu_memcpy",
                "name": "Memcpy HtoD (Pinned -> Device)",
                "pid": 0,
                "tid": 7,
                "ts": now,
                "dur": 4_200,
                "args": {"device": 0, "stream": 7, "bytes": 1_310_720 * 8},
            }
        )
        now += 4_400
        for _ in range(12):
            events.append(
                {
                    "ph": "X",
                    "cat": "kernel",
                    "pid": 0,
                    "tid": 7,
                    "ts": now,
                    "dur": 41_000,
                    "name": "void multi_tensor_apply_kernel<AdamFunctor>",
                    "args": {"device": 0, "stream": 7, "correlation": corr},
                }
            )
            now += 41_200
            corr += 1
        now += int(220_000 * float(rng.normal(1.0, 0.1)))  # data loader wait: the GPU idles
        events.append(
            {
                "ph": "X",
                "cat": "user_annotation",
                "name": f"ProfilerStep#{step + 10}",
                "pid": pid,
                "tid": pid,
                "ts": step_start - 60,
                "dur": now - step_start + 60,
                "args": {},
            }
        )
        events.append(
            {
                "ph": "i",
                "cat": "cpu_instant_event",
                "name": "[memory]",
                "s": "t",
                "pid": pid,
                "tid": pid,
                "ts": step_start + 3_000_000,
                "args": {
                    "Device Type": 1,
                    "Device Id": 0,
                    "Addr": 0,
                    "Bytes": 1 << 30,
                    "Total Allocated": 61_200_000_000 + rank * 40_000_000,
                    "Total Reserved": 66_000_000_000,
                },
            }
        )
    return {
        "schemaVersion": 1,
        "deviceProperties": [
            {
                "id": 0,
                "name": "NVIDIA A100-SXM4-80GB",
                "totalGlobalMem": 85_899_345_920,
                "computeMajor": 8,
                "computeMinor": 0,
                "numSms": 108,
            }
        ],
        "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world},
        "traceEvents": events,
    }


def ablation_rows(rng: np.random.Generator) -> list[dict[str, object]]:
    """Small-model ablations: loss = E + A/N^α + B/D^β (Hoffmann et al. 2022) × 1 % noise."""
    e, a, b, alpha, beta = 1.69, 406.4, 410.7, 0.34, 0.28
    rows = []
    for params in (20e6, 40e6, 85e6, 160e6, 320e6, 600e6):
        for tokens_per_param in (5, 10, 20, 40, 80):
            tokens = params * tokens_per_param
            loss = (e + a / params**alpha + b / tokens**beta) * math.exp(rng.normal(0, 0.01))
            rows.append({"params": int(params), "tokens": int(tokens), "loss": round(loss, 5)})
    return rows

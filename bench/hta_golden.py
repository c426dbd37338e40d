"""Produce the HTA 0.5.0 golden numbers for tests/golden/trace/ (run once, in a side venv).

Not needed by `make test`: the numbers it writes are committed. Reproduce with

    python3 -m venv /work/hta-venv
    /work/hta-venv/bin/pip install holistictraceanalysis==0.5.0 pandas==2.2.3
    /work/hta-venv/bin/python bench/hta_golden.py tests/fixtures/traces tests/golden/trace

Each case runs HTA's TraceAnalysis with its defaults (last ProfilerStep dropped, float
timestamps rounded to whole µs) and records, per rank: the temporal breakdown, the
communication/computation overlap and the kernel-type breakdown (memory kernels included).
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

# One case per rank set: a folder of ranks, or one file when a folder holds separate sessions.
CASES = {
    "sampled_2rank_a100": [
        "hta_sampled_2rank_a100/sampled_rank-0.json.gz",
        "hta_sampled_2rank_a100/sampled_rank-1.json.gz",
    ],
    "df_index_resolver_v100": ["hta_df_index_resolver_v100_ddp/df_index_resolver.json.gz"],
    "negative_queue_length_a100": ["hta_negative_queue_length_a100/rank0.json.gz"],
    "trace_diff_control_a100": ["hta_trace_diff_control_a100/control.json.gz"],
    "trace_diff_test_v100": ["hta_trace_diff_test_v100/test.json.gz"],
    "nccl_parser_config_a100": ["hta_nccl_parser_config_a100/nccl_data.json.gz"],
    "ns_resolution_v100": ["hta_ns_resolution_v100/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"],
    "amd_mi250": ["hta_amd_mi250/mi250_minitoy_train_ROCm6_2_kineto.json.gz"],
    "alexnet_a100": ["hta_alexnet_a100/benchmark_result_2869224_1695835535_trace.json.gz"],
    "kineto_resnet50_nw0": ["kineto_resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"],
    "kineto_resnet50_nw4": ["kineto_resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz"],
    "tracelens_mi300": ["tracelens_mi300_resnet_act_checkpoint/resnet_act_checkpoint.json.gz"],
    "tracelens_b200": ["tracelens_b200_eager/eager_trace.json.gz"],
}


def rank_of(path: Path) -> int:
    import gzip

    with gzip.open(path, "rb") as handle:
        meta = json.loads(handle.read()).get("distributedInfo") or {}
    return int(meta.get("rank", 0))


def run_case(fixtures: Path, files: list[str]) -> dict:
    from hta.trace_analysis import TraceAnalysis

    trace_files = {rank_of(fixtures / f): str(fixtures / f) for f in files}
    analysis = TraceAnalysis(trace_files=trace_files, trace_dir=str(fixtures))
    temporal = analysis.get_temporal_breakdown(visualize=False)
    overlap = analysis.get_comm_comp_overlap(visualize=False)
    ranks = []
    for rank in sorted(trace_files):
        row = temporal[temporal["rank"] == rank].iloc[0]
        ov = overlap[overlap["rank"] == rank].iloc[0]["comp_comm_overlap_pctg"]
        one = TraceAnalysis(trace_files={rank: trace_files[rank]}, trace_dir=str(fixtures))
        kinds, _ = one.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=True)
        ranks.append(
            {
                "rank": rank,
                "file": files[sorted(trace_files).index(rank)],
                "idle_time_us": int(row["idle_time(us)"]),
                "compute_time_us": int(row["compute_time(us)"]),
                "non_compute_time_us": int(row["non_compute_time(us)"]),
                "kernel_time_us": int(row["kernel_time(us)"]),
                "idle_time_pctg": float(row["idle_time_pctg"]),
                "compute_time_pctg": float(row["compute_time_pctg"]),
                "non_compute_time_pctg": float(row["non_compute_time_pctg"]),
                "comp_comm_overlap_pctg": None if ov != ov else float(ov),
                "kernel_type_us": {
                    k: int(v) for k, v in zip(kinds["kernel_type"], kinds["sum"], strict=True)
                },
            }
        )
    return {"hta_version": "0.5.0", "files": files, "ranks": ranks}


def main() -> None:
    fixtures, out = Path(sys.argv[1]), Path(sys.argv[2])
    logging.disable(logging.WARNING)
    only = set(sys.argv[3:])
    for case, files in CASES.items():
        if only and case not in only:
            continue
        try:
            result = run_case(fixtures, files)
        except Exception as exc:  # record HTA's own failure as the expected outcome
            result = {
                "hta_version": "0.5.0",
                "files": files,
                "error": f"{type(exc).__name__}: {exc}",
            }
        target = out / case / "expected"
        target.mkdir(parents=True, exist_ok=True)
        (target / "hta.json").write_text(json.dumps(result, indent=2) + "\n")
        print(case, "error" if "error" in result else "ok", flush=True)


if __name__ == "__main__":
    main()

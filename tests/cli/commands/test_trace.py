"""`trainbudget trace` from the outside: the JSON contract, landing, and bad input (exit 2)."""

from __future__ import annotations

import gzip
from pathlib import Path

import duckdb
import pytest

RANK_KEYS = {
    "rank",
    "gpu_busy_us",
    "gpu_idle_us",
    "gpu_kernel_us_by_category",
    "comm_comp_overlap_pct",
    "memory_peak_bytes",
    "steps",
}
TOP_KEYS = {
    "ranks",
    "steps",
    "gpu_kernel_us_by_category",
    "gpu_busy_us",
    "gpu_idle_us",
    "memory_peak_bytes",
    "flops",
}


def _rows(ledger_path: Path, table: str) -> int:
    with duckdb.connect(str(ledger_path), read_only=True) as con:
        return con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_contract_keys_and_landing(cli, fixtures_dir: Path, ledger_path: Path) -> None:
    folder = fixtures_dir / "traces" / "hta_sampled_2rank_a100"
    result = cli("trace", str(folder), "--hta-compatible", "--ledger", str(ledger_path), "--json")
    assert result.code == 0, result.stderr
    payload = result.json()
    assert payload.keys() >= TOP_KEYS
    assert [r["rank"] for r in payload["ranks"]] == [0, 1]
    for rank in payload["ranks"]:
        assert rank.keys() >= RANK_KEYS
        assert set(rank["gpu_kernel_us_by_category"]) == {
            "computation",
            "communication",
            "memory",
            "other",
        }
        assert rank["gpu_busy_us"] + rank["gpu_idle_us"] == rank["gpu_span_us"]
    assert payload["gpu_busy_us"] == sum(r["gpu_busy_us"] for r in payload["ranks"])
    # HTA's numbers for these two ranks (tests/golden/trace/sampled_2rank_a100).
    assert [round(r["idle_pct"], 2) for r in payload["ranks"]] == [53.56, 54.72]
    assert [s["step"] for s in payload["steps"]] == [551]  # the last step (552) is dropped
    assert all(item["landed"] for item in payload["landed"])
    assert _rows(ledger_path, "trace_ranks") == 2
    assert _rows(ledger_path, "trace_steps") == 2
    again = cli("trace", str(folder), "--hta-compatible", "--ledger", str(ledger_path), "--json")
    assert [item["landed"] for item in again.json()["landed"]] == [False, False]
    assert _rows(ledger_path, "trace_ranks") == 2


def test_mfu_against_a_catalog_gpu(cli, fixtures_dir: Path) -> None:
    path = fixtures_dir / "traces" / "tracelens_mi300_resnet_act_checkpoint"
    result = cli("trace", str(path), "--gpu", "H100-SXM", "--no-ledger", "--json")
    assert result.code == 0, result.stderr
    payload = result.json()
    assert payload["precision"] == "bf16"
    assert payload["peak_tflops_per_second"] == 989.4
    rank = payload["ranks"][0]
    assert payload["mfu"] == rank["achieved_tflops_per_second"] / 989.4
    assert rank["flops"] > 0


def test_human_output_and_warnings_on_stderr(cli, fixtures_dir: Path) -> None:
    path = fixtures_dir / "traces" / "hta_alexnet_a100"
    result = cli("trace", str(path), "--no-ledger")
    assert result.code == 0, result.stderr
    assert "GPU time per rank" in result.stdout
    assert "no ProfilerStep markers" in result.stderr


def test_bad_input_exits_2_and_lands_nothing(
    cli, fixtures_dir: Path, tmp_path: Path, ledger_path: Path
) -> None:
    good = fixtures_dir / "traces" / "hta_amd_mi250"
    broken = tmp_path / "rank1.json.gz"
    data = gzip.compress(b'{"traceEvents": [' + b'{"ph": "X", "ts": 1, "dur": 2},' * 5000)
    broken.write_bytes(data[:-40])
    result = cli("trace", str(good), str(broken), "--ledger", str(ledger_path), "--json")
    assert result.code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "rank1.json.gz: truncated gzip" in lines[0]
    assert not ledger_path.exists() or _rows(ledger_path, "trace_ranks") == 0


def test_bomb_limit_option(cli, tmp_path: Path) -> None:
    path = tmp_path / "big.json.gz"
    path.write_bytes(gzip.compress(b'{"traceEvents": [{"name": "' + b"a" * (4 << 20) + b'"}]}'))
    result = cli("trace", str(path), "--max-json-bytes", "1000000", "--no-ledger", "--json")
    assert result.code == 2
    assert "refused: decompresses to more than 1,000,000 bytes" in result.stderr


def test_mfu_against_a_given_peak(cli, fixtures_dir: Path) -> None:
    path = fixtures_dir / "traces" / "hta_amd_mi250"
    result = cli("trace", str(path), "--gpu-tflops", "95.7", "--no-ledger", "--json")
    assert result.code == 0, result.stderr
    payload = result.json()
    # 2·5·128·128 (addmm) + 2·128·5·128 (mm): the toy model's one linear layer, fwd + bwd.
    assert payload["flops"] == 2 * 5 * 128 * 128 + 2 * 128 * 5 * 128
    assert payload["precision"] == "fp32"
    assert payload["mfu"] == pytest.approx(payload["achieved_tflops_per_second"] / 95.7)
    bad = cli("trace", str(path), "--gpu-tflops", "-1", "--no-ledger", "--json")
    assert bad.code == 2 and "--gpu-tflops: must be positive" in bad.stderr

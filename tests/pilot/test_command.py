"""`trainbudget pilot` from the outside: JSON contract, warnings on stderr, exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

KEYS = {
    "files", "rejected_rows", "steps", "runs", "buckets", "shape_mix", "tokens_per_gpu_second",
    "mfu", "mfu_source", "params", "gpu", "precision", "peak_flops_per_second", "memory_bytes",
    "memory_headroom_bytes", "checkpoint", "warmup_steps", "train_tokens",
    "projected_gpu_hours", "warnings", "analysis_key", "analysis_landed",
}  # fmt: skip
BUCKET_KEYS = {
    "seq_len", "batch_size", "gpus", "steps", "runs", "tokens", "median_step_seconds",
    "p95_step_seconds", "max_step_seconds", "tokens_per_step", "tokens_per_second",
    "tokens_per_gpu_second", "peak_memory_bytes", "memory_headroom_bytes",
    "memory_headroom_fraction", "mfu", "mix_fraction", "worst_case",
}  # fmt: skip


def test_json_output_and_measured_mfu(cli, make_log, row, ledger_path: Path) -> None:
    # 7e9 params, 8 GPUs, 1,048,576 tokens in 5.0 s on H100-SXM (989.4 dense bf16 TFLOP/s)
    path = make_log([row(i, 5.0, tokens=1_048_576) for i in range(4)] + [row(4, -1)])
    result = cli(
        "--ledger", str(ledger_path), "pilot", str(path), "--params", "7e9",
        "--gpu", "h100-sxm", "--shape-mix", "2048=1", "--json",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    payload = result.json()
    assert set(payload) >= KEYS
    assert set(payload["buckets"][0]) >= BUCKET_KEYS
    expected_mfu = 6 * 7e9 * 1_048_576 / (5.0 * 8 * 989.4e12)
    assert payload["mfu"] == pytest.approx(expected_mfu, rel=1e-12)
    assert payload["mfu_source"] == "pilot"
    assert payload["gpu"] == "H100-SXM"
    assert payload["rejected_rows"] == [
        {"path": str(path), "line": 6, "reason": "wall_seconds: must be greater than 0, found -1.0"}
    ]
    assert "1 row(s) rejected and quarantined" in result.stderr
    info = cli("--ledger", str(ledger_path), "ledger", "info", "--json").json()
    tables = {t["table"]: t["rows"] for t in info["tables"]}
    assert (tables["pilot_steps"], tables["quarantine"], tables["pilot_buckets"]) == (4, 1, 1)


def test_human_output_names_the_shapes(cli, make_log, row, ledger_path: Path) -> None:
    path = make_log([row(0, 1.0), row(1, 1.0, seq_len=8192, batch_size=2)])
    args = ("--ledger", str(ledger_path), "pilot", str(path), "--shape-mix", "2048=1")
    result = cli(*args, env={"COLUMNS": "160"})
    assert result.code == 0, result.stderr
    assert "2048x8 on 8" in result.stdout and "8192x2 on 8" in result.stdout
    assert "tokens per GPU-second" in result.stdout


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--gpu", "Z9000"], "gpu: unknown accelerator 'Z9000'"),
        (["--params", "lots"], "--params: must be a positive number, got 'lots'"),
        (["--shape-mix", "2048=0.5"], "shape_mix: the fractions sum to 0.5"),
        (["--gpu", "A100-80GB", "--precision", "fp8"], "precision: A100-80GB has no"),
    ],
)
def test_bad_options_exit_2_with_one_line(cli, make_log, row, ledger_path, extra, message) -> None:
    path = make_log([row(0, 1.0)])
    result = cli("--ledger", str(ledger_path), "pilot", str(path), *extra, "--json")
    assert result.code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"trainbudget: error: {message}")


def test_a_bad_file_exits_2_and_leaves_the_ledger_empty(cli, tmp_path, ledger_path) -> None:
    bad = tmp_path / "steps.jsonl"
    bad.write_text('{"run_id": "r"}\n')
    result = cli("--ledger", str(ledger_path), "pilot", str(bad), "--json")
    assert result.code == 2
    assert result.stderr.startswith(f"trainbudget: error: {bad}: missing column(s) step")
    assert not ledger_path.exists()  # the failed run leaves no ledger it created


def test_a_real_pilot_run_imports_no_heavy_framework(make_log, row, tmp_path) -> None:
    import subprocess
    import sys

    path = make_log([row(0, 1.0)])
    probe = (
        "import sys\n"
        "from trainbudget.cli import main\n"
        f"code = main(['--ledger', {str(tmp_path / 'l.duckdb')!r}, 'pilot', {str(path)!r},"
        " '--gpu', 'A100-80GB', '--params', '1e9', '--json'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('prefect', 'great_expectations', 'torch'))\n"
        "print('HEAVY=' + ','.join(heavy), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY=\n" in proc.stderr

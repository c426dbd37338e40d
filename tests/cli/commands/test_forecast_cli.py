"""`campaign --json` with a forecast and `estimate --flops-terms`, run as a user runs them."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
LLAMA_PLAN = REPO_ROOT / "examples" / "published" / "llama3.1-405b.plan.yaml"
SEED_RUN = ["--params", "7e9", "--tokens", "1e11", "--gpus", "8", "--price", "1.50"]
FORECAST_KEYS = {
    "main_gpu_hours", "main_wall_hours", "compute_gpu_hours", "ettr", "overhead_gpu_hours",
    "mtbf_hours", "mtbf_source", "checkpoint_interval_minutes", "phases",
}  # fmt: skip


def _exact(stdout: str) -> dict:
    return json.loads(stdout, parse_float=Decimal)


def test_campaign_json_carries_the_forecast_contract(cli) -> None:
    result = cli("campaign", str(LLAMA_PLAN), "--json")
    assert result.code == 0, result.stderr
    data = _exact(result.stdout)
    forecast = data["forecast"]
    assert set(forecast) >= FORECAST_KEYS
    overhead = forecast["overhead_gpu_hours"]
    assert set(overhead) == {"checkpoint_writes", "lost_progress", "restarts", "spares"}
    parts = [forecast["compute_gpu_hours"], *overhead.values()]
    assert sum(Fraction(p) for p in parts) == Fraction(forecast["main_gpu_hours"])
    assert forecast["mtbf_source"] == "fleet" and 0 < forecast["ettr"] <= 1
    (main,) = [ln for ln in data["lines"] if ln["work_class"] == "main"]
    assert main["gpu_hours"] == forecast["main_gpu_hours"]
    assert [p["name"] for p in forecast["phases"]] == ["ramp-up", "main", "long-context"]
    assert "ettr_interval" not in forecast  # the fleet prior has no interval


def test_campaign_table_shows_each_overhead_with_its_arithmetic(cli, tmp_path: Path) -> None:
    plan = tmp_path / "p.yaml"
    plan.write_text(
        "campaign: t\nunit_of_progress: tokens\nprices: {gpu_hour_usd: 2}\n"
        "ceiling: {gpu_hours: 1e6}\nmain: {gpus: 384, hours: 1000}\n"
        "reliability: {spare_gpus: 32, job_mtbf_hours: 112, restart_minutes: 10,"
        " checkpoint_write_minutes: 5, checkpoint_interval_minutes: 180}\n"
    )
    result = cli("campaign", str(plan), env={"COLUMNS": "200"})
    assert result.code == 0, result.stderr
    # 1,000 h of compute at a fixed 180 min interval: 333.3 checkpoints of 5 min on 416 GPUs.
    assert "333.3 checkpoints × 5.00 min × 416 GPUs" in result.stdout
    assert "32 spare GPUs × 1,000.0 h compute" in result.stdout
    assert "interruptions ×" in result.stdout and "ETTR" in result.stdout


def test_mtbf_ledger_without_a_fit_is_one_line_exit_2(cli, tmp_path: Path) -> None:
    plan = tmp_path / "p.yaml"
    plan.write_text(LLAMA_PLAN.read_text().replace("mtbf: fleet", "mtbf: ledger"))
    result = cli("campaign", str(plan), "--json")
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.startswith("trainbudget: error: reliability.mtbf: ledger needs")
    assert len(result.stderr.strip().splitlines()) == 1


def test_throughput_that_looks_like_hardware_flops_warns_once(cli, tmp_path: Path) -> None:
    plan = tmp_path / "p.yaml"
    plan.write_text(
        "campaign: t\nunit_of_progress: tokens\nprices: {gpu_hour_usd: 2}\n"
        "ceiling: {gpu_hours: 1e9}\n"
        "main: {gpus: 8, gpu: H100-SXM, params: 7e9, tokens: 1e11, throughput_tflops: 700}\n"
        "reliability: {job_mtbf_hours: 100, checkpoint_write_minutes: 1}\n"
    )
    result = cli("campaign", str(plan), "--json")
    assert result.code == 0 and result.json()["forecast"]
    warnings = [ln for ln in result.stderr.splitlines() if "hardware FLOPs" in ln]
    assert len(warnings) == 1 and "main.flops.terms" in warnings[0]


def test_the_table_shows_the_band_and_a_layout_without_reliability(cli, tmp_path: Path) -> None:
    plan = tmp_path / "p.yaml"
    plan.write_text(
        "campaign: t\nunit_of_progress: tokens\nprices: {gpu_hour_usd: 2}\n"
        "ceiling: {gpu_hours: 1e9}\n"
        "main: {gpus: 384, gpu: A100-80GB, params: 176e9, tokens: 341e9,\n"
        "  flops: {n_layers: 70, d_model: 14336, seq_len: 2048, vocab: 250880},\n"
        "  parallel: {tp: 4, pp: 12, micro_batch: 2, global_batch: 2048, recompute: full}}\n"
    )
    result = cli("campaign", str(plan), env={"COLUMNS": "200"})
    assert result.code == 0, result.stderr
    # dp = 384 / 48 = 8, m = 2048 / (2 · 8) = 128: the bubble is 11 / (128 + 11) = 7.9 %.
    assert "layout: pipeline bubble 7.9% of the step" in result.stdout
    assert "(throughput prior; moved most by the throughput)" in result.stdout


def test_estimate_combines_flops_terms_and_says_the_basis(cli) -> None:
    shape = ["--n-layers", "32", "--d-model", "4096", "--seq-len", "4096", "--vocab", "32000"]
    terms = ["--flops-terms", "recompute,attention,logits"]
    result = cli("estimate", *SEED_RUN, "--gpu", "A100-80GB", "--mfu", "0.4", *terms, *shape,
                 "--json")  # fmt: skip
    assert result.code == 0, result.stderr
    data = _exact(result.stdout)
    per_token = 8 * 7 * 10**9 + 16 * 32 * 4096 * 4096 + 6 * 32000 * 4096
    assert data["flops"] == per_token * 10**11
    assert data["flops_basis"] == "hardware FLOPs: 6·N·T + recompute + attention + logits"
    expected = Fraction(2, 5) * 6 * 7 * 10**9 / per_token  # a quotient: 50 digits
    assert abs(Fraction(data["model_flops_mfu"]) - expected) < Fraction(1, 10**48)
    table = cli("estimate", *SEED_RUN, "--gpu", "A100-80GB", "--mfu", "0.4", *terms, *shape,
                env={"COLUMNS": "200"})  # fmt: skip
    assert "MFU 0.4 on hardware FLOPs: 6·N·T + recompute + attention + logits" in table.stdout
    assert "on model FLOPs 6·N·T" in table.stdout


def test_estimate_flops_terms_errors_name_the_flag(cli) -> None:
    missing = cli("estimate", *SEED_RUN, "--gpu", "A100-80GB", "--flops-terms", "attention")
    assert missing.code == 2 and missing.stderr.startswith("trainbudget: error: --n-layers:")
    both = cli("estimate", *SEED_RUN, "--gpu", "A100-80GB", "--method", "recompute",
               "--flops-terms", "recompute")  # fmt: skip
    assert both.code == 2 and both.stderr.startswith("trainbudget: error: --flops-terms:")


def test_moe_method_implies_the_moe_prior_and_fp8_its_own(cli) -> None:
    moe = cli("estimate", *SEED_RUN, "--gpu", "H100-SXM", "--method", "moe",
              "--active-params", "2e9", "--json")  # fmt: skip
    assert moe.code == 0, moe.stderr
    # The throughput prior's medians (tests/estimate/conftest.py): MoE 16-bit 0.2425; dense
    # in fp8 each published 16-bit MFU × 0.7, e^(mean ln) = 0.3784 × 0.7 to 4 digits.
    assert _exact(moe.stdout)["mfu"] == Decimal("0.2425")
    assert _exact(moe.stdout)["model_class"] == "moe"
    fp8 = cli("estimate", *SEED_RUN, "--gpu", "H100-SXM", "--precision", "fp8", "--json")
    assert _exact(fp8.stdout)["mfu"] == Decimal("0.2649")

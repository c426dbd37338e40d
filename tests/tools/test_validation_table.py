"""tools/validation_table.py: the naive column is 6·N·T at the published rate; the table's
shape holds with and without a `forecast` in the campaign payload."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from tools.validation_table import (
    PUBLISHED,
    load_actuals,
    main,
    markdown,
    naive_gpu_hours,
    prelaunch_row,
)


def test_naive_is_six_n_t_at_the_published_throughput() -> None:
    # BLOOM: 176e9 params, 366e9 tokens at 150 TFLOP/s per GPU (BLOOM paper).
    main_section = {"params": "176e9", "tokens": "366e9", "gpus": 384, "throughput_tflops": 150}
    expected = Fraction(6 * 176 * 10**9 * 366 * 10**9, 150 * 10**12 * 3600)
    assert float(naive_gpu_hours(main_section)) == pytest.approx(float(expected), rel=1e-12)


def test_naive_at_a_published_mfu_uses_the_catalog_peak() -> None:
    # PaLM: 540.35e9 params, 780e9 tokens, MFU 46.2 % of TPU v4's 275 TFLOP/s bf16 per chip.
    section = {
        "params": "540.35e9",
        "tokens": "780e9",
        "gpus": 6144,
        "gpu": "TPU-v4",
        "precision": "bf16",
        "mfu": "0.462",
    }
    expected = Fraction(6 * 54035 * 10**7 * 780 * 10**9) / (Fraction("0.462") * 275 * 10**12) / 3600
    assert float(naive_gpu_hours(section)) == pytest.approx(float(expected), rel=1e-12)


def _row(forecast: Decimal | None, line: tuple[str, Decimal] | None) -> dict:
    actual, naive = Decimal(1000), Decimal(600)
    return {
        "campaign": "x",
        "actual": actual,
        "naive": naive,
        "forecast": forecast,
        "largest_line": line,
        "error_naive": (naive - actual) / actual,
        "error_forecast": None if forecast is None else (forecast - actual) / actual,
    }


def test_markdown_with_and_without_a_forecast() -> None:
    text = markdown([_row(Decimal(950), ("restarts", Decimal(200))), _row(None, None)])
    lines = text.splitlines()
    assert lines[0].startswith("| campaign | actual GPU-h | naive 6·N·T | forecast |")
    assert lines[2] == "| x | 1,000 | 600 | 950 | -40.0 % | -5.0 % | restarts: 200 GPU-h |"
    assert lines[3] == "| x | 1,000 | 600 | — | -40.0 % | — | — |"


def test_the_script_runs_on_the_published_folder(capsys) -> None:
    assert main(["--folder", str(PUBLISHED), "--part", "hindsight"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == len(list(PUBLISHED.glob("*.plan.yaml")))
    assert all("%" in row for row in rows)  # every campaign has its naive error


def test_a_strictly_pre_launch_row_uses_only_earlier_points_and_planned_tokens() -> None:
    actuals = load_actuals(PUBLISHED / "actuals.csv")
    launch = load_actuals(PUBLISHED / "prelaunch" / "launch.csv")
    r = prelaunch_row(PUBLISHED / "prelaunch" / "bloom-176b.plan.yaml", actuals, launch)
    # Before 11 March 2022 one dense MFU was published: Megatron-LM's 1T run, 0.392.
    assert r["prior_points"] == 1 and r["prior_mfu"] == Decimal("0.392")
    assert r["p10"] <= r["p50"] <= r["p90"] and r["inside"] == (r["p10"] <= r["actual"] <= r["p90"])
    assert r["actual"] == 1_082_990


def test_every_pre_launch_plan_is_priced_at_the_prior_with_the_fleet_mtbf() -> None:
    import yaml

    plans = sorted((PUBLISHED / "prelaunch").glob("*.plan.yaml"))
    launch = load_actuals(PUBLISHED / "prelaunch" / "launch.csv")
    actuals = load_actuals(PUBLISHED / "actuals.csv")
    assert len(plans) >= 8
    for path in plans:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert not {"mfu", "throughput_tflops", "flops", "phases"} & set(data["main"])
        assert data["reliability"]["mtbf"] == "fleet"
        assert data["campaign"] in launch and data["campaign"] in actuals

"""examples/published/*.plan.yaml: every published campaign loads, with DESIGN.md's plan keys.

The forecast keys (main.throughput_tflops, main.flops, main.phases, reliability) are DESIGN.md's
"Forecasting the main run". Where the plan loader knows them, each file goes through it whole;
where it does not yet, the file's forecast part is checked against DESIGN's key list and the
rest goes through the real loader. Nothing is skipped either way.
"""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from trainbudget.estimate.catalog import get_accelerator
from trainbudget.plan import load_plan
from trainbudget.plan.fields import keys_of
from trainbudget.plan.load import parse_plan
from trainbudget.plan.sections import Plan

PUBLISHED = Path(__file__).resolve().parents[1] / "examples" / "published"
PLANS = sorted(PUBLISHED.glob("*.plan.yaml"))
ACTUALS = PUBLISHED / "actuals.csv"

# DESIGN.md, "Forecasting the main run": the keys of each section.
FORECAST_MAIN_KEYS = {"throughput_tflops", "flops", "phases"}
FLOPS_KEYS = {"terms", "n_layers", "d_model", "seq_len", "vocab", "n_heads", "n_kv_heads",
              "head_dim", "tied_embeddings"}  # fmt: skip
FLOPS_TERMS = {"recompute", "attention", "logits"}
TERM_NEEDS = {
    "attention": {"n_layers", "d_model", "seq_len"},
    "recompute": set(),
    "logits": {"d_model", "vocab"},
}
PHASE_KEYS = {"tokens", "gpus", "name", "throughput_tflops", "mfu", "seq_len", "gpu", "precision",
              "spare_gpus", "restart_minutes", "checkpoint_write_minutes"}  # fmt: skip
RELIABILITY_KEYS = {
    "spare_gpus",
    "job_mtbf_hours",
    "mtbf",
    "restart_minutes",
    "checkpoint_write_minutes",
    "checkpoint_interval_minutes",
    "rollbacks",
}
LOADER_KNOWS_FORECAST = "reliability" in set(keys_of(Plan))


def _yaml(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_there_are_at_least_four_published_campaigns_besides_llama() -> None:
    names = {path.name for path in PLANS} - {"llama3.1-405b.plan.yaml"}
    assert len(names) >= 4, names


@pytest.mark.parametrize("path", PLANS, ids=lambda p: p.name)
def test_forecast_part_has_only_design_keys(path: Path) -> None:
    data = _yaml(path)
    main, reliability = data["main"], data["reliability"]
    assert {"gpu", "gpus", "params", "tokens"} <= set(main)
    phases = main.get("phases", [])
    rated = ("throughput_tflops" in main) != ("mfu" in main)
    assert rated or (phases and all({"throughput_tflops", "mfu"} & set(p) for p in phases))
    flops = main.get("flops", {})
    assert set(flops) <= FLOPS_KEYS
    assert set(flops.get("terms", [])) <= FLOPS_TERMS
    for term in flops.get("terms", []):
        assert TERM_NEEDS[term] <= set(flops), f"{term} needs {TERM_NEEDS[term]}"
    for phase in phases:
        assert set(phase) <= PHASE_KEYS and "tokens" in phase
    assert set(reliability) <= RELIABILITY_KEYS
    assert ("job_mtbf_hours" in reliability) != ("mtbf" in reliability)
    assert reliability.get("mtbf", "fleet") in {"fleet", "ledger"}
    assert "checkpoint_write_minutes" in reliability
    for key in RELIABILITY_KEYS & set(reliability) - {"mtbf"}:
        assert Decimal(str(reliability[key])) >= 0
    get_accelerator(main["gpu"])  # the hardware is in the catalog
    assert isinstance(main["gpus"], int) and main["gpus"] > 0


@pytest.mark.parametrize("path", PLANS, ids=lambda p: p.name)
def test_plan_goes_through_the_real_loader(path: Path) -> None:
    data = _yaml(path)
    if LOADER_KNOWS_FORECAST:
        plan = load_plan(path)
        assert plan.reliability is not None
        assert plan.main.gpus == data["main"]["gpus"]
        return
    # The loader of this branch predates the forecast keys: everything else must load.
    for key in FORECAST_MAIN_KEYS:
        data["main"].pop(key, None)
    data.pop("reliability")
    plan = parse_plan(yaml.safe_dump(data), str(path))
    assert plan.campaign == path.name.removesuffix(".plan.yaml")
    assert plan.main.gpus == data["main"]["gpus"]


def test_every_plan_has_its_actual_and_the_actuals_are_the_published_arithmetic() -> None:
    with ACTUALS.open(encoding="utf-8", newline="") as handle:
        actuals = {
            row["campaign"]: Decimal(row["actual_gpu_hours"]) for row in csv.DictReader(handle)
        }
    for path in PLANS:
        assert _yaml(path)["campaign"] in actuals
    # The figures as the sources state them (SOURCES.md), recomputed here.
    assert actuals["palm-540b"] == 6144 * 1200 + 3072 * 336  # PaLM §4 / energy section
    assert actuals["mpt-7b"] == 440 * Decimal("9.5") * 24  # 440 A100-40GB for 9.5 days
    assert actuals["opt-175b"] == 992 * 56 * 24  # 11 Nov 2021 to 6 Jan 2022
    assert actuals["glm-130b"] == 768 * (58 * 24 - 4)  # 6 May 04:00 to 3 Jul 00:00
    assert actuals["bloom-176b"] == 1_082_990  # BLOOM paper: compute hours
    assert actuals["llama3.1-405b"] == Decimal("30.84e6")  # Llama 3.1 model card
    assert actuals["llama3.1-8b"] == Decimal("1.46e6")  # Llama 3.1 model card
    assert actuals["llama3.1-70b"] == Decimal("7.0e6")  # Llama 3.1 model card
    assert actuals["gopher-280b"] == 920 * 4096  # Gopher: 920 hours on 4,096 TPUv3 chips
    assert actuals["deepseek-v3"] == 180_000 * Decimal("14.8")  # 180K GPU-h per 1T tokens


def test_every_input_of_every_campaign_has_a_source_and_a_before_launch_label() -> None:
    with (PUBLISHED / "inputs.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    pre = {p.name.removesuffix(".plan.yaml") for p in (PUBLISHED / "prelaunch").glob("*.yaml")}
    assert {r["campaign"] for r in rows} == pre
    assert all(r["source"] and r["before_launch"] and r["value"] for r in rows)

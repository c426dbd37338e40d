"""`trainbudget estimate` and `trainbudget campaign` as a user runs them: JSON contract, errors."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import duckdb
import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
SEED_PLAN = REPO_ROOT / "examples" / "demo-7b.plan.yaml"
DERIVED_PLAN = REPO_ROOT / "examples" / "derived-1b.plan.yaml"
SEED_RUN = ["--params", "7e9", "--tokens", "1e11", "--gpus", "8", "--price", "1.50"]


def test_estimate_json_has_the_contract_keys_and_the_exact_seed_values(cli) -> None:
    result = cli("estimate", *SEED_RUN, "--gpu", "A100-80GB", "--mfu", "0.4", "--json")
    assert result.code == 0, result.stderr
    data = result.json()
    for key in ("flops", "wall_seconds", "wall_hours", "wall_days", "gpu_hours", "dollar_cost"):
        assert key in data
    seconds = Fraction(42 * 10**20) / (8 * 312 * 10**12 * Fraction(2, 5))
    assert data["flops"] == 4.2e21
    assert data["wall_seconds"] == pytest.approx(float(seconds), rel=1e-12)
    assert data["wall_days"] == pytest.approx(float(seconds / 86400), rel=1e-12)
    assert data["dollar_cost"] == pytest.approx(float(seconds / 3600 * 8 * Fraction(3, 2)))
    assert data["mfu_source"] == "user" and data["gpu"] == "A100-80GB"
    assert result.stderr == ""


def test_gpu_tflops_overrides_the_catalog_and_the_prior_mfu_is_labelled(cli) -> None:
    data = cli("estimate", *SEED_RUN, "--gpu", "H100-SXM", "--gpu-tflops", "312", "--json").json()
    assert data["peak_flops_per_second"] == 3.12e14
    # No --mfu: the throughput prior's median (published runs; tests/estimate/conftest.py).
    assert data["mfu"] == 0.3784 and data["mfu_source"] == "prior"
    moe = cli("estimate", *SEED_RUN, "--gpu-tflops", "312", "--model-class", "moe", "--json")
    assert moe.json()["mfu"] == 0.2425
    ratio = 0.3784 / 0.2425
    assert moe.json()["wall_seconds"] == pytest.approx(ratio * data["wall_seconds"], rel=1e-12)


def test_estimate_table_for_people(cli) -> None:
    result = cli("estimate", *SEED_RUN, "--gpu", "A100-80GB", "--mfu", "0.4")
    assert result.code == 0
    for text in (
        "FLOPs",
        "wall hours",
        "GPU-hours",
        "$14,022.44",
        "48.7",
        "MFU 0.4 on model FLOPs 6·N·T (user)",
    ):
        assert text in result.stdout


def test_peak_mfu_warns_on_stderr_and_keeps_stdout_json(cli) -> None:
    result = cli("estimate", *SEED_RUN, "--gpu", "A100-80GB", "--mfu", "1.0", "--json")
    assert result.code == 0
    assert result.json()["warnings"]
    assert "warning:" in result.stderr and "mfu" in result.stderr


def test_memory_check_with_micro_batch(cli) -> None:
    args = ["--n-layers", "32", "--d-model", "4096", "--heads", "32", "--seq-len", "4096"]
    data = cli(
        "estimate",
        *SEED_RUN,
        "--gpu",
        "H100-SXM",
        *args,
        "--micro-batch",
        "1",
        "--zero-stage",
        "3",
        "--recompute",
        "full",
        "--json",
    ).json()
    memory = data["memory"]
    expected = 16 * 7e9 / 8 + 32 * 2 * 4096 * 4096
    assert memory["total_bytes"] == pytest.approx(expected)
    assert memory["fits"] is True
    assert memory["headroom_bytes"] == pytest.approx(80 * 2**30 - expected)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (["--gpus", "0"], "--gpus"),
        (["--gpus", "-8"], "--gpus"),
        (["--gpus", "2.5"], "--gpus"),
        (["--mfu", "1.5"], "--mfu"),
        (["--mfu", "0"], "--mfu"),
        (["--tokens", "0"], "--tokens"),
        (["--params", "-7e9"], "--params"),
        (["--price", "abc"], "--price"),
        (["--gpu", "Z100"], "gpu: unknown accelerator 'Z100'"),
        (["--gpu", "A100-80GB", "--precision", "fp8"], "precision: A100-80GB has no"),
    ],
)
def test_bad_estimate_input_is_one_line_and_exit_2(cli, change: list[str], field: str) -> None:
    args = dict(zip(SEED_RUN[::2], SEED_RUN[1::2], strict=True))
    flags = ["--gpu-tflops", "312"] if change[0] not in ("--gpu",) else []
    for option, value in zip(change[::2], change[1::2], strict=True):
        args[option] = value
    argv = [item for pair in args.items() for item in pair]
    result = cli("estimate", *argv, *flags, "--json")
    assert result.code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"trainbudget: error: {field}")


def test_estimate_without_gpu_or_tflops_is_an_error(cli) -> None:
    result = cli("estimate", *SEED_RUN, "--json")
    assert result.code == 2 and result.stderr.startswith("trainbudget: error: --gpu:")


def test_campaign_json_contract_and_seed_numbers(cli) -> None:
    result = cli("campaign", str(SEED_PLAN), "--json")
    assert result.code == 0, result.stderr
    data = result.json()
    hours = {line["work_class"]: line["gpu_hours"] for line in data["lines"]}
    assert hours == {"pilot": 72, "main": 960, "evaluation": 60, "retry": 160, "storage": 0}
    assert data["planned_gpu_hours"] == 1252
    assert data["compute_usd"] == pytest.approx(3004.80)
    assert data["storage_gb_months"] == 6480
    grid = [(c["attempts"], c["failure_fraction"], c["gpu_hours"]) for c in data["sensitivity"]]
    assert grid[:3] == [(1, 0.05, 1140), (1, 0.2, 1284), (2, 0.05, 2148)]


def test_campaign_table_shows_lines_totals_grid_and_verdict(cli) -> None:
    out = cli("campaign", str(SEED_PLAN)).stdout
    for text in ("1,252.0 GPU-hours", "$3,004.80", "6,480 GB-months", "2,148.0", "WITHIN"):
        assert text in out


def test_campaign_bad_plan_names_file_line_and_field(cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.plan.yaml"
    bad.write_text(SEED_PLAN.read_text().replace("gpus: 8, hours: 120", "gpus: 8, hours: -120"))
    result = cli("campaign", str(bad), "--json")
    assert result.code == 2 and result.stdout == ""
    message = result.stderr.strip()
    assert "\n" not in message
    assert message.startswith(f"trainbudget: error: {bad}:8: main.hours: must be ")
    assert message.endswith("got -120")


def test_estimate_run_id_lands_one_row(cli, tmp_path: Path) -> None:
    ledger = tmp_path / "l.duckdb"
    argv = ["estimate", *SEED_RUN, "--gpu", "A100-80GB", "--mfu", "0.4", "--json"]
    first = cli(*argv, "--run-id", "run-7b", "--ledger", str(ledger)).json()
    assert first["ledger"] == str(ledger) and first["estimate_id"] == 1
    with duckdb.connect(str(ledger), read_only=True) as con:
        rows = con.execute(
            "SELECT run_id, mfu_source, gpu_hours, outputs_json->>'dollar_cost' FROM run_estimates"
        ).fetchall()
    assert len(rows) == 1
    run_id, source, gpu_hours, dollars = rows[0]
    assert (run_id, source) == ("run-7b", "user")
    assert gpu_hours == pytest.approx(first["gpu_hours"])
    assert dollars.startswith("14022.4358974358974358")  # the exact text is kept


def test_estimate_without_run_id_writes_no_ledger(cli, tmp_path: Path) -> None:
    cli("estimate", *SEED_RUN, "--gpu-tflops", "312", "--json", cwd=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_campaign_record_is_idempotent(cli, tmp_path: Path) -> None:
    ledger = str(tmp_path / "l.duckdb")
    first = cli("campaign", str(DERIVED_PLAN), "--record", "--ledger", ledger, "--json").json()
    again = cli("campaign", str(DERIVED_PLAN), "--record", "--ledger", ledger, "--json").json()
    assert first["lines_landed"] == len(first["lines"]) == 6
    assert again["lines_landed"] == 0
    with duckdb.connect(ledger, read_only=True) as con:
        (count,) = con.execute("SELECT count(*) FROM campaign_lines").fetchone()
        (source,) = con.execute(
            "SELECT mfu_source FROM campaign_lines WHERE work_class = 'main'"
        ).fetchone()
        (plans,) = con.execute("SELECT count(*) FROM plans").fetchone()
    assert count == 6 and source == "prior" and plans == 1


def test_estimate_quick_path_imports_no_ledger_or_frame_libraries(tmp_path: Path) -> None:
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from trainbudget.cli import main\n"
        f"code = main({['estimate', *SEED_RUN, '--gpu', 'A100-80GB', '--json']!r})\n"
        "heavy = ('duckdb', 'polars', 'pandera', 'numpy', 'prefect', 'great_expectations')\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & set(heavy)), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    assert proc.stderr.strip().splitlines()[-1] == "[]"


def test_named_queries_read_back_what_was_recorded(cli, tmp_path: Path) -> None:
    from trainbudget.ledger import Ledger

    ledger = str(tmp_path / "l.duckdb")
    cli("campaign", str(SEED_PLAN), "--record", "--ledger", ledger, "--json")
    argv = ["estimate", *SEED_RUN, "--gpu-tflops", "312", "--run-id", "r1", "--ledger", ledger]
    cli(*argv, "--json")
    cli(*argv, "--mfu", "0.5", "--json")
    with Ledger.open(ledger) as book:
        lines = book.records("estimate/campaign_lines", campaign="demo-7b")
        runs = book.records("estimate/run_estimates", run_id="r1")
    assert [(r["work_class"], float(r["gpu_hours"])) for r in lines] == [
        ("pilot", 72.0),
        ("main", 960.0),
        ("evaluation", 60.0),
        ("retry", 160.0),
        ("storage", 0.0),
    ]
    assert [r["mfu"] for r in runs] == [0.5, 0.3784]  # newest first; the dense prior's median
    assert runs[0]["mfu_source"] == "user" and runs[1]["mfu_source"] == "prior"


# A parallel layout (--global-batch, --pp, --ep, --virtual-stages, --sequence-parallel): the
# most loaded rank's memory and the bubble, worked here by hand from Korthikanti et al. 2022
# (table 2) and Megatron-LM's theoretical memory model (docs/estimate.md), untied embeddings.
SMALL = ["--params", "1.2e9", "--tokens", "1e10", "--gpus", "16", "--price", "2", "--mfu", "0.4",
         "--gpu", "H100-SXM", "--n-layers", "24", "--d-model", "2048", "--seq-len", "2048",
         "--vocab", "50000", "--heads", "16", "--tp", "2", "--pp", "2", "--micro-batch", "2",
         "--global-batch", "64", "--recompute", "selective", "--zero-stage", "1"]  # fmt: skip
H100_BYTES = 80 * 2**30


def test_a_layout_that_fits_gives_the_most_loaded_rank_and_the_bubble(cli) -> None:
    plain = cli("estimate", *SMALL[:14], "--json").json()  # no layout, no memory options
    result = cli("estimate", *SMALL, "--json")
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    data = result.json()
    assert list(data)[: len(plain)] == list(plain)  # the contract's keys, in order, unchanged
    assert data["wall_seconds"] == plain["wall_seconds"]
    # Parameters on the first stage: E = V·h = 50,000 × 2,048 = 102,400,000, untied (2E);
    # D = 1.2e9 − 2E = 995,200,000; P = (D/p + E)/t = (497,600,000 + 102,400,000)/2 = 3e8.
    # dp = 16 / (2 × 2) = 4: weights 2P, gradients 4P, optimizer 12P / dp (ZeRO 1).
    memory = data["memory_most_loaded_rank"]
    assert (memory["weights"], memory["gradients"]) == (600_000_000, 1_200_000_000)
    assert memory["optimizer"] == 900_000_000
    # Activations: sbh = 2,048 × 2 × 2,048 = 8,388,608; selective, t 2: sbh·(10 + 24/2) per
    # layer × 24 layers = 4,429,185,024; + (8sb + sbh)·p = (32,768 + 8,388,608) × 2 =
    # 16,842,752; m = 64 / (2 × 4) = 8 ≥ p: × min(1, m/p) = 1.
    assert memory["activations"] == 4_429_185_024 + 16_842_752 == 4_446_027_776
    assert memory["bytes"] == 600_000_000 + 1_200_000_000 + 900_000_000 + 4_446_027_776
    assert memory["bytes"] == 7_146_027_776 < H100_BYTES and memory["fits"] is True
    # Bubble: ((p − 1)/v) ÷ (m + (p − 1)/v) = 1 / (8 + 1).
    assert data["pipeline_bubble_share"] == pytest.approx(1 / 9, rel=1e-15)
    assert "pipeline bubble 11.1% of the step" in cli("estimate", *SMALL).stdout


def test_a_layout_that_does_not_fit_says_so_in_one_warning_line(cli) -> None:
    # 70B, no vocabulary (E = 0), 80 layers, h 8,192, s 4,096, 128 GPUs: t 8, p 2, v 2, dp 8.
    args = ["--params", "70e9", "--tokens", "1e12", "--gpus", "128", "--price", "2", "--mfu",
            "0.4", "--gpu", "H100-SXM", "--n-layers", "80", "--d-model", "8192", "--seq-len",
            "4096", "--tp", "8", "--pp", "2", "--virtual-stages", "2", "--global-batch", "256",
            "--recompute", "selective", "--json"]  # fmt: skip
    result = cli("estimate", *args)
    assert result.code == 0, result.stderr
    memory = result.json()["memory_most_loaded_rank"]
    # P = (70e9 / 2) / 8 = 4.375e9; ZeRO 0: 2 + 4 + 12 = 18 bytes each = 78.75e9.
    assert (memory["weights"], memory["gradients"]) == (8_750_000_000, 17_500_000_000)
    assert memory["optimizer"] == 52_500_000_000
    # sbh = 4,096 × 1 × 8,192 = 33,554,432; selective, t 8: 13·sbh per layer × 80 =
    # 34,896,609,280; + (8sb + sbh)·p = (32,768 + 33,554,432) × 2 = 67,174,400; interleaved:
    # × (1 + (p − 1)/(p·v)) = 5/4 → 43,704,729,600.
    assert (34_896_609_280 + 67_174_400) * 5 // 4 == 43_704_729_600
    assert memory["activations"] == 43_704_729_600
    assert memory["bytes"] == 78_750_000_000 + 43_704_729_600 > H100_BYTES
    assert memory["fits"] is False
    # m = 256 / (1 × 8) = 32: bubble (1/2) ÷ (32 + 1/2) = 1/65.
    assert result.json()["pipeline_bubble_share"] == pytest.approx(1 / 65, rel=1e-15)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "does not fit" in lines[0] and "114.0 GiB" in lines[0]
    assert lines[0] in "\n".join("warning: " + w for w in result.json()["warnings"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (["--pp", "3"], "--pp: 3 × tp 2 does not divide the 16 GPUs"),
        (["--pp", "0"], "--pp: must be a positive integer"),
        (["--ep", "0"], "--ep: must be a positive integer"),
        (["--ep", "3"], "--ep: 3 does not divide"),
        (["--ep", "2"], "--ep: above 1 needs --active-params"),
        (["--pp", "1", "--virtual-stages", "2"], "--virtual-stages: an interleaved schedule"),
        (["--global-batch", "100"], "--global-batch: 100 is not a multiple"),
        (["--global-batch", "2.5"], "--global-batch: must be a positive integer"),
    ],
)
def test_a_layout_that_cannot_be_is_one_line_and_exit_2(cli, change, message) -> None:
    args = list(SMALL)
    for option, value in zip(change[::2], change[1::2], strict=True):
        if option in args:
            args[args.index(option) + 1] = value
        else:
            args += [option, value]
    result = cli("estimate", *args, "--json")
    assert result.code == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"trainbudget: error: {message}")


def test_layout_options_without_a_global_batch_are_an_error(cli) -> None:
    args = [item for item in SMALL if item not in ("--global-batch", "64")]
    result = cli("estimate", *args, "--json")
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.startswith("trainbudget: error: --global-batch: required by the layout")

"""`estimate --mfu-from calibrated|pilot|trace`: the MFU read back from a real ledger.

Every ledger here is filled through the real commands (`estimate --run-id`, `reconcile`,
`pilot`, `trace`) from the repository's examples and test fixtures; the expected MFUs
are worked out in the tests from those inputs.
"""

from __future__ import annotations

import csv
import statistics
from fractions import Fraction
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
H100_BF16 = Fraction(9894, 10) * 10**12  # catalog dense peak, FLOP/s
SEED_RUN = ("--params", "7e9", "--tokens", "1e11", "--gpus", "8", "--price", "2.40")

# The calibrated run: 6 · 1e9 · 2.4576e10 = 1.47456e20 FLOPs on 8 GPUs of 1,000 TFLOP/s at
# MFU 0.4 (3.2e15 FLOP/s) is estimated at 46,080 s.
CALIBRATED_RUN = (
    *("--params", "1e9", "--tokens", "2.4576e10", "--gpus", "8", "--gpu-tflops", "1000"),
    *("--mfu", "0.4", "--price", "2.40", "--run-id", "exp-main"),
)


def _reconcile(cli, ledger: Path) -> None:
    folder = EXAMPLES / "reconcile"
    result = cli(
        *("--ledger", str(ledger), "reconcile", "--sacct", str(folder / "sacct.psv")),
        *("--registry", str(folder / "registry.csv"), "--progress", str(folder / "progress.jsonl")),
        *("--manifest", str(folder / "manifest.csv")),
        *("--plan", str(EXAMPLES / "demo-7b.plan.yaml"), "--json"),
    )
    assert result.code == 0, result.stderr


@pytest.fixture
def calibrated_ledger(cli, tmp_path: Path) -> Path:
    """A ledger with exp-main's estimate and DESIGN.md's week reconciled."""
    ledger = tmp_path / "calibrated.duckdb"
    landed = cli("--ledger", str(ledger), "estimate", *CALIBRATED_RUN, "--json")
    assert landed.code == 0, landed.stderr
    _reconcile(cli, ledger)
    return ledger


def test_calibrated_mfu_is_the_estimated_mfu_over_the_runtime_ratio(cli, calibrated_ledger):
    # exp-main's useful wall time (DESIGN.md's jobs 101/102 on 8 GPUs): 101 useful 00:00-08:00
    # = 28,800 s; 102 useful 64 GPU-hours / 8 GPUs = 28,800 s. Ratio 57,600 / 46,080 = 1.25.
    ratio = Fraction(57600, 46080)
    expected_mfu = Fraction(4, 10) / ratio
    assert expected_mfu == Fraction(32, 100)
    data = cli(
        *("--ledger", str(calibrated_ledger), "estimate", *SEED_RUN, "--gpu", "H100-SXM"),
        *("--mfu-from", "calibrated", "--json"),
    ).json()
    assert data["mfu"] == pytest.approx(0.32, rel=1e-12)
    assert data["mfu_source"] == "calibrated"
    source = data["mfu_from"]
    assert (source["table"], source["work_class"], source["cluster"]) == (
        "calibration",
        "main",
        "default",
    )
    assert source["runs"] == 1
    assert source["ratio_mean"] == pytest.approx(float(ratio), rel=1e-12)
    assert source["ratio_stddev"] is None  # one run has no sample spread
    wall = Fraction(6 * 7 * 10**9 * 10**11) / (8 * H100_BF16 * expected_mfu)
    assert data["wall_seconds"] == pytest.approx(float(wall), rel=1e-12)
    assert data["gpu_hours"] == pytest.approx(float(wall * 8 / 3600), rel=1e-12)


def test_calibrated_mfu_is_recorded_as_such_with_run_id(cli, calibrated_ledger):
    import duckdb

    ledger = calibrated_ledger
    result = cli(
        *("--ledger", str(ledger), "estimate", *SEED_RUN, "--gpu", "H100-SXM"),
        *("--mfu-from", "calibrated", "--run-id", "next-main", "--json"),
    )
    assert result.code == 0, result.stderr
    with duckdb.connect(str(ledger), read_only=True) as con:
        row = con.execute(
            "SELECT mfu, mfu_source FROM run_estimates WHERE run_id = 'next-main'"
        ).fetchone()
    assert row == (pytest.approx(0.32), "calibrated")


def test_campaign_derives_the_main_run_with_the_calibrated_mfu(cli, calibrated_ledger):
    data = cli(
        *("--ledger", str(calibrated_ledger), "campaign"),
        *(str(EXAMPLES / "derived-1b.plan.yaml"), "--mfu-from", "calibrated", "--json"),
    ).json()
    # derived-1b: 16 × H100-SXM, 1.3e9 parameters, 2.6e11 tokens.
    hours = Fraction(6 * 13 * 10**8 * 26 * 10**10) / (16 * H100_BF16 * Fraction(32, 100)) / 3600
    main = next(line for line in data["lines"] if line["work_class"] == "main")
    assert main["gpu_hours"] == pytest.approx(float(hours * 16), rel=1e-12)
    assert "(calibrated)" in main["detail"]
    assert data["mfu_from"]["mfu_source"] == "calibrated"


def test_no_mfu_with_a_ledger_offers_the_measurements_but_keeps_the_prior(cli, calibrated_ledger):
    result = cli(
        *("--ledger", str(calibrated_ledger), "estimate", *SEED_RUN, "--gpu", "H100-SXM"),
        "--json",
    )
    assert result.code == 0
    assert result.json()["mfu_source"] == "prior"
    assert result.json()["mfu_from"] is None
    assert "--mfu-from calibrated --work-class main --cluster default" in result.stderr
    given = cli(
        *("--ledger", str(calibrated_ledger), "estimate", *SEED_RUN, "--gpu", "H100-SXM"),
        *("--mfu", "0.4", "--json"),
    )
    assert "--mfu-from" not in given.stderr


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--work-class", "pilot"], "no runtime calibration for work class 'pilot'"),
        (["--cluster", "other"], "calibrated: main@default"),
        (["--mfu", "0.4"], "--mfu-from: give either --mfu or --mfu-from"),
    ],
)
def test_calibration_not_found_is_one_line_and_exit_2(cli, calibrated_ledger, extra, message):
    result = cli(
        *("--ledger", str(calibrated_ledger), "estimate", *SEED_RUN, "--gpu", "H100-SXM"),
        *("--mfu-from", "calibrated", *extra, "--json"),
    )
    assert result.code == 2
    assert result.stdout == ""
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_calibration_above_mfu_one_is_refused(cli, tmp_path):
    # Estimated 7e9 · 1e11 on 8 H100 at 0.4 = 1,326,561.55 s, but exp-main used 57,600 s:
    # ratio 0.0434, "calibrated" MFU 0.4 / 0.0434 = 9.2, impossible.
    ledger = tmp_path / "l.duckdb"
    cli("--ledger", str(ledger), "estimate", *SEED_RUN, "--gpu", "H100-SXM", "--mfu", "0.4",
        "--run-id", "exp-main")  # fmt: skip
    _reconcile(cli, ledger)
    result = cli(
        *("--ledger", str(ledger), "estimate", *SEED_RUN, "--gpu", "H100-SXM"),
        *("--mfu-from", "calibrated"),
    )
    assert result.code == 2
    assert "outside (0, 1]" in result.stderr


def test_mfu_from_a_missing_ledger_is_an_error_and_creates_nothing(cli, tmp_path):
    ledger = tmp_path / "absent.duckdb"
    result = cli(
        *("--ledger", str(ledger), "estimate", *SEED_RUN, "--gpu", "H100-SXM"),
        *("--mfu-from", "pilot"),
    )
    assert result.code == 2
    assert "no ledger at" in result.stderr
    offered = cli("--ledger", str(ledger), "estimate", *SEED_RUN, "--gpu", "H100-SXM")
    assert offered.code == 0
    assert not ledger.exists()


def test_unknown_mfu_from_is_exit_2(cli, calibrated_ledger):
    result = cli(
        *("--ledger", str(calibrated_ledger), "estimate", *SEED_RUN, "--gpu", "H100-SXM"),
        *("--mfu-from", "guess"),
    )
    assert result.code == 2
    assert "--mfu-from: must be one of calibrated, pilot, trace" in result.stderr


def _pilot_mfu_by_hand() -> tuple[Fraction, Fraction, Fraction]:
    """Mix MFU and per-shape MFUs of examples/pilot-7b.steps.csv, warm-up step 0 left out."""
    times: dict[str, list[Fraction]] = {}
    with (EXAMPLES / "pilot-7b.steps.csv").open() as handle:
        for row in csv.DictReader(handle):
            if row["step"] != "0" and row["wall_seconds"]:
                times.setdefault(row["seq_len"], []).append(Fraction(row["wall_seconds"]))
    per_gpu = {k: Fraction(262144) / statistics.median(v) / 8 for k, v in times.items()}
    mix = 1 / (Fraction(8, 10) / per_gpu["4096"] + Fraction(2, 10) / per_gpu["16384"])

    def mfu(rate: Fraction) -> Fraction:
        return 6 * 7 * 10**9 * rate / H100_BF16

    return mfu(mix), mfu(per_gpu["16384"]), mfu(per_gpu["4096"])


def test_pilot_mfu_comes_from_the_newest_landed_pilot(cli, tmp_path):
    ledger = str(tmp_path / "l.duckdb")
    landed = cli(
        *("--ledger", ledger, "pilot", str(EXAMPLES / "pilot-7b.steps.csv"), "--params", "7e9"),
        *("--gpu", "H100-SXM", "--shape-mix", "4096=0.8", "--shape-mix", "16384=0.2"),
        *("--warmup-steps", "1", "--json"),
    )
    assert landed.code == 0, landed.stderr
    mix, low, high = _pilot_mfu_by_hand()
    data = cli(
        *("--ledger", ledger, "estimate", *SEED_RUN, "--gpu", "H100-SXM"),
        *("--mfu-from", "pilot", "--json"),
    ).json()
    assert data["mfu_source"] == "pilot"
    assert data["mfu"] == pytest.approx(float(mix), rel=1e-12)
    source = data["mfu_from"]
    assert (source["table"], source["gpu"], source["steps"], source["runs"]) == (
        "pilot_analyses",
        "H100-SXM",
        14,
        2,
    )
    assert source["bucket_mfu_min"] == pytest.approx(float(low), rel=1e-12)
    assert source["bucket_mfu_max"] == pytest.approx(float(high), rel=1e-12)
    wall = Fraction(42 * 10**20) / (8 * H100_BF16 * mix)
    assert data["wall_seconds"] == pytest.approx(float(wall), rel=1e-12)

    other = cli(
        *("--ledger", ledger, "estimate", *SEED_RUN, "--gpu", "A100-80GB"),
        *("--mfu-from", "pilot"),
    )
    assert other.code == 2
    assert "no pilot MFU on A100-80GB; the newest pilot measured H100-SXM" in other.stderr


def _trace_json(cli, folder: Path, gpu: str) -> dict:
    result = cli("trace", str(folder), "--gpu", gpu, "--precision", "bf16", "--no-ledger", "--json")
    assert result.code == 0, result.stderr
    return result.json()


def test_trace_mfu_is_the_newest_trace_folder_over_this_estimates_peak(cli, fixtures_dir, tmp_path):
    ledger = str(tmp_path / "l.duckdb")
    mi300 = fixtures_dir / "traces" / "tracelens_mi300_resnet_act_checkpoint"
    two_ranks = fixtures_dir / "traces" / "hta_sampled_2rank_a100"
    assert cli("--ledger", ledger, "trace", str(mi300), "--json").code == 0
    data = cli(
        *("--ledger", ledger, "estimate", *SEED_RUN, "--gpu", "MI300X"),
        *("--mfu-from", "trace", "--json"),
    ).json()
    rank = _trace_json(cli, mi300, "MI300X")["ranks"][0]
    # achieved FLOP/s = FLOPs ÷ wall seconds; the catalog's MI300X bf16 peak is 1,307.4 TFLOP/s.
    expected = Fraction(rank["flops"]) / (Fraction(str(rank["wall_us"])) / 10**6)
    expected /= Fraction(13074, 10) * 10**12
    assert data["mfu_source"] == "trace"
    assert data["mfu"] == pytest.approx(float(expected), rel=1e-12)
    assert data["mfu_from"]["ranks"] == 1
    assert data["mfu_from"]["device_names"] == ["AMD Instinct MI300X"]
    assert any("below 0.1" in w for w in data["warnings"])

    assert cli("--ledger", ledger, "trace", str(two_ranks), "--json").code == 0
    data = cli(
        *("--ledger", ledger, "estimate", *SEED_RUN, "--gpu-tflops", "312"),
        *("--mfu-from", "trace", "--json"),
    ).json()
    ranks = _trace_json(cli, two_ranks, "A100-80GB")
    rates = [Fraction(r["flops"]) / (Fraction(str(r["wall_us"])) / 10**6) for r in ranks["ranks"]]
    expected = sum(rates) / len(rates) / (312 * 10**12)
    assert data["mfu_from"]["ranks"] == 2
    assert data["mfu"] == pytest.approx(float(expected), rel=1e-12)
    assert data["mfu"] == pytest.approx(ranks["mfu"], rel=1e-12)  # what `trace` itself reports


def test_trace_on_another_gpu_warns(cli, fixtures_dir, tmp_path):
    ledger = str(tmp_path / "l.duckdb")
    mi300 = fixtures_dir / "traces" / "tracelens_mi300_resnet_act_checkpoint"
    assert cli("--ledger", ledger, "trace", str(mi300), "--json").code == 0
    result = cli(
        *("--ledger", ledger, "estimate", *SEED_RUN, "--gpu", "H100-SXM"),
        *("--mfu-from", "trace", "--json"),
    )
    assert result.code == 0
    assert "the trace ran on AMD Instinct MI300X, this estimate is for H100-SXM" in result.stderr


def test_trace_with_no_landed_trace_is_exit_2(cli, calibrated_ledger):
    result = cli(
        *("--ledger", str(calibrated_ledger), "estimate", *SEED_RUN, "--gpu", "H100-SXM"),
        *("--mfu-from", "trace"),
    )
    assert result.code == 2
    assert "has no landed trace" in result.stderr

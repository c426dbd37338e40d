"""`trainbudget fit` from the outside: the public JSON contract, flags-only fixture, errors."""

from __future__ import annotations

import pytest

CHINCHILLA_FLAGS = [
    "--params-column",
    "Model Size",
    "--flops-column",
    "Training FLOP",
    "--drop-highest-loss",
    "5",
]


@pytest.fixture
def small_csv(tmp_path, make_points, write_csv):
    params, tokens, loss = make_points(seed=31, noise=0.005)
    return write_csv(tmp_path / "ablations.csv", params, tokens, loss)


def test_chinchilla_fixture_with_flags_alone(cli, chinchilla_path, ledger_path) -> None:
    result = cli(
        "--ledger",
        str(ledger_path),
        "fit",
        str(chinchilla_path),
        *CHINCHILLA_FLAGS,
        "--target-params",
        "7e9",
        "--target-tokens",
        "1.4e11",
        "--baseline-loss",
        "2.25",
        "--bootstrap",
        "200",
        "--json",
    )
    assert result.code == 0, result.stderr
    data = result.json()
    assert set(data["params"]) == {"E", "A", "B", "alpha", "beta"}
    assert data["params"]["E"] == pytest.approx(1.82, abs=0.02)
    low, high = data["predicted_loss_interval"]
    assert low <= data["predicted_loss"] <= high
    law = data["params"]
    by_hand = law["E"] + law["A"] / 7e9 ** law["alpha"] + law["B"] / 1.4e11 ** law["beta"]
    assert data["predicted_loss"] == pytest.approx(by_hand, rel=1e-12)
    assert data["fit"]["points"] == 240 and data["fit"]["dropped_points"] == 5
    assert data["gain"]["gain"] == pytest.approx(2.25 - data["predicted_loss"], rel=1e-12)
    alloc = data["allocation"]
    assert 6 * alloc["params_opt"] * alloc["tokens_opt"] == pytest.approx(6 * 7e9 * 1.4e11)
    assert data["ledger"]["landed"] is True
    assert result.stderr == ""  # 5.9e21 FLOPs is inside 100x of the data: no warning


def test_text_output_plot_and_extrapolation_warning(cli, small_csv, tmp_path) -> None:
    png = tmp_path / "out" / "fit.png"
    args = ["fit", str(small_csv), "--target-params", "7e10", "--target-tokens", "1.4e12"]
    result = cli(
        "--ledger", str(tmp_path / "l.duckdb"), *args, "--bootstrap", "20", "--plot", str(png)
    )
    assert result.code == 0, result.stderr
    assert "alpha" in result.stdout and "tokens per parameter" in result.stdout
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert "warning:" in result.stderr and "beyond 100×" in result.stderr
    again = cli("--ledger", str(tmp_path / "l.duckdb"), *args, "--bootstrap", "20", "--json")
    assert again.code == 0
    data = again.json()  # stdout is exactly one JSON object despite the warning
    assert data["ledger"]["landed"] is False  # same file, same options: landed already
    assert len(data["warnings"]) == 1


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        (
            "params,tokens,loss\n1e7,1e9,3\n0,1e9,3\n",
            [],
            "ablations.csv:3: params: must be a positive",
        ),
        ("N,D,L\n1e7,1e9,3\n", [], "ablations.csv:1: no column 'params'"),
        (None, ["--bootstrap", "1"], "error: bootstrap: need at least 2"),
        (None, ["--drop-highest-loss", "-1"], "error: drop_highest_loss: must be 0 or more"),
    ],
)
def test_bad_input_exits_2_with_one_line(cli, tmp_path, small_csv, content, args, message) -> None:
    path = small_csv
    if content is not None:
        path.write_text(content)
    result = cli(
        "--ledger",
        str(tmp_path / "l.duckdb"),
        "fit",
        str(path),
        "--target-params",
        "1e9",
        "--target-tokens",
        "2e10",
        *args,
        "--json",
    )
    assert result.code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("trainbudget: error: ")
    assert message in lines[0]
    assert not (tmp_path / "l.duckdb").exists()  # rejected before anything was written

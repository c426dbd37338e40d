"""Landing a fit: provenance, one fit per (content, options), points with their use."""

from __future__ import annotations

import pytest

from trainbudget.scaling.analysis import analyse_ablations
from trainbudget.scaling.land import land_analysis
from trainbudget.scaling.load import read_ablations


@pytest.fixture(scope="module")
def analysed(tmp_path_factory, make_points, write_csv):
    params, tokens, loss = make_points(seed=5)
    path = write_csv(tmp_path_factory.mktemp("abl") / "a.csv", params, tokens, loss)
    points = read_ablations(path, drop_highest_loss=2)
    return analyse_ablations(points, 1e9, 2e10, baseline_loss=2.9, resamples=20, seed=1)


def _count(ledger, table: str) -> int:
    return ledger.con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_lands_once_per_content_and_options(ledger, analysed) -> None:
    options = {"seed": 1, "bootstrap": 20}
    fit_id, landed = land_analysis(ledger, analysed, options)
    assert landed
    again_id, again = land_analysis(ledger, analysed, options)
    assert (again_id, again) == (fit_id, False)
    assert _count(ledger, "scaling_fits") == 1
    assert _count(ledger, "ablation_rows") == 48  # every data row of the file, once
    other_id, other = land_analysis(ledger, analysed, {**options, "seed": 2})
    assert other and other_id != fit_id
    assert _count(ledger, "scaling_fits") == 2
    assert _count(ledger, "ablation_rows") == 48
    assert _count(ledger, "sources") == 1


def test_fit_row_points_and_intervals(ledger, analysed) -> None:
    fit_id, _ = land_analysis(ledger, analysed, {"seed": 1})
    row = ledger.con.execute(
        "SELECT e, alpha, predicted_loss, gain, points, dropped_points, source_sha256 "
        "FROM scaling_fits WHERE fit_id = ?",
        [fit_id],
    ).fetchone()
    law = analysed.fit.params
    assert row[:4] == (
        law.E,
        law.alpha,
        analysed.prediction.predicted_loss,
        float(analysed.gain.value),
    )
    assert row[4:6] == (46, 2)
    assert len(row[6]) == 64
    used = ledger.con.execute(
        "SELECT used, count(*), min(source_line) FROM scaling_fit_points WHERE fit_id = ? "
        "GROUP BY used ORDER BY used",
        [fit_id],
    ).fetchall()
    assert [(u, n) for u, n, _ in used] == [(False, 2), (True, 46)]
    quantities = {
        q
        for (q,) in ledger.con.execute(
            "SELECT quantity FROM scaling_intervals WHERE fit_id = ?", [fit_id]
        ).fetchall()
    }
    assert {"E", "A", "B", "alpha", "beta", "predicted_loss", "gain", "params_opt"} <= quantities
    lines = ledger.con.execute(
        "SELECT min(source_line), max(source_line) FROM ablation_rows"
    ).fetchone()
    assert lines == (2, 49)

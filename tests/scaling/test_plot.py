"""The fit's PNG is written, and is a PNG of a sensible size."""

from __future__ import annotations

from trainbudget.scaling.analysis import analyse_ablations
from trainbudget.scaling.load import read_ablations
from trainbudget.scaling.plot import plot_fit


def test_plot_writes_a_png(tmp_path, make_points, write_csv) -> None:
    params, tokens, loss = make_points(seed=8)
    points = read_ablations(write_csv(tmp_path / "a.csv", params, tokens, loss))
    analysis = analyse_ablations(points, 1e9, 2e10, baseline_loss=2.9, resamples=10, seed=0)
    out = plot_fit(analysis, tmp_path / "figs" / "fit.png")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width = int.from_bytes(data[16:20], "big")
    height = int.from_bytes(data[20:24], "big")
    assert (width, height) == (11 * 120, int(4.5 * 120))

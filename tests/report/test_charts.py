"""Charts are real PNGs whose pixel size follows the figure; empty-ish inputs still draw."""

from __future__ import annotations

import struct

import pytest

from trainbudget.report.charts import (
    allocation_by_week_chart,
    plan_vs_actual_chart,
    scaling_fit_chart,
    sensitivity_chart,
)


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])  # IHDR follows the 8-byte signature
    return width, height


def test_every_chart_is_a_png_of_the_figure_size() -> None:
    weeks = [
        {"week": "2026-W45", "useful_gpu_hours": 62, "lost_gpu_hours": 2.7},
        {"week": "2026-W46", "useful_gpu_hours": 412, "recovery_gpu_hours": 36},
    ]
    grid = [
        {"attempts": n, "failure_fraction": f, "gpu_hours": 100 + n * 451 * (1 + f)}
        for n in (1, 2)
        for f in (0.05, 0.2)
    ]
    pngs = [
        plan_vs_actual_chart(
            [{"work_class": "main", "planned_gpu_hours": 1, "actual_gpu_hours": 2}]
        ),
        allocation_by_week_chart(weeks),
        sensitivity_chart(grid, 900),
    ]
    # 7 × 3.6 inches at 110 dpi.
    assert {_png_size(p) for p in pngs} == {(770, 396)}
    # 7 × 4.2 inches: the legend sits beside the axes, outside them.
    assert _png_size(scaling_fit_chart([3.1, 2.9], [3.0, 2.95], (2.4, 2.3, 2.5))) == (770, 462)


def _drawn(figure):
    """The figure after a full draw (savefig lays it out), and its one axes."""
    import io

    figure.savefig(io.BytesIO(), format="png")
    return figure, figure.axes[0]


PLAN_ROWS = [
    {"work_class": "main", "planned_gpu_hours": 453.56, "actual_gpu_hours": 372},
    {"work_class": "diagnostic", "planned_gpu_hours": 2, "actual_gpu_hours": 0.5},
    {"work_class": "retry", "planned_gpu_hours": 96, "actual_gpu_hours": 164},
]
WEEKS = [
    {"week": "2026-W45", "useful_gpu_hours": 56.5, "recovery_gpu_hours": 4, "lost_gpu_hours": 2.67},
    {"week": "2026-W46", "useful_gpu_hours": 408, "recovery_gpu_hours": 40, "lost_gpu_hours": 88},
]
GRID = [{"attempts": n, "failure_fraction": 0.453, "gpu_hours": 110 + n * 453.56 * 1.453}
        for n in (1, 2)]  # fmt: skip


def test_no_legend_sits_on_the_axes() -> None:
    from trainbudget.report.charts import (
        allocation_by_week_figure,
        plan_vs_actual_figure,
        scaling_fit_figure,
        sensitivity_figure,
    )

    figures = [
        plan_vs_actual_figure(PLAN_ROWS),
        allocation_by_week_figure(WEEKS),
        sensitivity_figure(GRID, 900, 110, 453.56, 0.453),
        scaling_fit_figure([3.1, 2.9, 2.7], [3.0, 2.95, 2.72], (2.4, 2.3, 2.5)),
    ]
    for figure in figures:
        figure, axes = _drawn(figure)
        assert axes.get_legend() is None and len(figure.legends) == 1
        legend = figure.legends[0].get_window_extent()
        assert not legend.overlaps(axes.get_window_extent()), axes.get_title()
        assert legend.x1 <= figure.bbox.x1 + 1  # and it is not cut off


def test_plan_versus_actual_labels_every_bar_and_marks_an_overrun() -> None:
    from trainbudget.report.charts import plan_vs_actual_figure

    _, axes = _drawn(plan_vs_actual_figure(PLAN_ROWS))
    labels = [t.get_text() for t in axes.texts]
    # planned then actual: diagnostic 2 against 0.5 readable; retry 164 is 68 over its 96.
    assert labels == ["453.6", "2", "96", "372", "0.5", "164\n(+68)"]
    red = [p for p in axes.patches if p.get_facecolor()[:3] == (207 / 255, 34 / 255, 46 / 255)]
    assert len(red) >= 1 and max(p.get_height() for p in red) == 164


def test_sensitivity_draws_each_line_over_f_against_the_ceiling() -> None:
    from trainbudget.report.charts import sensitivity_figure

    _, axes = _drawn(sensitivity_figure(GRID, 900, 110, 453.56, 0.453))
    low, high = axes.get_ylim()
    assert low == 0 and high > max(900, *(r["gpu_hours"] for r in GRID))
    lines = {line.get_label(): line for line in axes.get_lines()}
    one = lines["n = 1 attempt"]
    xs, ys = one.get_xdata(), one.get_ydata()
    assert xs[0] == 0 and xs[-1] > 45.3  # the line spans f from 0 past the measured 45.3 %
    assert ys[0] == 110 + 453.56  # P + E + D + 1 · T · (1 + 0)
    assert list(lines["measured f = 45.3 %"].get_xdata()) == pytest.approx([45.3, 45.3])
    assert list(lines["ceiling 900"].get_ydata()) == [900, 900]

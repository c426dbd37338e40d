"""Charts are real PNGs whose pixel size follows the figure; empty-ish inputs still draw."""

from __future__ import annotations

import struct

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

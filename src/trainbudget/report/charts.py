"""The report's charts as PNG bytes (matplotlib, Agg, no pyplot global state).

Each `*_figure` function takes plain rows (dicts of numbers) so the report does not depend on
the shape of any stage's frames, and returns the matplotlib Figure; each `*_chart` function is
its PNG. GPU-hours are drawn as floats (display only). Legends sit outside the axes, to the
right, so they never cover data; bars carry their values.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from trainbudget.report.format import number, plural

ACCOUNTING_CLASSES = ("useful", "recovery", "lost", "unverified")
_COLOURS = {"useful": "#2da44e", "recovery": "#bf8700", "lost": "#cf222e", "unverified": "#8c959f"}
_PLANNED, _ACTUAL, _OVER, _CEILING = "#8c959f", "#0969da", "#cf222e", "#cf222e"
_LABEL_SIZE = 7.5


def _figure(width: float = 7.0, height: float = 3.6) -> Any:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=110, layout="constrained")
    return figure, figure.add_subplot()


def _legend_outside(figure: Any, axes: Any) -> None:
    """The axes' legend in the figure's right margin, outside the axes (constrained layout)."""
    handles, labels = axes.get_legend_handles_labels()
    if handles:
        figure.legend(handles, labels, loc="outside right upper", fontsize="small", frameon=False)


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def plan_vs_actual_figure(rows: Sequence[dict[str, Any]]) -> Any:
    """Grouped bars of planned and actual GPU-hours by work class, each bar labelled with its
    value; an actual bar over its plan is red and its label says by how much.

    rows: {"work_class", "planned_gpu_hours", "actual_gpu_hours"}.
    """
    figure, axes = _figure()
    labels = [str(r["work_class"]) for r in rows]
    x = list(range(len(rows)))
    planned = [float(r["planned_gpu_hours"] or 0) for r in rows]
    actual = [float(r["actual_gpu_hours"] or 0) for r in rows]
    over = [a > p for a, p in zip(actual, planned, strict=True)]
    bars = axes.bar([i - 0.2 for i in x], planned, width=0.4, label="planned", color=_PLANNED)
    axes.bar_label(bars, [number(v, 1) for v in planned], padding=2, fontsize=_LABEL_SIZE)
    colours = [_OVER if o else _ACTUAL for o in over]
    bars = axes.bar([i + 0.2 for i in x], actual, width=0.4, color=colours)
    texts = [
        f"{number(a, 1)}\n(+{number(a - p, 1)})" if o else number(a, 1)
        for a, p, o in zip(actual, planned, over, strict=True)
    ]
    axes.bar_label(bars, texts, padding=2, fontsize=_LABEL_SIZE)
    # Proxy artists, so the legend names both colours of the actual bars.
    axes.bar([0], [0], width=0, color=_ACTUAL, label="actual")
    if any(over):
        axes.bar([0], [0], width=0, color=_OVER, label="actual, over plan")
    axes.set_xticks(x, labels)
    axes.set_ylabel("GPU-hours")
    axes.set_title("Plan versus actual by work class")
    axes.set_ylim(0, max([*planned, *actual, 1.0]) * 1.18)  # room for the value labels
    _legend_outside(figure, axes)
    return figure


def plan_vs_actual_chart(rows: Sequence[dict[str, Any]]) -> bytes:
    """plan_vs_actual_figure as PNG bytes."""
    return _png(plan_vs_actual_figure(rows))


def allocation_by_week_figure(rows: Sequence[dict[str, Any]]) -> Any:
    """Stacked bars of allocated GPU-hours per week, split useful / recovery / lost /
    unverified, each week labelled with its total.

    rows: {"week", "useful_gpu_hours", "recovery_gpu_hours", "lost_gpu_hours",
    "unverified_gpu_hours"}.
    """
    figure, axes = _figure()
    weeks = [str(r["week"]) for r in rows]
    bottom = [0.0] * len(rows)
    for name in ACCOUNTING_CLASSES:
        values = [float(r.get(f"{name}_gpu_hours") or 0) for r in rows]
        axes.bar(weeks, values, bottom=bottom, label=name, color=_COLOURS[name])
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    for row, week, total in zip(rows, weeks, bottom, strict=True):
        # The label is the table's figure, to the same two decimals (not the float stack).
        label = row.get("allocated_gpu_hours", total)
        axes.annotate(
            number(label, 2),
            (week, total),
            xytext=(0, 2),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=_LABEL_SIZE,
        )
    axes.set_ylabel("allocated GPU-hours")
    axes.set_title("Allocated GPU-hours by week")
    axes.set_ylim(0, max([*bottom, 1.0]) * 1.12)  # room for the totals above the bars
    _legend_outside(figure, axes)
    return figure


def allocation_by_week_chart(rows: Sequence[dict[str, Any]]) -> bytes:
    """allocation_by_week_figure as PNG bytes."""
    return _png(allocation_by_week_figure(rows))


def sensitivity_figure(
    rows: Sequence[dict[str, Any]],
    ceiling_gpu_hours: float | None,
    base_gpu_hours: float | None = None,
    main_gpu_hours: float | None = None,
    measured_f: float | None = None,
) -> Any:
    """Campaign GPU-hours P + n·T·(1+f) + E against f, one line per n, against the ceiling.

    rows: {"attempts", "failure_fraction", "gpu_hours"}, the grid's cells (marked and
    labelled). With `base_gpu_hours` (P + E + D) and `main_gpu_hours` (T) each line is drawn
    over f from 0 past the largest f; else through its cells. The y axis starts at 0 and
    always includes the ceiling; `measured_f` is drawn as a vertical line.
    """
    figure, axes = _figure()
    fractions = [float(r["failure_fraction"]) for r in rows]
    top_f = max([*fractions, measured_f or 0.0, 0.2]) * 1.25
    for attempts in sorted({int(r["attempts"]) for r in rows}):
        cells = sorted(
            (float(r["failure_fraction"]), float(r["gpu_hours"]))
            for r in rows
            if int(r["attempts"]) == attempts
        )
        if base_gpu_hours is not None and main_gpu_hours is not None:
            line_f = [0.0, top_f]
            line_h = [base_gpu_hours + attempts * main_gpu_hours * (1 + f) for f in line_f]
        else:
            line_f, line_h = [f for f, _ in cells], [h for _, h in cells]
        (line,) = axes.plot(
            [100 * f for f in line_f], line_h, label=f"n = {plural(attempts, 'attempt')}"
        )
        axes.plot([100 * f for f, _ in cells], [h for _, h in cells], "o", color=line.get_color())
        for f, h in cells:
            axes.annotate(
                number(h, 0),
                (100 * f, h),
                xytext=(4, -10),
                textcoords="offset points",
                fontsize=_LABEL_SIZE,
            )
    highest = max([float(r["gpu_hours"]) for r in rows] or [0.0])
    if ceiling_gpu_hours is not None:
        ceiling = float(ceiling_gpu_hours)
        axes.axhline(ceiling, color=_CEILING, linestyle="--", label=f"ceiling {number(ceiling, 0)}")
        highest = max(highest, ceiling)
        axes.axhspan(ceiling, highest * 1.15, color=_CEILING, alpha=0.06, label="over the ceiling")
    if measured_f is not None:
        axes.axvline(
            100 * measured_f,
            color="#57606a",
            linestyle=":",
            label=f"measured f = {100 * measured_f:.1f} %",
        )
    axes.set_xlim(0, 100 * top_f)
    axes.set_ylim(0, highest * 1.15)
    axes.set_xlabel("failure and recovery fraction f (%)")
    axes.set_ylabel("campaign GPU-hours")
    axes.set_title("Sensitivity: P + n·T·(1+f) + E")
    _legend_outside(figure, axes)
    return figure


def sensitivity_chart(
    rows: Sequence[dict[str, Any]],
    ceiling_gpu_hours: float | None,
    base_gpu_hours: float | None = None,
    main_gpu_hours: float | None = None,
    measured_f: float | None = None,
) -> bytes:
    """sensitivity_figure as PNG bytes."""
    figure = sensitivity_figure(rows, ceiling_gpu_hours, base_gpu_hours, main_gpu_hours, measured_f)
    return _png(figure)


def scaling_fit_figure(
    observed: Sequence[float],
    fitted: Sequence[float],
    target: tuple[float, float, float] | None = None,
) -> Any:
    """Observed against fitted loss of the ablation points; the target's predicted loss with
    its interval (low, high) drawn as a horizontal band when given as (loss, low, high)."""
    figure, axes = _figure(7.0, 4.2)
    axes.scatter(fitted, observed, s=14, color="#0969da", label="ablation points")
    low = min(min(observed), min(fitted))
    high = max(max(observed), max(fitted))
    axes.plot([low, high], [low, high], color="#8c959f", linewidth=1, label="observed = fitted")
    if target is not None:
        loss, lower, upper = (float(v) for v in target)
        axes.axhspan(
            lower,
            upper,
            color="#bf8700",
            alpha=0.2,
            label=f"target interval\n{lower:.3f} to {upper:.3f}",
        )
        axes.axhline(loss, color="#bf8700", label=f"predicted at target\n{loss:.3f}")
    axes.set_xlabel("fitted loss")
    axes.set_ylabel("observed loss")
    axes.set_title("Scaling fit L(N, D) = E + A/N^α + B/D^β")
    _legend_outside(figure, axes)
    return figure


def scaling_fit_chart(
    observed: Sequence[float],
    fitted: Sequence[float],
    target: tuple[float, float, float] | None = None,
) -> bytes:
    """scaling_fit_figure as PNG bytes."""
    return _png(scaling_fit_figure(observed, fitted, target))

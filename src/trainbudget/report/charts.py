"""The report's charts as PNG bytes (matplotlib, Agg, no pyplot global state).

Each function takes plain rows (dicts of numbers) so the report does not depend on the shape
of any stage's frames; GPU-hours are drawn as floats (display only).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

ACCOUNTING_CLASSES = ("useful", "recovery", "lost", "unverified")
_COLOURS = {"useful": "#2da44e", "recovery": "#bf8700", "lost": "#cf222e", "unverified": "#8c959f"}


def _figure(width: float = 7.0, height: float = 3.6) -> Any:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=110, layout="constrained")
    return figure, figure.add_subplot()


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def plan_vs_actual_chart(rows: Sequence[dict[str, Any]]) -> bytes:
    """Grouped bars of planned and actual GPU-hours by work class.

    rows: {"work_class", "planned_gpu_hours", "actual_gpu_hours"}.
    """
    figure, axes = _figure()
    labels = [str(r["work_class"]) for r in rows]
    x = range(len(rows))
    planned = [float(r["planned_gpu_hours"] or 0) for r in rows]
    actual = [float(r["actual_gpu_hours"] or 0) for r in rows]
    axes.bar([i - 0.2 for i in x], planned, width=0.4, label="planned", color="#8c959f")
    axes.bar([i + 0.2 for i in x], actual, width=0.4, label="actual", color="#0969da")
    axes.set_xticks(list(x), labels)
    axes.set_ylabel("GPU-hours")
    axes.set_title("Plan versus actual by work class")
    axes.legend()
    return _png(figure)


def allocation_by_week_chart(rows: Sequence[dict[str, Any]]) -> bytes:
    """Stacked bars of allocated GPU-hours per week, split useful / recovery / lost / unverified.

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
    axes.set_ylabel("allocated GPU-hours")
    axes.set_title("Allocated GPU-hours by week")
    axes.legend(ncols=4, fontsize="small")
    return _png(figure)


def sensitivity_chart(rows: Sequence[dict[str, Any]], ceiling_gpu_hours: float | None) -> bytes:
    """Campaign GPU-hours P + n·T·(1+f) + E against f, one line per n, with the ceiling.

    rows: {"attempts", "failure_fraction", "gpu_hours"}.
    """
    figure, axes = _figure()
    for attempts in sorted({int(r["attempts"]) for r in rows}):
        points = sorted(
            (float(r["failure_fraction"]), float(r["gpu_hours"]))
            for r in rows
            if int(r["attempts"]) == attempts
        )
        axes.plot(
            [100 * f for f, _ in points],
            [h for _, h in points],
            marker="o",
            label=f"n = {attempts}",
        )
    if ceiling_gpu_hours is not None:
        axes.axhline(float(ceiling_gpu_hours), color="#cf222e", linestyle="--", label="ceiling")
    axes.set_xlabel("failure and recovery fraction f (%)")
    axes.set_ylabel("campaign GPU-hours")
    axes.set_title("Sensitivity: P + n·T·(1+f) + E")
    axes.legend()
    return _png(figure)


def scaling_fit_chart(
    observed: Sequence[float],
    fitted: Sequence[float],
    target: tuple[float, float, float] | None = None,
) -> bytes:
    """Observed against fitted loss of the ablation points; the target's predicted loss with
    its interval (low, high) drawn as a horizontal band when given as (loss, low, high)."""
    figure, axes = _figure(5.5, 4.2)
    axes.scatter(fitted, observed, s=14, color="#0969da", label="ablation points")
    low = min(min(observed), min(fitted))
    high = max(max(observed), max(fitted))
    axes.plot([low, high], [low, high], color="#8c959f", linewidth=1, label="observed = fitted")
    if target is not None:
        loss, lower, upper = (float(v) for v in target)
        axes.axhspan(lower, upper, color="#bf8700", alpha=0.2, label="target interval")
        axes.axhline(loss, color="#bf8700", label=f"predicted at target: {loss:.3f}")
    axes.set_xlabel("fitted loss")
    axes.set_ylabel("observed loss")
    axes.set_title("Scaling fit L(N, D) = E + A/N^α + B/D^β")
    axes.legend(fontsize="small")
    return _png(figure)

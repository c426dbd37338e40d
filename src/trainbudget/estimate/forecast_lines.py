"""The forecast as `campaign --json`'s `forecast` object, and each overhead line's arithmetic.

Numbers stay exact Decimals (the JSON writer keeps their digits); the `detail` texts round
for people, e.g. "41.0 × 5 min × 416 GPUs".
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from trainbudget.estimate.exact import div, mul
from trainbudget.estimate.forecast import Forecast, PhaseForecast
from trainbudget.estimate.forecast_model import OVERHEAD_LINES, PhaseOverhead

MINUTES_PER_HOUR = 60


def _n(value: Decimal, places: int = 1) -> str:
    return f"{float(value):,.{places}f}"


def _per_interruption_minutes(total_hours: Decimal, o: PhaseOverhead) -> Decimal:
    return div(mul(total_hours, MINUTES_PER_HOUR), o.interruptions)


def _phase_detail(line: str, o: PhaseOverhead) -> str:
    """One phase's arithmetic for `line`, rounded for display."""
    gpus = f"{o.allocated_gpus:,} GPUs"
    if line == "checkpoint_writes":
        minutes = mul(o.write_hours, MINUTES_PER_HOUR)
        return f"{_n(o.checkpoints)} checkpoints × {_n(minutes, 2)} min × {gpus}"
    if line == "spares":
        if o.spare_gpus == 0:
            return "no spares"
        noun = "spare GPU" if o.spare_gpus == 1 else "spare GPUs"
        return f"{o.spare_gpus:,} {noun} × {_n(o.compute_wall_hours)} h compute"
    hours = o.lost_progress_wall_hours if line == "lost_progress" else o.restart_wall_hours
    if o.interruptions == 0 or hours == 0:
        return f"0 min × {gpus}"
    what = "lost" if line == "lost_progress" else "restart"
    per = _per_interruption_minutes(hours, o)
    return f"{_n(o.interruptions)} interruptions × {_n(per, 2)} min {what} × {gpus}"


def _line_detail(line: str, phases: list[PhaseForecast]) -> str:
    if line == "spares" and all(p.overhead.spare_gpus == 0 for p in phases):
        return "no spares"
    return " + ".join(_phase_detail(line, p.overhead) for p in phases)


def forecast_lines(forecast: Forecast) -> list[dict[str, Any]]:
    """The compute line and one line per overhead cause, each with its arithmetic."""
    rows = [
        {
            "line": "compute",
            "gpu_hours": forecast.compute_gpu_hours,
            "detail": _compute_detail(forecast.phases),
        }
    ]
    for line in OVERHEAD_LINES:
        rows.append(
            {
                "line": line,
                "gpu_hours": forecast.overhead_gpu_hours[line],
                "detail": _line_detail(line, forecast.phases),
            }
        )
    if "rollbacks" in forecast.overhead_gpu_hours:
        wall = forecast.rollback_wall_hours or Decimal(0)
        gpus = forecast.phases[0].overhead.allocated_gpus if forecast.phases else 0
        rows.append(
            {
                "line": "rollbacks",
                "gpu_hours": forecast.overhead_gpu_hours["rollbacks"],
                "detail": f"{_n(wall)} h lost to rollbacks and outages × {gpus:,} GPUs",
            }
        )
    return rows


def _compute_detail(phases: list[PhaseForecast]) -> str:
    """GPUs × compute hours per phase, at their rate; the basis said once when shared."""
    bases = {p.flops_basis for p in phases}
    parts = " + ".join(
        f"{p.overhead.gpus:,} GPUs × {_n(p.overhead.compute_wall_hours)} h"
        + (f" ({_rate_text(p)})" if len(bases) == 1 else f" ({p.flops_basis}, {_rate_text(p)})")
        for p in phases
    )
    if len(bases) == 1 and phases[0].flops is not None:
        return f"{parts}; {bases.pop()}"
    return parts


def _rate_text(phase: PhaseForecast) -> str:
    """`400 TFLOP/s (MFU 0.404)`, or `MFU 0.4 (main.mfu)`, with the basis's MFU."""
    if phase.mfu is None:
        return phase.rate_source
    if phase.throughput_tflops is not None:
        text = f"{phase.throughput_tflops:f} TFLOP/s, MFU {float(phase.mfu):.3g}"
    else:
        text = f"MFU {float(phase.mfu):.3g} from {phase.rate_source}"
    if phase.model_flops_mfu is not None and phase.model_flops_mfu != phase.mfu:
        text += f" = {float(phase.model_flops_mfu):.3g} on model FLOPs 6·N·T"
    return text


def _phase_payload(phase: PhaseForecast) -> dict[str, Any]:
    o = phase.overhead
    return {
        "name": phase.name,
        "gpus": o.gpus,
        "spare_gpus": o.spare_gpus,
        "tokens": phase.tokens,
        "flops": phase.flops,
        "flops_basis": phase.flops_basis,
        "rate_source": phase.rate_source,
        "throughput_tflops": phase.throughput_tflops,
        "mfu": phase.mfu,
        "model_flops_mfu": phase.model_flops_mfu,
        "compute_wall_hours": o.compute_wall_hours,
        "compute_gpu_hours": o.compute_gpu_hours,
        "mtbf_hours": o.mtbf_hours,
        "checkpoint_interval_minutes": mul(o.interval_hours, MINUTES_PER_HOUR),
        "checkpoints": o.checkpoints,
        "interruptions": o.interruptions,
        "main_wall_hours": o.wall_hours,
        "overhead_gpu_hours": dict(o.overhead_gpu_hours),
        "main_gpu_hours": o.main_gpu_hours,
        "ettr": o.ettr,
    }


def forecast_payload(forecast: Forecast) -> dict[str, Any]:
    """DESIGN.md's `forecast` keys first, then intervals (when the MTBF has one) and phases."""
    payload: dict[str, Any] = {
        "main_gpu_hours": forecast.main_gpu_hours,
        "main_wall_hours": forecast.main_wall_hours,
        "compute_gpu_hours": forecast.compute_gpu_hours,
        "ettr": forecast.ettr,
        "overhead_gpu_hours": dict(forecast.overhead_gpu_hours),
        "mtbf_hours": forecast.mtbf_hours,
        "mtbf_source": forecast.mtbf_source,
        "checkpoint_interval_minutes": forecast.checkpoint_interval_minutes,
        "checkpoint_interval_source": forecast.checkpoint_interval_source,
        "mtbf_note": forecast.mtbf_note,
        "interruptions": forecast.interruptions,
        "checkpoints": forecast.checkpoints,
        "failure_fraction": forecast.failure_fraction,
        "throughput_source": forecast.throughput_source,
    }
    if forecast.band is not None:
        payload["main_gpu_hours_band"] = forecast.band.as_dict()
        payload["band_detail"] = forecast.band.detail()
    if forecast.throughput_note is not None:
        payload["throughput_prior"] = forecast.throughput_note
    if forecast.rollback_wall_hours is not None:
        payload["rollback_wall_hours"] = forecast.rollback_wall_hours
    if forecast.layout is not None:
        payload["pipeline_bubble_share"] = forecast.layout.bubble_share
        payload["pipeline_micro_batches"] = forecast.layout.micro_batches
        payload["memory_most_loaded_rank"] = forecast.layout.memory_payload()
    if forecast.ettr_interval is not None:
        payload["ettr_interval"] = list(forecast.ettr_interval)
        payload["mtbf_hours_interval"] = list(forecast.mtbf_hours_interval or ())
        payload["main_gpu_hours_interval"] = list(forecast.main_gpu_hours_interval or ())
    payload["lines"] = forecast_lines(forecast)
    payload["phases"] = [_phase_payload(phase) for phase in forecast.phases]
    payload["warnings"] = list(forecast.warnings)
    return payload


def main_line_detail(forecast: Forecast, compute_detail: str) -> str:
    """The main line's arithmetic when it is the forecast's: compute plus each overhead."""
    parts = " + ".join(
        f"{name.replace('_', ' ')} {float(hours):,.1f}"
        for name, hours in forecast.overhead_gpu_hours.items()
    )
    return (
        f"forecast: compute {float(forecast.compute_gpu_hours):,.1f} ({compute_detail}) + "
        f"{parts} GPU-h; ETTR {float(forecast.ettr):.3f}, job MTBF "
        f"{float(forecast.mtbf_hours):,.2f} h ({forecast.mtbf_source})"
    )

"""`trainbudget reliability` on the terminal: history table, fit, fleet prior (rounded here)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def _n(value: Any, places: int = 2) -> str:
    return "-" if value is None else f"{float(value):,.{places}f}"


def _interval(pair: list[Any] | None, places: int = 2) -> str:
    return "-" if not pair else f"{_n(pair[0], places)} – {_n(pair[1], places)}"


def _fitted(row: dict[str, Any]) -> str:
    if row["fitted_mtbf_hours"] is None:
        return "-"
    pair = row["fitted_mtbf_interval_hours"]
    extra = f" ({_n(pair[0], 1)}–{_n(pair[1], 1)})" if pair else ""
    return f"{_n(row['fitted_mtbf_hours'], 1)}{extra}"


def render_reliability(console: Console, p: dict[str, Any]) -> None:
    """The history by GPU count, then the fit (or why there is none), then the medians."""
    console.print(
        f"[bold]Failure history, cluster {p['cluster']}[/bold]: {p['jobs']:,} jobs, "
        f"{p['interruptions']:,} interruptions"
    )
    table = Table(title="Interruptions by job GPU count (MTBF of one job, hours)")
    for column in ("GPUs", "jobs", "interrupted", "GPU-h at risk", "observed",
                   "fitted (90% interval)", "fleet prior"):  # fmt: skip
        table.add_column(column, justify="right", no_wrap=column.startswith("fitted"))
    for r in p["history"]:
        table.add_row(
            str(r["gpus"]), str(r["jobs"]), str(r["interruptions"]), _n(r["gpu_hours_at_risk"], 1),
            _n(r["observed_mtbf_hours"]), _fitted(r), _n(r["fleet_prior_mtbf_hours"], 1),
        )  # fmt: skip
    console.print(table)
    fit, prior = p["fit"], p["fleet_prior"]
    if fit is None:
        console.print(f"No fit: {p['thin']}")
    else:
        exponent = _interval(fit["exponent_interval"], 3) if fit["exponent_interval"] else "fixed"
        console.print(
            f"Fit ({fit['method']}): MTBF(n) = {_n(fit['reference_hours'])} h × "
            f"(n / {fit['reference_gpus']:,})^{_n(fit['exponent'], 3)}; 90% interval of the "
            f"exponent {exponent}, of the {fit['reference_gpus']:,}-GPU MTBF "
            f"{_interval(fit['reference_hours_interval'])} h ({fit['bootstrap_draws']} draws)."
        )
    console.print(
        f"Fleet prior: {_n(prior['reference_hours'])} h × (n / {prior['reference_gpus']:,})^"
        f"{_n(prior['exponent'], 3)} ({prior['note']})."
    )
    console.print(
        f"Restart (allocation start → first new step): median "
        f"{_n(p['restart_median_seconds'], 0)} s over {p['restarts_measured']} resumes; "
        f"blocking checkpoint write: median {_n(p['checkpoint_write_median_seconds'], 0)} s "
        f"over {p['checkpoint_writes_measured']} writes (progress events), pilots "
        f"{_n(p['pilot_checkpoint_median_seconds'], 1)} s."
    )
    if p["campaign"]:
        c = p["campaign"]
        console.print(
            f"Campaign {c['campaign']} (review {c['week']}): ETTR {_n(c['ettr'], 3)}, "
            f"{c['interruptions']} interruptions in {_n(c['job_hours_at_risk'])} job hours, "
            f"observed MTBF {_n(c['observed_mtbf_hours'])} h on {c['main_gpus']} GPUs."
        )

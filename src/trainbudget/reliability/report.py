"""The `trainbudget reliability --json` payload: history table, fit, fleet prior, medians.

Counts and hours at risk are exact (integers, Decimal hours); the fitted parameters are
floats from the GLM (`fit.parameters`: "floats from the Poisson GLM").
"""

from __future__ import annotations

from typing import Any

from trainbudget.estimate.mtbf import FLEET_PRIOR
from trainbudget.reliability.fit import PowerLawFit
from trainbudget.reliability.history import HOUR, History
from trainbudget.reliability.measured import Measured


def reliability_payload(
    history: History,
    fit: PowerLawFit | None,
    thin: str | None,
    measured: Measured | None,
    seed: int,
) -> dict[str, Any]:
    """One JSON object: cluster, history, fit (None when thin, with `thin` saying why), ..."""
    curve = fit.curve if fit else None
    rows = []
    for b in history.buckets():
        interval = curve.interval_at(b.gpus) if curve else None
        rows.append(
            {
                "gpus": b.gpus,
                "jobs": b.jobs,
                "interruptions": b.interruptions,
                "job_hours_at_risk": b.job_seconds_at_risk / HOUR,
                "gpu_hours_at_risk": b.gpu_hours_at_risk,
                "observed_mtbf_hours": b.observed_mtbf_hours,
                "fitted_mtbf_hours": curve.hours_at(b.gpus) if curve else None,
                "fitted_mtbf_interval_hours": list(interval) if interval else None,
                "fleet_prior_mtbf_hours": FLEET_PRIOR.hours_at(b.gpus),
            }
        )
    return {
        "cluster": history.cluster,
        "jobs": len(history.exposures),
        "interruptions": history.interruptions,
        "history": rows,
        "fit": None
        if fit is None
        else {
            "method": fit.method,
            "parameters": "floats from the Poisson GLM",
            "reference_gpus": fit.curve.reference_gpus,
            "reference_hours": fit.curve.reference_hours,
            "exponent": fit.curve.exponent,
            "exponent_interval": list(fit.exponent_interval) if fit.exponent_interval else None,
            "reference_hours_interval": list(fit.reference_hours_interval),
            "interval_level": 0.9,
            "bootstrap_draws": len(fit.curve.draws),
            "bootstrap_draws_failed": fit.draws_failed,
            "seed": seed,
            "note": fit.curve.note,
        },
        "thin": thin,
        "fleet_prior": {
            "reference_gpus": FLEET_PRIOR.reference_gpus,
            "reference_hours": FLEET_PRIOR.reference_hours,
            "exponent": FLEET_PRIOR.exponent,
            "note": FLEET_PRIOR.note,
        },
        **history.medians(),
        "campaign": None if measured is None else _measured(measured),
    }


def _measured(m: Measured) -> dict[str, Any]:
    return {
        "campaign": m.campaign,
        "week": m.week,
        "cluster": m.cluster,
        "main_gpus": m.main_gpus,
        "ettr": m.ettr,
        "interruptions": m.interruptions,
        "job_hours_at_risk": m.job_seconds_at_risk / HOUR,
        "observed_mtbf_hours": m.observed_mtbf_hours,
        "restart_median_seconds": m.restart_median_seconds,
        "restarts_measured": m.restarts,
    }

"""The main line's band for a plan with no `reliability` section: the throughput alone.

With no failure model the main line is K = compute GPU-hours at the run's MFU, and the forecast
band's rule (estimate/forecast_band.py) reduces to main(s) = K / s with ln s ~ N(0, σ_s²):
    p10 = K / e^(1.2816·σ_s),  p50 = K,  p90 = K · e^(1.2816·σ_s)
in 50-digit Decimal arithmetic from the σ_s that `band_detail.throughput_sigma` prints (so the
JSON's figures can be recomputed from the JSON). σ_s is the throughput prior's for a run priced
at the prior (estimate/throughput_prior.py), MEASURED_SIGMA for a throughput the plan (or a
pilot or a calibration) gives. A main line given as `hours` involves no throughput: its band
is the stated GPU-hours. The MTBF shown (the plan's `cadence` MTBF, else the fleet prior's at
main.gpus) is labelled as pricing nothing here: without `reliability` the retry line and the
sensitivity grid price failures.
Kept light (no statistics, no forecast model): `campaign --json` loads it for every plan.
"""

from __future__ import annotations

import math
from decimal import Context, Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trainbudget.estimate.run import RunEstimate
    from trainbudget.plan import Plan

Z90 = 1.2815515655446004
# Assumption: a throughput measured by a pilot, a calibration or the plan's own benchmark is
# within ×/÷ 1.14 of the run's at p10/p90 (p90/p10 = 1.3); the validation's measured
# throughputs (docs/validation.md) miss their runs by up to that much.
MEASURED_SIGMA = math.log(1.3) / (2 * Z90)
MEASURED_SOURCES = {"plan": "plan", "user": "plan", "pilot": "pilot", "calibrated": "calibrated"}
_CTX = Context(prec=50)


def throughput_band(point: Decimal, sigma: Decimal) -> dict[str, Decimal]:
    """p10, p50, p90 of K / s, ln s ~ N(0, σ²), for K = `point` GPU-hours (exact to 50 digits)."""
    spread = _CTX.exp(_CTX.multiply(Decimal(repr(Z90)), sigma))
    return {
        "p10": _CTX.divide(point, spread),
        "p50": point,
        "p90": _CTX.multiply(point, spread),
    }


def _mtbf_reference(plan: Plan) -> dict[str, Any]:
    """The job MTBF at main.gpus, labelled as shown for reference, not priced: the plan's
    `cadence` section's if it has one, else the fleet prior's."""
    gpus = plan.main.gpus
    spec = plan.cadence
    if spec is not None:
        from trainbudget.estimate.cadence import job_mtbf_hours

        hours = job_mtbf_hours(
            gpus,
            mtbf_hours_per_gpu=spec.mtbf_hours_per_gpu,
            mtbf_hours_per_node=spec.mtbf_hours_per_node,
            gpus_per_node=spec.gpus_per_node,
        )
        source, note = "plan", "plan: the cadence section's job MTBF"
    else:
        from trainbudget.estimate.mtbf import FLEET_PRIOR

        hours, source, note = FLEET_PRIOR.hours_at(gpus), "fleet", FLEET_PRIOR.note
    return {
        "mtbf_hours": hours,
        "mtbf_source": source,
        "mtbf_note": (
            f"{note}; {float(hours):,.1f} h at {gpus:,} GPUs, shown for reference: "
            "the plan has no reliability section, so no failure overhead is in the main line "
            "(the retry line and the sensitivity grid price failures); add `reliability` to "
            "forecast them"
        ),
    }


def _layout(plan: Plan) -> dict[str, Any]:
    """With `main.parallel`: the pipeline bubble and the most loaded rank (estimate/parallel.py),
    as the forecast reports them; its warnings (a rank that does not fit) under `warnings`."""
    if plan.main.parallel is None:
        return {"warnings": []}
    from trainbudget.estimate.parallel import plan_layout

    layout = plan_layout(plan)
    return {
        "pipeline_bubble_share": layout.bubble_share,
        "pipeline_micro_batches": layout.micro_batches,
        "memory_most_loaded_rank": layout.memory_payload(),
        "warnings": list(layout.warnings),
    }


def main_band_payload(
    plan: Plan, run: RunEstimate | None, main_gpu_hours: Decimal
) -> dict[str, Any]:
    """`forecast` of `campaign --json` for a plan without `reliability`: source and band (and
    the layout's bubble and memory with `main.parallel`)."""
    reference = {**_mtbf_reference(plan), **_layout(plan)}
    if run is None:
        return {
            "throughput_source": "plan",
            "main_gpu_hours": main_gpu_hours,
            "main_gpu_hours_band": throughput_band(main_gpu_hours, Decimal(0)),
            "band_detail": {
                "method": "none: the plan gives the main run's hours, no throughput is involved "
                "(p10 = p50 = p90 = the stated GPU-hours)",
                "throughput": "plan: main.hours",
                "throughput_sigma": Decimal(0),
                "mtbf": None,
                "mtbf_sigma": None,
                "moved_most_by": "main.hours: the plan states them; no input has a spread",
            },
            **reference,
        }
    source = MEASURED_SOURCES.get(run.mfu_source, run.mfu_source)
    extra: dict[str, Any] = {}
    if source in ("prior", "class-default"):
        from trainbudget.estimate.run import implied_class
        from trainbudget.estimate.throughput_prior import assumed_mfu

        main = plan.main
        assumed = assumed_mfu(implied_class(main.model_class, main.flops_method), main.precision)
        sigma = assumed.prior.sigma
        label = f"{source}: MFU {run.mfu:f}, σ {sigma:.3f} on ln MFU from published runs"
        extra["throughput_prior"] = assumed.note
    else:
        sigma = MEASURED_SIGMA
        label = f"{source}-measured: MFU {float(run.mfu):.4g}, σ {MEASURED_SIGMA:.3f} assumed"
    exact_sigma = Decimal(repr(sigma))
    return {
        # DESIGN's four values: a class default (no published run of its kind) is a prior.
        "throughput_source": "prior" if source == "class-default" else source,
        "main_gpu_hours": main_gpu_hours,
        "main_gpu_hours_band": throughput_band(main_gpu_hours, exact_sigma),
        "band_detail": {
            "method": "throughput alone (no reliability section): p10, p90 = K ÷, × "
            "e^(1.2816·σ), estimate/main_band.py",
            "throughput": label,
            "throughput_sigma": exact_sigma,
            "mtbf": None,
            "mtbf_sigma": None,
            "moved_most_by": f"throughput ({label}): the only input with a spread",
        },
        **reference,
        **extra,
    }


def band_text(band: dict[str, Decimal], source: str, moved_most_by: str) -> str:
    """`band p10–p90 1,234–2,345 GPU-h (throughput prior; moved most by the throughput)`: the
    main line's band beside its point figure, in the table and the pre-launch report; empty
    for stated hours (p10 = p90)."""
    if band["p10"] == band["p90"]:
        return ""  # stated hours: nothing to add beside the figure (the JSON has the band)
    what = "the MTBF" if moved_most_by.startswith("MTBF") else "the throughput"
    return (
        f"band p10–p90 {float(band['p10']):,.0f}–{float(band['p90']):,.0f} GPU-h "
        f"(throughput {source}; moved most by {what})"
    )

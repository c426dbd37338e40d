"""`trainbudget decide`: is a run's predicted gain worth its dollar cost? (seed 004)

The run is priced by the estimator from the same options as `trainbudget estimate` (the clean
run alone), or with --plan as the pre-launch run prices it (the campaign's total with its
forecast); the answer says which cost it weighed. The gain is given directly (--gain with
--gain-uncertainty or --gain-low/--gain-high) or read from a scaling fit's JSON (--fit, from
`trainbudget fit --json`) against --baseline-loss. The verdict is recorded in the ledger's
decisions table. Parsing and rendering only: the weighing is gates/worth.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from trainbudget.base.errors import InputError
from trainbudget.cli import options as parse
from trainbudget.cli.decisions import record_or_emit
from trainbudget.cli.options import (
    GpuOption,
    GpuTflopsOption,
    JsonOption,
    LedgerOption,
    MfuOption,
    ModelClassOption,
    NoLedgerOption,
    PrecisionOption,
    value_option,
)
from trainbudget.cli.output import lazy, warn

# Without --plan the run is given by these; with it, by the plan's main run.
_RUN_FLAGS = ("--params", "--tokens", "--gpus", "--price", "--gpu", "--gpu-tflops", "--mfu")


def decide(
    ctx: typer.Context,
    min_gain: Annotated[
        str,
        value_option(
            "--min-gain", "Smallest gain with a concrete benefit (same units as the gain).", "GAIN"
        ),
    ],
    params: Annotated[
        str | None, value_option("--params", "Parameter count N, e.g. 7e9.", "N")
    ] = None,
    tokens: Annotated[
        str | None, value_option("--tokens", "Training tokens of the run, e.g. 1e11.", "TOKENS")
    ] = None,
    gpus: Annotated[str | None, value_option("--gpus", "Number of accelerators.", "COUNT")] = None,
    price: Annotated[str | None, value_option("--price", "Dollars per GPU-hour.", "USD")] = None,
    plan: Annotated[
        Path | None,
        typer.Option(
            "--plan",
            help="Weigh the campaign's cost, as the pre-launch run does (instead of --params…).",
            metavar="PLAN",
        ),
    ] = None,
    gpu: GpuOption = None,
    gpu_tflops: GpuTflopsOption = None,
    precision: PrecisionOption = "bf16",
    mfu: MfuOption = None,
    model_class: ModelClassOption = "dense",
    gain: Annotated[
        str | None,
        value_option("--gain", "Predicted gain over the baseline (positive is better).", "GAIN"),
    ] = None,
    gain_uncertainty: Annotated[
        str | None,
        value_option(
            "--gain-uncertainty",
            "± uncertainty of --gain.",
            "GAIN",
        ),
    ] = None,
    gain_low: Annotated[
        str | None,
        value_option(
            "--gain-low",
            "Low end of the gain's interval.",
            "GAIN",
        ),
    ] = None,
    gain_high: Annotated[
        str | None,
        value_option(
            "--gain-high",
            "High end of the gain's interval.",
            "GAIN",
        ),
    ] = None,
    gain_source: Annotated[
        str, typer.Option("--gain-source", help="Where the gain comes from.", metavar="TEXT")
    ] = "given",
    fit: Annotated[
        Path | None,
        typer.Option(
            "--fit", help="JSON of `trainbudget fit --json` at the target scale.", metavar="FILE"
        ),
    ] = None,
    baseline_loss: Annotated[
        str | None,
        value_option("--baseline-loss", "Loss of the model to beat (with --fit).", "LOSS"),
    ] = None,
    competing: Annotated[
        list[str] | None,
        typer.Option(
            "--competing",
            help="A competing proposal NAME:GAIN:COST_USD (repeatable).",
            metavar="NAME:GAIN:USD",
        ),
    ] = None,
    teacher_params: Annotated[
        str | None,
        value_option("--teacher-params", "Teacher parameter count N, to price distillation.", "N"),
    ] = None,
    shorter_fraction: Annotated[
        str,
        value_option(
            "--shorter-fraction",
            "Token fraction of the shorter run (30B of 100B: 0.3).",
            "FRACTION",
        ),
    ] = "0.3",
    campaign: Annotated[
        str | None, typer.Option("--campaign", help="Campaign id.", metavar="ID")
    ] = None,
    run_id: Annotated[
        str | None, typer.Option("--run-id", help="The run being judged.", metavar="ID")
    ] = None,
    no_ledger: NoLedgerOption = False,
    ledger: LedgerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Weigh a run's predicted gain against its cost; list cheaper alternatives, each priced."""
    render_decision = lazy("trainbudget.cli.render.gates", "render_decision")
    from trainbudget.gates.worth import clean_run_cost, weigh_gain

    given = (params, tokens, gpus, price, gpu, gpu_tflops, mfu)
    if plan is not None:
        named = [flag for flag, value in zip(_RUN_FLAGS, given, strict=True) if value is not None]
        if named:
            raise InputError(f"{named[0]}: the run is the plan's main run with --plan; not both")
    else:
        for flag, value in zip(_RUN_FLAGS[:4], given[:4], strict=True):
            if value is None:
                raise InputError(f"{flag}: required (or give --plan)")
    predicted, fitted, baseline = _predicted_gain(
        gain, gain_uncertainty, gain_low, gain_high, gain_source, fit, baseline_loss
    )
    proposals = [_competing(text) for text in competing or []]
    floor = parse.amount("--min-gain", min_gain)
    fraction = parse.amount("--shorter-fraction", shorter_fraction)
    if fraction is None or not 0 < fraction < 1:
        raise InputError(f"--shorter-fraction: must be between 0 and 1, got {shorter_fraction}")
    teacher = parse.amount("--teacher-params", teacher_params)
    if teacher is not None and teacher <= 0:
        raise InputError(f"--teacher-params: must be positive, got {teacher_params}")

    def weigh(book: Any) -> tuple[Any, dict[str, Any]]:
        if plan is None:
            from trainbudget.cli.run_options import build_estimate

            estimate = build_estimate(
                params=params, tokens=tokens, gpus=gpus, price=price, gpu=gpu,
                gpu_tflops=gpu_tflops, precision=precision, mfu=mfu, model_class=model_class,
            )  # fmt: skip
            cost = clean_run_cost(estimate)
        else:
            from trainbudget.plan import load_plan
            from trainbudget.prelaunch import weighed_cost

            cost, estimate = weighed_cost(load_plan(plan), book)
        if fitted is not None:
            from trainbudget.scaling.fit_result import fit_scale_warning

            message = fit_scale_warning(fitted, estimate["params"], estimate["tokens"])
            if message:
                warn(message)
        return weigh_gain(
            cost, estimate, predicted, floor, competing=proposals, shorter_fraction=fraction,
            teacher_params=teacher, law=fitted.law if fitted else None, baseline_loss=baseline,
            recorded_inputs={"fit": str(fit) if fit else None, "plan": str(plan) if plan else None},
        )  # fmt: skip

    campaign_id = campaign
    if plan is not None and campaign_id is None:
        from trainbudget.plan import load_plan

        campaign_id = load_plan(plan).campaign
    record_or_emit(
        ctx, ledger, no_ledger=no_ledger, decide=weigh,
        campaign_id=campaign_id, run_id=run_id,
        as_json=as_json, render=render_decision, plan=plan,
    )  # fmt: skip


def _predicted_gain(gain, uncertainty, low, high, source, fit, baseline_loss):
    """The PredictedGain from flags or from a fit's JSON; also the fit read and the baseline."""
    from trainbudget.gates.decision import PredictedGain

    if fit is not None:
        from trainbudget.scaling.fit_result import read_fit_result

        if gain is not None:
            raise InputError("--gain: give either --gain or --fit, not both")
        base = parse.number("--baseline-loss", baseline_loss)
        if base is None:
            raise InputError("--baseline-loss: required with --fit (the loss the run must beat)")
        fitted = read_fit_result(fit)
        predicted = PredictedGain.from_loss(
            base, fitted.predicted_loss, fitted.interval, f"scaling fit {fit.name}"
        )
        return predicted, fitted, base
    value = parse.number("--gain", gain)
    if value is None:
        raise InputError("--gain: required (or --fit with --baseline-loss)")
    if uncertainty is not None:
        if low is not None or high is not None:
            raise InputError("--gain-uncertainty: give it or --gain-low/--gain-high, not both")
        spread = parse.number("--gain-uncertainty", uncertainty)
        return PredictedGain.plus_minus(value, spread, source), None, None
    if low is None or high is None:
        raise InputError(
            "--gain-uncertainty: required (or both --gain-low and --gain-high); a gain without "
            "its uncertainty cannot be judged"
        )
    return (
        PredictedGain(
            value, parse.number("--gain-low", low), parse.number("--gain-high", high), source
        ),
        None,
        None,
    )


def _competing(text: str):
    from trainbudget.gates.decision import CompetingWork

    parts = text.rsplit(":", 2)
    if len(parts) != 3 or not parts[0].strip():
        raise InputError(f"--competing: expected NAME:GAIN:COST_USD, got {text!r}")
    name, gain, cost = parts
    cost_usd = parse.number("--competing cost", cost)
    if cost_usd is None or cost_usd <= 0:
        raise InputError(f"--competing: cost must be positive dollars, got {cost!r} in {text!r}")
    return CompetingWork(name.strip(), parse.number("--competing gain", gain), cost_usd)

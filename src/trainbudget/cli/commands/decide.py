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
from typing import Any

import click

from trainbudget.base.errors import InputError
from trainbudget.cli import options as parse
from trainbudget.cli.decisions import record_or_emit
from trainbudget.cli.help import command
from trainbudget.cli.options import (
    campaign_option,
    gpu_option,
    gpu_tflops_option,
    json_option,
    ledger_option,
    mfu_option,
    no_ledger_option,
    path_option,
    precision_option,
    run_options,
    text_option,
    value_option,
)
from trainbudget.cli.output import lazy, warn

# Without --plan the run is given by these; with it, by the plan's main run.
_RUN_FLAGS = ("--params", "--tokens", "--gpus", "--price", "--gpu", "--gpu-tflops", "--mfu")


@command("decide")
@value_option(
    "--min-gain",
    "Smallest gain with a concrete benefit (same units as the gain).",
    "GAIN",
    required=True,
)
@run_options(required=False)
@path_option(
    "--plan",
    "Weigh the campaign's cost, as the pre-launch run does (instead of --params…).",
    "PLAN",
)
@gpu_option()
@gpu_tflops_option
@precision_option
@mfu_option
@text_option(
    "--model-class", "dense, moe, cnn or snn (the prior's kind).", "CLASS", default="dense"
)
@value_option("--gain", "Predicted gain over the baseline (positive is better).", "GAIN")
@value_option("--gain-uncertainty", "± uncertainty of --gain.", "GAIN")
@value_option("--gain-low", "Low end of the gain's interval.", "GAIN")
@value_option("--gain-high", "High end of the gain's interval.", "GAIN")
@text_option("--gain-source", "Where the gain comes from.", "TEXT", default="given")
@path_option("--fit", "JSON of `trainbudget fit --json` at the target scale.", "FILE")
@value_option("--baseline-loss", "Loss of the model to beat (with --fit).", "LOSS")
@click.option(
    "--competing",
    multiple=True,
    metavar="NAME:GAIN:USD",
    help="A competing proposal NAME:GAIN:COST_USD (repeatable).",
)
@value_option("--teacher-params", "Teacher parameter count N, to price distillation.", "N")
@value_option(
    "--shorter-fraction",
    "Token fraction of the shorter run (30B of 100B: 0.3).",
    "FRACTION",
    default="0.3",
)
@campaign_option
@text_option("--run-id", "The run being judged.", "ID")
@no_ledger_option
@ledger_option
@json_option
@click.pass_context
def decide(
    ctx: click.Context,
    min_gain: str,
    params: str | None,
    tokens: str | None,
    gpus: str | None,
    price: str | None,
    plan: Path | None,
    gpu: str | None,
    gpu_tflops: str | None,
    precision: str,
    mfu: str | None,
    model_class: str,
    gain: str | None,
    gain_uncertainty: str | None,
    gain_low: str | None,
    gain_high: str | None,
    gain_source: str,
    fit: Path | None,
    baseline_loss: str | None,
    competing: tuple[str, ...],
    teacher_params: str | None,
    shorter_fraction: str,
    campaign: str | None,
    run_id: str | None,
    no_ledger: bool,
    ledger: str | None,
    as_json: bool,
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

            estimate = build_estimate(ctx.params)
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
            cost,
            estimate,
            predicted,
            floor,
            competing=proposals,
            shorter_fraction=fraction,
            teacher_params=teacher,
            law=fitted.law if fitted else None,
            baseline_loss=baseline,
            recorded_inputs={"fit": str(fit) if fit else None, "plan": str(plan) if plan else None},
        )

    campaign_id = campaign
    if plan is not None and campaign_id is None:
        from trainbudget.plan import load_plan

        campaign_id = load_plan(plan).campaign
    record_or_emit(
        ctx,
        ledger,
        no_ledger=no_ledger,
        decide=weigh,
        campaign_id=campaign_id,
        run_id=run_id,
        as_json=as_json,
        render=render_decision,
        plan=plan,
    )


def _predicted_gain(gain, uncertainty, low, high, source, fit, baseline_loss):
    """The PredictedGain (gates/given_gain.py) from the flags, a fit's JSON read when --fit is
    given; also the fit read and the baseline."""
    from trainbudget.gates.given_gain import given_gain

    fitted = None
    if fit is not None:
        from trainbudget.scaling.fit_result import read_fit_result

        fitted = read_fit_result(fit)
    base = parse.number("--baseline-loss", baseline_loss)
    with parse.flag_names():
        predicted = given_gain(
            gain=parse.number("--gain", gain),
            gain_uncertainty=parse.number("--gain-uncertainty", uncertainty),
            gain_low=parse.number("--gain-low", low),
            gain_high=parse.number("--gain-high", high),
            gain_source=source,
            fit_loss=fitted.predicted_loss if fitted else None,
            fit_interval=fitted.interval if fitted else None,
            fit_source=f"scaling fit {fit.name}" if fit else "scaling fit",
            baseline_loss=base,
        )
    return predicted, fitted, base if fitted else None


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

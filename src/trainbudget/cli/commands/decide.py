"""`trainbudget decide`: is a run's predicted gain worth its dollar cost? (seed 004)

The run is priced by the estimator from the same options as `trainbudget estimate`; the gain
is given directly (--gain with --gain-uncertainty or --gain-low/--gain-high) or read from a
scaling fit's JSON (--fit, from `trainbudget fit --json`) against --baseline-loss. The verdict
is recorded in the ledger's decisions table.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Any

import typer

from trainbudget.cli import options as parse
from trainbudget.cli.options import (
    GpuOption,
    GpusOption,
    GpuTflopsOption,
    JsonOption,
    LedgerOption,
    MfuOption,
    ModelClassOption,
    NoLedgerOption,
    ParamsOption,
    PrecisionOption,
    PriceOption,
    TokensOption,
    ledger_path,
    value_option,
)
from trainbudget.cli.output import emit, lazy, warn
from trainbudget.errors import InputError


def decide(
    ctx: typer.Context,
    params: ParamsOption,
    tokens: TokensOption,
    gpus: GpusOption,
    price: PriceOption,
    min_gain: Annotated[
        str,
        value_option(
            "--min-gain", "Smallest gain with a concrete benefit (same units as the gain).", "GAIN"
        ),
    ],
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
    from trainbudget.cli.run_options import build_estimate
    from trainbudget.gates.alternatives import RunShape, cheaper_alternatives
    from trainbudget.gates.decision import decide_run

    estimate = build_estimate(
        params=params,
        tokens=tokens,
        gpus=gpus,
        price=price,
        gpu=gpu,
        gpu_tflops=gpu_tflops,
        precision=precision,
        mfu=mfu,
        model_class=model_class,
    )
    predicted, law, baseline = _predicted_gain(
        gain, gain_uncertainty, gain_low, gain_high, gain_source, fit, baseline_loss
    )
    if law is not None:
        _check_fit_scale(fit, law, baseline - predicted.value, estimate)
    proposals = [_competing(text) for text in competing or []]
    floor = parse.amount("--min-gain", min_gain)
    fraction = parse.amount("--shorter-fraction", shorter_fraction)
    if fraction is None or not 0 < fraction < 1:
        raise InputError(f"--shorter-fraction: must be between 0 and 1, got {shorter_fraction}")
    teacher = parse.amount("--teacher-params", teacher_params)
    if teacher is not None and teacher <= 0:
        raise InputError(f"--teacher-params: must be positive, got {teacher_params}")

    outcome = decide_run(estimate["dollar_cost"], predicted, floor, proposals)
    shape = RunShape(
        estimate["params"],
        estimate["tokens"],
        estimate["gpus"],
        estimate["peak_flops_per_second"],
        estimate["mfu"],
        estimate["price_usd_per_gpu_hour"],
    )
    options = cheaper_alternatives(
        shape,
        shorter_fraction=fraction,
        teacher_params=teacher,
        competing=proposals,
        law=law,
        baseline_loss=baseline,
    )
    inputs = {**outcome.inputs, "estimate": estimate, "fit": str(fit) if fit else None}
    details = {**outcome.details, "alternatives": [vars(a) for a in options]}
    recorded = dataclasses.replace(outcome, inputs=inputs, details=details)
    payload = {
        "verdict": outcome.outcome,
        "reason": outcome.reason,
        "sentence": outcome.sentence,
        "cost_usd": estimate["dollar_cost"],
        "gpu_hours": estimate["gpu_hours"],
        "wall_days": estimate["wall_days"],
        "predicted_gain": {
            "value": predicted.value,
            "low": predicted.low,
            "high": predicted.high,
            "uncertainty": predicted.uncertainty,
            "source": predicted.source,
        },
        "min_gain": floor,
        "gain_per_1000_usd": outcome.details["gain_per_1000_usd"],
        "gain_exceeds_uncertainty": outcome.details["gain_exceeds_uncertainty"],
        "clears_min_gain": outcome.details["clears_min_gain"],
        "blocks_better_work": outcome.details["blocks_better_work"],
        "better_work": outcome.details["better_work"],
        "alternatives": details["alternatives"],
        "decision_id": None,
    }
    if no_ledger:
        emit(payload, as_json, lambda console: render_decision(console, payload))
        return
    from trainbudget.gates.audit import record_decision
    from trainbudget.ledger import Ledger

    with Ledger.open(ledger_path(ctx, ledger)) as book, book.transaction():
        payload["decision_id"] = record_decision(
            book, recorded, campaign_id=campaign, run_id=run_id
        )
    # Recorded and the ledger closed, then printed (cli/output.py: commit, then print).
    emit(payload, as_json, lambda console: render_decision(console, payload), committed=True)


def _predicted_gain(gain, uncertainty, low, high, source, fit, baseline_loss):
    """The PredictedGain from flags or from a fit's JSON; also the fitted law and baseline."""
    from trainbudget.gates.decision import PredictedGain

    if fit is not None:
        if gain is not None:
            raise InputError("--gain: give either --gain or --fit, not both")
        base = parse.number("--baseline-loss", baseline_loss)
        if base is None:
            raise InputError("--baseline-loss: required with --fit (the loss the run must beat)")
        data = _read_fit(fit)
        interval = data.get("predicted_loss_interval")
        if not isinstance(interval, list) or len(interval) != 2:
            raise InputError(
                f"{fit}: predicted_loss_interval: missing; run `trainbudget fit` with --bootstrap"
            )
        predicted = PredictedGain.from_loss(
            base,
            _number(fit, "predicted_loss", data.get("predicted_loss")),
            (_number(fit, "predicted_loss_interval", v) for v in interval),
            f"scaling fit {fit.name}",
        )
        law = data.get("params") if isinstance(data.get("params"), dict) else None
        if law is not None and not {"E", "A", "B", "alpha", "beta"} <= law.keys():
            law = None
        return predicted, law, base
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


def _read_fit(path: Path) -> dict[str, Any]:
    import orjson

    try:
        data = orjson.loads(path.read_bytes())
    except OSError as exc:
        raise InputError(f"{path}: cannot read fit result: {exc.strerror}") from None
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: a fit result must be a JSON object")
    return data


def _number(path: Path, key: str, value: Any):
    from decimal import Decimal

    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{path}: {key}: must be a number, got {value!r}")
    return Decimal(repr(value))


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


def _check_fit_scale(fit: Path, law: dict[str, float], predicted_loss: Any, estimate: dict) -> None:
    """Warn when the fit's predicted loss is not the law's loss at --params/--tokens: the fit
    was then run for another target scale than the run being judged."""
    from trainbudget.scaling.law import law_loss

    at_run = law_loss(law, float(estimate["params"]), float(estimate["tokens"]))
    if abs(at_run - float(predicted_loss)) > 1e-6 * max(abs(at_run), 1.0):
        warn(
            f"{fit}: predicted_loss {float(predicted_loss):.6g} is not the fitted law's loss at "
            f"--params/--tokens ({at_run:.6g}); was the fit run for another target scale?"
        )

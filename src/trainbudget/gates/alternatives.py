"""Seed 004's cheaper alternatives to a large run, each priced by the estimator.

- smaller scale: params / 4 on the same tokens, 4× cheaper under 6·N·T ("same gap probably
  visible");
- shorter run first: the same model on a fraction of the tokens (30B before 100B: 0.3);
- distillation from an existing larger teacher: the student's 6·N·T' plus the teacher's
  forward passes 2·N_teacher·T' (forward only: 2 FLOPs per parameter per token, Kaplan et
  al. 2020, sec. 2.1), on the shorter run's tokens T';
- another idea: the best competing proposal, at its own cost.

When the scaling fit's law L(N, D) = E + A/N^α + B/D^β and the baseline loss are known, each
training alternative also gets a point prediction of its gain (baseline - L(N', D')).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from trainbudget.estimate.run import estimate_from_flops, estimate_run
from trainbudget.gates.decision import CompetingWork, gain_per_1000_usd
from trainbudget.gates.outcome import plain, usd
from trainbudget.scaling.law import law_loss


def _sci(value: Decimal) -> str:
    """A large count for a sentence: 1.75e9, 3e10 (display only)."""
    return f"{float(value):.4g}".replace("e+0", "e").replace("e+", "e")


@dataclass(frozen=True)
class RunShape:
    """The run being judged, as the estimator needs it (peak FLOP/s of one accelerator)."""

    params: Decimal
    tokens: Decimal
    gpus: int
    peak_flops_per_second: Decimal
    mfu: Decimal
    price_usd_per_gpu_hour: Decimal


@dataclass(frozen=True)
class Alternative:
    """A cheaper way to learn or get the gain; cost None when it cannot be priced."""

    name: str
    description: str
    params: Decimal | None
    tokens: Decimal | None
    gpu_hours: Decimal | None
    cost_usd: Decimal | None
    predicted_gain: Decimal | None
    gain_per_1000_usd: Decimal | None
    cheaper: bool | None
    note: str


def cheaper_alternatives(
    run: RunShape,
    *,
    smaller_factor: int = 4,
    shorter_fraction: Decimal = Decimal("0.3"),
    teacher_params: Decimal | None = None,
    competing: Sequence[CompetingWork] = (),
    law: Mapping[str, float] | None = None,
    baseline_loss: Decimal | None = None,
) -> list[Alternative]:
    """The four alternatives of seed 004, in its order, each priced by `estimate_run`."""
    price = (run.gpus, run.peak_flops_per_second, run.mfu, run.price_usd_per_gpu_hour)
    full_cost = estimate_run(run.params, run.tokens, *price).dollar_cost
    smaller_params = run.params / smaller_factor
    short_tokens = run.tokens * shorter_fraction
    found = []

    small = estimate_run(smaller_params, run.tokens, *price)
    found.append(
        _priced(
            "smaller-scale",
            f"{_sci(smaller_params)} params on the same {_sci(run.tokens)} tokens",
            smaller_params,
            run.tokens,
            small.gpu_hours,
            small.dollar_cost,
            _gain(law, baseline_loss, smaller_params, run.tokens),
            f"{smaller_factor}× fewer parameters; the gap is probably visible at this scale",
        )
    )
    short = estimate_run(run.params, short_tokens, *price)
    found.append(
        _priced(
            "shorter-run",
            f"the same model on {_sci(short_tokens)} tokens first",
            run.params,
            short_tokens,
            short.gpu_hours,
            short.dollar_cost,
            _gain(law, baseline_loss, run.params, short_tokens),
            "check the trend on the first tokens before paying for the rest",
        )
    )
    if teacher_params is not None:
        # Exact integer FLOPs where the inputs are integral: 6·N·T' + 2·N_teacher·T'.
        flops = 6 * run.params * short_tokens + 2 * teacher_params * short_tokens
        distilled = estimate_from_flops(flops, *price, formula="6·N·T' + 2·N_teacher·T'")
        found.append(
            _priced(
                "distillation",
                f"distil a {_sci(teacher_params)}-param teacher into the model on "
                f"{_sci(short_tokens)} tokens",
                run.params,
                short_tokens,
                distilled.gpu_hours,
                distilled.dollar_cost,
                None,
                "teacher forward passes included; the scaling fit does not predict its gain",
            )
        )
    else:
        found.append(
            Alternative(
                "distillation",
                "distil an existing larger model into this one",
                run.params,
                short_tokens,
                None,
                None,
                None,
                None,
                None,
                "give the teacher's parameter count (--teacher-params) to price it",
            )
        )
    if competing:
        best = max(competing, key=lambda w: gain_per_1000_usd(w.gain, w.cost_usd))
        found.append(
            _priced(
                "another-idea",
                f"{best.name}: the competing proposal with the best gain per dollar",
                None,
                None,
                None,
                best.cost_usd,
                best.gain,
                f"predicted gain {plain(best.gain)} for {usd(best.cost_usd)}",
            )
        )
    else:
        found.append(
            Alternative(
                "another-idea",
                "spend the compute on an idea with a better expected gain",
                None,
                None,
                None,
                None,
                None,
                None,
                None,
                "no competing proposal given (--competing NAME:GAIN:COST_USD)",
            )
        )
    return [_against(alt, full_cost) for alt in found]


def _priced(name, description, params, tokens, gpu_hours, cost, gain, note) -> Alternative:
    rate = gain_per_1000_usd(gain, cost) if gain is not None and cost else None
    return Alternative(name, description, params, tokens, gpu_hours, cost, gain, rate, None, note)


def _against(alt: Alternative, full_cost: Decimal) -> Alternative:
    """Mark whether an alternative is cheaper than the run; say so when it is not, or when
    the fitted law predicts it does not beat the baseline."""
    if alt.cost_usd is None:
        return alt
    cheaper = alt.cost_usd < full_cost
    note = alt.note if cheaper else f"{alt.note}; NOT cheaper than the run ({usd(full_cost)})"
    if alt.predicted_gain is not None and alt.predicted_gain <= 0:
        note += "; predicted not to beat the baseline: a cheap test of the trend, not a substitute"
    return replace(alt, cheaper=cheaper, note=note)


def _gain(
    law: Mapping[str, float] | None, baseline_loss: Decimal | None, params: Decimal, tokens: Decimal
) -> Decimal | None:
    """baseline - L(N, D) from the fitted law (a point prediction, floats: a fitted model)."""
    if law is None or baseline_loss is None:
        return None
    loss = law_loss(law, float(params), float(tokens))
    return baseline_loss - Decimal(repr(loss))

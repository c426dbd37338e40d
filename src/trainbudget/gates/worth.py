"""`decide`'s question assembled (seed 004): the gain weighed against a stated cost, the cheaper
alternatives priced beside it, the outcome recorded and the `decide --json` payload.

Which cost is weighed is part of the answer: `campaign` is the plan's total with its forecast,
what the pre-launch run weighs (`decide --plan`); `clean-run` is the one run priced alone, with
no pilots, retries, evaluation or failures (`decide` from --params/--tokens/--gpus). Pure: plain
values in, the payload out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from trainbudget.gates.alternatives import RunShape, cheaper_alternatives
from trainbudget.gates.decision import CompetingWork, PredictedGain, decide_run
from trainbudget.gates.outcome import GateOutcome, hours, usd

COST_BASES = ("campaign", "clean-run")


@dataclass(frozen=True)
class CostBasis:
    """The cost a gain is weighed against and which one it is (COST_BASES)."""

    basis: str
    cost_usd: Decimal
    gpu_hours: Decimal
    wall_days: Decimal | None

    def sentence(self) -> str:
        if self.basis == "campaign":
            return (
                f"weighed against the campaign's total, {usd(self.cost_usd)} for "
                f"{hours(self.gpu_hours)} GPU-hours with its forecast (as the pre-launch run)"
            )
        return (
            f"priced the clean run only, {usd(self.cost_usd)} for {hours(self.gpu_hours)} "
            "GPU-hours (no pilots, retries, evaluation or failures; give --plan for the "
            "campaign's cost)"
        )


def clean_run_cost(estimate: Mapping[str, Any]) -> CostBasis:
    """The clean run's cost from an `estimate --json` payload."""
    return CostBasis(
        "clean-run", estimate["dollar_cost"], estimate["gpu_hours"], estimate["wall_days"]
    )


def weigh_gain(
    cost: CostBasis,
    estimate: Mapping[str, Any],
    predicted: PredictedGain,
    min_gain: Decimal,
    *,
    competing: Sequence[CompetingWork] = (),
    shorter_fraction: Decimal,
    teacher_params: Decimal | None = None,
    law: Mapping[str, float] | None = None,
    baseline_loss: Decimal | None = None,
    recorded_inputs: Mapping[str, Any] | None = None,
) -> tuple[GateOutcome, dict[str, Any]]:
    """The worth verdict on `cost` with the alternatives priced from the clean run `estimate`
    (an `estimate --json` payload); (the outcome to record, the `decide --json` payload)."""
    outcome = decide_run(cost.cost_usd, predicted, min_gain, competing)
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
        shorter_fraction=shorter_fraction,
        teacher_params=teacher_params,
        competing=competing,
        law=law,
        baseline_loss=baseline_loss,
    )
    alternatives = [vars(a) for a in options]
    inputs = {
        **outcome.inputs,
        "cost_basis": cost.basis,
        "estimate": dict(estimate),
        **(recorded_inputs or {}),
    }
    details = {**outcome.details, "alternatives": alternatives}
    recorded = dataclasses.replace(outcome, inputs=inputs, details=details)
    payload = {
        "verdict": outcome.outcome,
        "reason": outcome.reason,
        "sentence": outcome.sentence,
        "cost_basis": cost.basis,
        "cost_basis_sentence": cost.sentence(),
        "cost_usd": cost.cost_usd,
        "gpu_hours": cost.gpu_hours,
        "wall_days": cost.wall_days,
        "predicted_gain": {
            "value": predicted.value,
            "low": predicted.low,
            "high": predicted.high,
            "uncertainty": predicted.uncertainty,
            "source": predicted.source,
        },
        "min_gain": min_gain,
        "gain_per_1000_usd": outcome.details["gain_per_1000_usd"],
        "gain_exceeds_uncertainty": outcome.details["gain_exceeds_uncertainty"],
        "clears_min_gain": outcome.details["clears_min_gain"],
        "blocks_better_work": outcome.details["blocks_better_work"],
        "better_work": outcome.details["better_work"],
        "alternatives": alternatives,
        "decision_id": None,
    }
    return recorded, payload

"""Stop rules declared before launch, and their evaluation against a run's progress.

Seed 001: set a maximum wall clock, a spend limit, a failed-step count and an early-stop
rule before viewing results; early stopping uses a development metric, never the final
holdout. A run stopped for budget (wall clock or spend) is not a failed evaluation: its
artifact is marked incomplete and can never be promoted.

Boundaries: a wall-clock or spend limit is a cap, so reaching it stops the run; the failed-
step count is the number tolerated, so exceeding it stops the run.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Literal

from trainbudget.base.errors import InputError
from trainbudget.base.limits import within_gate_bound
from trainbudget.estimate.exact import non_negative
from trainbudget.gates.outcome import GateOutcome, hours, taken, usd

if TYPE_CHECKING:
    from trainbudget.plan import Plan
    from trainbudget.plan.gates import StopRulesSection

ArtifactState = Literal["in-progress", "complete", "early-stopped", "incomplete", "failed"]
# Artifact states that may go on to a promotion gate; the others never can.
PROMOTABLE_STATES = frozenset({"complete", "early-stopped"})


@dataclass(frozen=True)
class EarlyStop:
    """Stop when `metric` has not improved by more than `min_delta` for `patience` evaluations.

    Improvement is strict, as in Keras' EarlyStopping: for mode "min" a value counts only if
    it is below best - min_delta, for "max" only if above best + min_delta.
    """

    metric: str
    mode: Literal["min", "max"] = "min"
    patience: int = 3
    min_delta: Decimal = Decimal(0)


@dataclass(frozen=True)
class StopRules:
    """A run's stop rules; None means the rule is not set. Build them with `declare_stop_rules`."""

    max_wall_hours: Decimal | None = None
    spend_limit_usd: Decimal | None = None
    max_failed_steps: int | None = None
    early_stop: EarlyStop | None = None


def plan_stop_rules(plan: Plan, source: object) -> StopRules:
    """The stop rules the plan (read from `source`) declares; InputError when it has none."""
    section = plan.gates.stop_rules if plan.gates else None
    if section is None:
        raise InputError(f"{source}: gates.stop_rules: the plan declares no stop rules")
    return planned_stop_rules(section)


def chosen_stop_rules(
    planned: StopRules | None, declared: Callable[[], StopRules], given_flags: Sequence[str]
) -> StopRules:
    """The plan's rules when there are some, else the flags' (`declared`), never a mix: a rule
    flag given beside the plan's rules would be silently ignored, so it is refused."""
    if planned is None:
        return declared()
    if given_flags:
        raise InputError(
            f"{given_flags[0]}: the rules come from --plan (gates.stop_rules); "
            "give rule flags or --plan, not both"
        )
    return planned


def planned_stop_rules(section: StopRulesSection) -> StopRules:
    """The stop rules a plan's `gates.stop_rules` section declares."""
    early = section.early_stop
    return StopRules(
        max_wall_hours=section.max_wall_hours,
        spend_limit_usd=section.spend_limit_usd,
        max_failed_steps=section.max_failed_steps,
        early_stop=(
            EarlyStop(early.metric, early.mode, early.patience, early.min_delta) if early else None
        ),
    )


@dataclass(frozen=True)
class RunProgress:
    """Where a run stands: wall hours so far, dollars spent, failed steps, dev-metric history.

    `metric_history` maps a metric name to its values in evaluation order; `finished` is true
    once the run reached its planned end.
    """

    wall_hours: Decimal
    spent_usd: Decimal
    failed_steps: int = 0
    metric_history: Mapping[str, Sequence[Decimal | float]] = field(default_factory=dict)
    finished: bool = False


def declare_stop_rules(
    *,
    development_metrics: Collection[str],
    holdout_metrics: Collection[str] = (),
    max_wall_hours: Decimal | None = None,
    spend_limit_usd: Decimal | None = None,
    max_failed_steps: int | None = None,
    early_stop: EarlyStop | None = None,
) -> StopRules:
    """Validate stop rules before launch; InputError names the field at fault.

    Refused: a negative or non-finite limit; an early-stop metric that is a final holdout
    metric (repeated peeking at the holdout biases it); a metric not among the run's declared
    development metrics.
    """
    wall = taken("stop_rules.max_wall_hours", max_wall_hours)
    spend = taken("stop_rules.spend_limit_usd", spend_limit_usd)
    within_gate_bound("stop_rules.max_failed_steps", max_failed_steps)
    if max_failed_steps is not None and max_failed_steps < 0:
        raise InputError(
            f"stop_rules.max_failed_steps: must be zero or more, got {max_failed_steps}"
        )
    if early_stop is not None:
        name = early_stop.metric
        if name in holdout_metrics:
            raise InputError(
                f"stop_rules.early_stop.metric: {name!r} is a final holdout metric; early "
                "stopping must use a development metric"
            )
        if name not in development_metrics:
            known = ", ".join(sorted(development_metrics)) or "none declared"
            raise InputError(
                f"stop_rules.early_stop.metric: unknown metric {name!r} "
                f"(development metrics: {known})"
            )
        if early_stop.mode not in ("min", "max"):
            raise InputError(
                f"stop_rules.early_stop.mode: must be min or max, got {early_stop.mode!r}"
            )
        if early_stop.patience < 1:
            raise InputError(
                f"stop_rules.early_stop.patience: must be at least 1, got {early_stop.patience}"
            )
        non_negative("stop_rules.early_stop.min_delta", early_stop.min_delta)
    return StopRules(wall, spend, max_failed_steps, early_stop)


def evaluate_stop_rules(rules: StopRules, progress: RunProgress) -> GateOutcome:
    """Stop or continue a run; `details.artifact_state` says what its artifact may become.

    Budget rules are checked first, so a run over its budget is always marked incomplete
    (unpromotable) even when another rule would also stop it.
    """
    wall = non_negative("progress.wall_hours", progress.wall_hours)
    spent = non_negative("progress.spent_usd", progress.spent_usd)
    within_gate_bound("progress.wall_hours", wall)
    within_gate_bound("progress.spent_usd", spent)
    if progress.failed_steps < 0:
        raise InputError(
            f"progress.failed_steps: must be zero or more, got {progress.failed_steps}"
        )
    inputs = {
        "rules": {
            "max_wall_hours": rules.max_wall_hours,
            "spend_limit_usd": rules.spend_limit_usd,
            "max_failed_steps": rules.max_failed_steps,
            "early_stop": None if rules.early_stop is None else vars(rules.early_stop),
        },
        "wall_hours": wall,
        "spent_usd": spent,
        "failed_steps": progress.failed_steps,
        "finished": progress.finished,
    }

    def stop(reason: str, state: ArtifactState, why: str) -> GateOutcome:
        keep = "keep its last valid checkpoint; "
        after = {
            "incomplete": "its artifact is incomplete and can never be promoted",
            "failed": "its artifact is marked failed and cannot be promoted",
            "early-stopped": "its best checkpoint may go to the promotion gates",
        }[state]
        return GateOutcome(
            gate="stop-rules",
            outcome="stop",
            reason=reason,
            sentence=f"Stop: {why}; {keep}{after}.",
            inputs=inputs,
            details={"artifact_state": state, "promotable": state in PROMOTABLE_STATES},
        )

    if rules.spend_limit_usd is not None and spent >= rules.spend_limit_usd:
        return stop(
            "spend-limit",
            "incomplete",
            f"{usd(spent)} spent reaches the {usd(rules.spend_limit_usd)} spend limit",
        )
    if rules.max_wall_hours is not None and wall >= rules.max_wall_hours:
        return stop(
            "wall-clock",
            "incomplete",
            f"{hours(wall)} wall-clock hours reach the {hours(rules.max_wall_hours)}-hour maximum",
        )
    if rules.max_failed_steps is not None and progress.failed_steps > rules.max_failed_steps:
        return stop(
            "failed-steps",
            "failed",
            f"{progress.failed_steps} failed steps exceed the {rules.max_failed_steps} tolerated",
        )
    if rules.early_stop is not None:
        stale = _evaluations_without_improvement(
            rules.early_stop, progress.metric_history.get(rules.early_stop.metric, ())
        )
        if stale >= rules.early_stop.patience:
            return stop(
                "early-stop",
                "early-stopped",
                f"development metric {rules.early_stop.metric!r} has not improved for "
                f"{stale} evaluations (patience {rules.early_stop.patience})",
            )
    state: ArtifactState = "complete" if progress.finished else "in-progress"
    return GateOutcome(
        gate="stop-rules",
        outcome="continue" if not progress.finished else "complete",
        reason=None,
        sentence=(
            "Complete: the run reached its planned end within every stop rule."
            if progress.finished
            else "Continue: no stop rule is met."
        ),
        inputs=inputs,
        details={"artifact_state": state, "promotable": state in PROMOTABLE_STATES},
    )


def _evaluations_without_improvement(rule: EarlyStop, history: Sequence[Decimal | float]) -> int:
    """How many evaluations since the last strict improvement (Keras EarlyStopping's `wait`)."""
    best = None
    wait = 0
    for raw in history:
        value = Decimal(str(raw))
        if not value.is_finite():
            raise InputError(f"progress.metric_history.{rule.metric}: non-finite value {raw}")
        improved = best is None or (
            value < best - rule.min_delta if rule.mode == "min" else value > best + rule.min_delta
        )
        if improved:
            best, wait = value, 0
        else:
            wait += 1
    return wait

"""Admission's plan adapters: a plan's `gates.admission` and `cluster.allocation` as the
plain values `gates.admission.admit_run` takes, and the planned campaign admitted under them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.gates.admission import AdmissionRequest, QueueLimits, admit_run
from trainbudget.gates.allocation import plan_allocation

if TYPE_CHECKING:
    from trainbudget.gates.outcome import GateOutcome
    from trainbudget.plan import Plan


def plan_limits(
    plan: Plan | None, overrides: Mapping[str, Any] | None = None
) -> tuple[QueueLimits, Decimal | None]:
    """The plan's `gates.admission` as QueueLimits, and its approved budget in GPU-hours.

    `overrides` (QueueLimits field names) that are not None replace the plan's values: the
    one merge `admit --plan` and the pre-launch run both use.
    """
    section = plan.gates.admission if plan is not None and plan.gates is not None else None
    limits, budget = QueueLimits(), None
    if section is not None:
        budget = section.budget_gpu_hours
        limits = QueueLimits(
            max_gpus=section.max_gpus,
            max_memory_per_gpu_gb=section.max_memory_per_gpu_gb,
            max_runtime_hours=section.max_runtime_hours,
            require_data_snapshot=section.require_data_snapshot,
            known_data_snapshots=(
                frozenset(section.data_snapshots) if section.data_snapshots is not None else None
            ),
            capacity_gpu_hours=section.capacity_gpu_hours,
            retraining_reserve_gpu_hours=section.retraining_reserve_gpu_hours,
        )
    allocation = plan_allocation(plan)
    if allocation is not None:
        limits = replace(limits, allocation=allocation)
    known = {f.name for f in fields(QueueLimits)}
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    unknown = sorted(set(given) - known)
    if unknown:
        raise InputError(f"{unknown[0]}: not a queue limit (one of {', '.join(sorted(known))})")
    return replace(limits, **given), budget


def requested_budget(given: Decimal | None, plan: Plan | None) -> Decimal:
    """The budget a request is judged against: the one given, else the plan's (`plan_budget`);
    InputError when there is neither."""
    if given is not None:
        return given
    if plan is not None:
        return plan_budget(plan)
    raise InputError("--budget-gpu-hours: required (or give --plan: its admission budget)")


def plan_budget(plan: Plan) -> Decimal:
    """The GPU-hours a plan approves: `gates.admission.budget_gpu_hours`, else its ceiling."""
    _, budget = plan_limits(plan)
    return plan.ceiling.gpu_hours if budget is None else budget


def admit_planned_run(
    plan: Plan,
    planned_gpu_hours: Decimal,
    expected_interruptions: Decimal,
    checkpoint_supported: bool,
    memory_per_gpu_gb: Decimal | None = None,
    runtime_hours: Decimal | None = None,
    data_snapshot: str | None = None,
    planned_billing_hours: Decimal | None = None,
) -> GateOutcome:
    """Seed 001's admission of a plan's campaign under every limit the plan declares.

    The budget is `plan_budget`; the run asks for the main run's GPUs and, when the pilot
    measured it, its peak memory per GPU; `data_snapshot` is checked against the plan's
    known snapshots and recorded with the decision, as for `admit --data-snapshot`.
    """
    limits, _ = plan_limits(plan)
    request = AdmissionRequest(
        estimated_gpu_hours=planned_gpu_hours,
        budget_gpu_hours=plan_budget(plan),
        expected_interruptions=expected_interruptions,
        checkpoint_supported=checkpoint_supported,
        gpus=plan.main.gpus,
        memory_per_gpu_gb=memory_per_gpu_gb,
        runtime_hours=runtime_hours,
        data_snapshot=data_snapshot,
        estimated_billing_hours=planned_billing_hours,
    )
    return admit_run(request, limits)

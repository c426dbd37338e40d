"""Admission under shared limits: may a run start, and how many GPU-hours does it reserve?

The core is seed 001's rule, in its order: negative inputs are an error; an estimate above
the budget defers (`budget`); expected interruptions without checkpoint support defer
(`no-recovery`); otherwise the run is admitted and reserves its estimate. The queue limits
the seed describes are checked after those: accelerator count, memory per accelerator,
maximum runtime, a data snapshot, capacity held back for scheduled retraining, and release
evaluation for production candidates. Every failing check is reported; `reason` is the first.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Literal, get_args

from trainbudget.base.errors import InputError
from trainbudget.base.limits import within_gate_bound
from trainbudget.gates.allocation import Allocation, allocation_block
from trainbudget.gates.outcome import GateOutcome, taken
from trainbudget.gates.outcome import hours as _h
from trainbudget.gates.outcome import plain as _n

if TYPE_CHECKING:
    pass

Workload = Literal["experiment", "retraining"]
Priority = Literal["normal", "high"]
Candidate = Literal["exploratory", "production"]
# The words each of those takes, for a command line to check its options against.
REQUEST_WORDS = {
    "workload": get_args(Workload),
    "priority": get_args(Priority),
    "candidate": get_args(Candidate),
}


@dataclass(frozen=True)
class AdmissionRequest:
    """What a run asks for. Hours are GPU-hours except `runtime_hours` (wall clock).

    `runtime_hours`, when not given, is derived as estimated_gpu_hours / gpus.
    """

    estimated_gpu_hours: Decimal
    budget_gpu_hours: Decimal
    expected_interruptions: Decimal
    checkpoint_supported: bool = True
    gpus: int | None = None
    memory_per_gpu_gb: Decimal | None = None
    runtime_hours: Decimal | None = None
    data_snapshot: str | None = None
    workload: Workload = "experiment"
    priority: Priority = "normal"
    candidate: Candidate = "exploratory"
    full_evaluation: bool = True
    # The run in the cluster's billing units, for an allocation in billing-hours.
    estimated_billing_hours: Decimal | None = None


@dataclass(frozen=True)
class QueueLimits:
    """A team's shared limits; None means "no limit of this kind".

    capacity_gpu_hours is the queue's capacity for the period, committed_gpu_hours what
    admitted runs already reserve, retraining_reserve_gpu_hours the part only scheduled
    retraining may use (seed 001: experiments must not starve scheduled retraining).
    """

    max_gpus: int | None = None
    max_memory_per_gpu_gb: Decimal | None = None
    max_runtime_hours: Decimal | None = None
    require_data_snapshot: bool = False
    known_data_snapshots: frozenset[str] | None = None
    capacity_gpu_hours: Decimal | None = None
    committed_gpu_hours: Decimal = Decimal(0)
    retraining_reserve_gpu_hours: Decimal = Decimal(0)
    allocation: Allocation | None = None  # the account's (gates/allocation.py)


def check_request_words(**given: str) -> None:
    """InputError naming the option (`--workload`, ...) whose word is not one of REQUEST_WORDS."""
    for name, value in given.items():
        allowed = REQUEST_WORDS[name]
        if value not in allowed:
            raise InputError(f"--{name}: must be one of {', '.join(allowed)}, got {value!r}")


REASONS = (
    "budget",
    "allocation",
    "no-recovery",
    "accelerator-limit",
    "memory-limit",
    "runtime-limit",
    "no-data-snapshot",
    "retraining-reserve",
    "queue-capacity",
    "production-needs-full-evaluation",
)


def admit_run(request: AdmissionRequest, limits: QueueLimits | None = None) -> GateOutcome:
    """Admit or defer a run; an admitted run reserves its estimated GPU-hours.

    Raises InputError naming the field for a negative, NaN or infinite number.
    """
    limits = limits or QueueLimits()
    estimate = taken("estimated_gpu_hours", request.estimated_gpu_hours)
    budget = taken("budget_gpu_hours", request.budget_gpu_hours)
    interruptions = taken("expected_interruptions", request.expected_interruptions)
    runtime = taken("runtime_hours", request.runtime_hours)
    memory = taken("memory_per_gpu_gb", request.memory_per_gpu_gb)
    for name, allowed in (
        ("workload", ("experiment", "retraining")),
        ("priority", ("normal", "high")),
        ("candidate", ("exploratory", "production")),
    ):
        if getattr(request, name) not in allowed:
            raise InputError(
                f"{name}: must be one of {', '.join(allowed)}, got {getattr(request, name)!r}"
            )
    if request.gpus is not None and request.gpus <= 0:
        raise InputError(f"gpus: must be a positive integer, got {request.gpus}")
    within_gate_bound("gpus", request.gpus)
    _check_limits(limits)

    blocks: list[tuple[str, str]] = []
    if estimate > budget:
        blocks.append(
            (
                "budget",
                # Exact figures: a rounded 23.000001 would read "23 is above 23".
                f"the estimate of {_n(estimate)} GPU-hours is above the approved budget of "
                f"{_n(budget)}",
            )
        )
    # Beside the ceiling: the account's allocation (gates/allocation.py).
    billing_estimate = taken("estimated_billing_hours", request.estimated_billing_hours)
    if (block := allocation_block(limits.allocation, estimate, billing_estimate)) is not None:
        blocks.append(block)
    if interruptions > 0 and not request.checkpoint_supported:
        blocks.append(
            (
                "no-recovery",
                f"{_n(interruptions)} interruption{'' if interruptions == 1 else 's'} "
                f"{'is' if interruptions == 1 else 'are'} expected and the run cannot resume "
                "from a checkpoint, so each one would lose all progress",
            )
        )
    blocks += _queue_blocks(request, limits, estimate, runtime, memory)

    inputs = {
        "estimated_gpu_hours": estimate,
        "budget_gpu_hours": budget,
        "expected_interruptions": interruptions,
        "checkpoint_supported": request.checkpoint_supported,
        "gpus": request.gpus,
        "memory_per_gpu_gb": memory,
        "runtime_hours": runtime,
        "data_snapshot": request.data_snapshot,
        "workload": request.workload,
        "priority": request.priority,
        "candidate": request.candidate,
        "full_evaluation": request.full_evaluation,
        "limits": _limits_dict(limits),
    }
    if billing_estimate is not None:
        inputs["estimated_billing_hours"] = billing_estimate
    details = {
        "reasons": [{"reason": code, "sentence": _cap(text)} for code, text in blocks],
        # Seed 001: an exploratory run may skip full evaluation, but then it cannot be promoted.
        "promotable_on_completion": request.full_evaluation,
    }
    if blocks:
        code, text = blocks[0]
        more = f" ({len(blocks) - 1} more check(s) also failed)" if len(blocks) > 1 else ""
        return GateOutcome(
            gate="admission",
            outcome="defer",
            reason=code,
            sentence=f"Defer: {text}{more}.",
            inputs=inputs,
            details={**details, "reserved_gpu_hours": Decimal(0)},
        )
    note = (
        ""
        if request.full_evaluation
        else "; it skips full evaluation, so it cannot be promoted without the release evidence"
    )
    return GateOutcome(
        gate="admission",
        outcome="admit",
        reason=None,
        sentence=f"Admit: reserve {_n(estimate)} GPU-hours of the {_n(budget)} budget{note}.",
        inputs=inputs,
        details={**details, "reserved_gpu_hours": estimate},
    )


def _queue_blocks(
    request: AdmissionRequest,
    limits: QueueLimits,
    estimate: Decimal,
    runtime: Decimal | None,
    memory: Decimal | None,
) -> list[tuple[str, str]]:
    """The shared-limit checks of seed 001, each as (reason code, clause)."""
    blocks: list[tuple[str, str]] = []
    if limits.max_gpus is not None and request.gpus is not None and request.gpus > limits.max_gpus:
        blocks.append(
            (
                "accelerator-limit",
                f"it asks for {request.gpus} accelerators and the queue allows {limits.max_gpus}",
            )
        )
    if (
        limits.max_memory_per_gpu_gb is not None
        and memory is not None
        and memory > limits.max_memory_per_gpu_gb
    ):
        blocks.append(
            (
                "memory-limit",
                f"it needs {_n(memory)} GB per accelerator and the queue allows "
                f"{_n(limits.max_memory_per_gpu_gb)} GB",
            )
        )
    if limits.max_runtime_hours is not None:
        # Compare GPU-hours against gpus × limit rather than dividing: exact, no rounding.
        if runtime is not None:
            over = runtime > limits.max_runtime_hours
            shown = runtime
        elif request.gpus is not None:
            over = estimate > limits.max_runtime_hours * request.gpus
            shown = estimate / request.gpus
        else:
            over, shown = False, None
        if over:
            blocks.append(
                (
                    "runtime-limit",
                    f"it would run {_h(shown)} wall-clock hours and the queue's maximum "
                    f"runtime is {_h(limits.max_runtime_hours)}",
                )
            )
    snapshot = (request.data_snapshot or "").strip()
    if not snapshot and limits.require_data_snapshot:
        blocks.append(("no-data-snapshot", "it names no data snapshot"))
    elif (
        snapshot
        and limits.known_data_snapshots is not None
        and snapshot not in limits.known_data_snapshots
    ):
        blocks.append(
            ("no-data-snapshot", f"its data snapshot {snapshot!r} is not a registered snapshot")
        )
    if limits.capacity_gpu_hours is not None:
        free = limits.capacity_gpu_hours - limits.committed_gpu_hours
        reserve = limits.retraining_reserve_gpu_hours if request.workload == "experiment" else 0
        if estimate > free - reserve:
            if estimate <= free:
                who = "an experiment, whatever its priority"
                blocks.append(
                    (
                        "retraining-reserve",
                        f"it would take capacity reserved for scheduled retraining "
                        f"({_h(limits.retraining_reserve_gpu_hours)} GPU-hours held back; "
                        f"{_h(free - reserve)} free to {who})",
                    )
                )
            else:
                blocks.append(
                    (
                        "queue-capacity",
                        f"the queue has {_h(max(free, Decimal(0)))} GPU-hours free and the "
                        f"estimate is {_h(estimate)}",
                    )
                )
    if request.candidate == "production" and not request.full_evaluation:
        blocks.append(
            (
                "production-needs-full-evaluation",
                "it is a production candidate but plans no full evaluation, which its release "
                "evidence requires",
            )
        )
    return blocks


def _check_limits(limits: QueueLimits) -> None:
    for name in (
        "max_memory_per_gpu_gb",
        "max_runtime_hours",
        "capacity_gpu_hours",
        "committed_gpu_hours",
        "retraining_reserve_gpu_hours",
    ):
        taken(name, getattr(limits, name))
    if limits.max_gpus is not None and limits.max_gpus < 0:
        raise InputError(f"max_gpus: must be zero or more, got {limits.max_gpus}")
    within_gate_bound("max_gpus", limits.max_gpus)


def _limits_dict(limits: QueueLimits) -> dict[str, object]:
    known = limits.known_data_snapshots
    return {
        "max_gpus": limits.max_gpus,
        "max_memory_per_gpu_gb": limits.max_memory_per_gpu_gb,
        "max_runtime_hours": limits.max_runtime_hours,
        "require_data_snapshot": limits.require_data_snapshot,
        "known_data_snapshots": sorted(known) if known is not None else None,
        "capacity_gpu_hours": limits.capacity_gpu_hours,
        "committed_gpu_hours": limits.committed_gpu_hours,
        "retraining_reserve_gpu_hours": limits.retraining_reserve_gpu_hours,
    } | ({} if limits.allocation is None else {"allocation": limits.allocation.as_dict()})


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] + "."

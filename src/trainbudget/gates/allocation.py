"""The account's allocation in admission: a run that would exceed what is left defers.

An allocation is counted in billing-hours (Slurm's `billing` TRES × hours, e.g. an account's
`GrpTRESMins=billing=…` ÷ 60) or GPU-hours; `used` is what the account has burned, as
`sshare -l` (`GrpTRESRaw`, TRES-minutes) or `sreport cluster AccountUtilizationByUser -T
billing` report it (docs/gates.md, *Allocation*; reconcile/sreport.py reads the latter's
parsable output). Pure: plain values in, a (reason, clause) pair or None out.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainbudget.base.errors import InputError
from trainbudget.gates.outcome import plain as _n

if TYPE_CHECKING:
    from trainbudget.plan import Plan

UNITS = {"billing_hours": "billing-hours", "gpu_hours": "GPU-hours"}


@dataclass(frozen=True)
class Allocation:
    """`size` allocated and `used` so far, in `unit` (billing_hours or gpu_hours); `ends` an
    ISO date or None; `source` says where `used` came from (plan, option, a file)."""

    unit: str
    size: Decimal
    used: Decimal = Decimal(0)
    ends: str | None = None
    source: str = "plan"

    @property
    def remaining(self) -> Decimal:
        return self.size - self.used

    def as_dict(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "size": self.size,
            "used": self.used,
            "remaining": self.remaining,
            "ends": self.ends,
            "source": self.source,
        }


def plan_allocation(plan: Plan | None) -> Allocation | None:
    """The plan's `cluster.allocation`, or None."""
    if plan is None or plan.cluster is None or plan.cluster.allocation is None:
        return None
    section = plan.cluster.allocation
    return Allocation(section.unit, section.size, section.used, section.ends)


def check_allocation(allocation: Allocation) -> None:
    """InputError naming the figure that is negative, or used beyond the allocation."""
    if allocation.unit not in UNITS:
        raise InputError(f"allocation unit: must be billing_hours or gpu_hours, got "
                         f"{allocation.unit!r}")  # fmt: skip
    for name in ("size", "used"):
        value = getattr(allocation, name)
        if not value.is_finite() or value < 0:
            raise InputError(f"allocation {name}: must be a number ≥ 0, got {value}")


def allocation_block(
    allocation: Allocation | None,
    estimated_gpu_hours: Decimal,
    estimated_billing_hours: Decimal | None,
) -> tuple[str, str] | None:
    """("allocation", clause) when the estimate in the allocation's unit is above what is
    left of it; None when it fits or there is no allocation. An allocation in billing-hours
    needs the estimate in billing-hours (InputError otherwise)."""
    if allocation is None:
        return None
    check_allocation(allocation)
    if allocation.unit == "billing_hours":
        if estimated_billing_hours is None:
            raise InputError(
                "--estimated-billing-hours: required with an allocation in billing-hours "
                "(`campaign PLAN --json` gives the plan's billing_hours)"
            )
        estimate = estimated_billing_hours
    else:
        estimate = estimated_gpu_hours
    if estimate <= allocation.remaining:
        return None
    unit = UNITS[allocation.unit]
    ends = f", ending {allocation.ends}" if allocation.ends else ""
    return (
        "allocation",
        f"the estimate of {_n(estimate)} {unit} is above what is left of the account's "
        f"allocation: {_n(max(allocation.remaining, Decimal(0)))} of {_n(allocation.size)} "
        f"({_n(allocation.used)} used, from the {allocation.source}{ends})",
    )


def allocation_from_options(
    plan_allocation_: Allocation | None,
    *,
    billing_hours: Decimal | None = None,
    gpu_hours: Decimal | None = None,
    used: Decimal | None = None,
    used_source: str = "option",
    ends: str | None = None,
) -> Allocation | None:
    """The allocation `admit` judges against: the options' (`--allocation-billing-hours` or
    `--allocation-gpu-hours`, `--allocation-used` or `--sreport`), each replacing the plan's."""
    if billing_hours is not None and gpu_hours is not None:
        raise InputError("--allocation-billing-hours, --allocation-gpu-hours: give one (the unit)")
    base = plan_allocation_
    if billing_hours is not None or gpu_hours is not None:
        unit = "billing_hours" if billing_hours is not None else "gpu_hours"
        size = billing_hours if billing_hours is not None else gpu_hours
        assert size is not None
        same = base is not None and base.unit == unit
        base = Allocation(
            unit,
            size,
            base.used if same and base is not None else Decimal(0),
            base.ends if base is not None else None,
            base.source if same and base is not None else "option",
        )
    if base is None:
        if used is not None:
            raise InputError(
                "--allocation-used: give the allocation too (--allocation-billing-hours or "
                "--allocation-gpu-hours, or a plan with cluster.allocation)"
            )
        return None
    if used is not None:
        base = Allocation(base.unit, base.size, used, base.ends, used_source)
    if ends is not None:
        base = Allocation(base.unit, base.size, base.used, ends, base.source)
    check_allocation(base)
    return base

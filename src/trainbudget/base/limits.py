"""Limits on untrusted input: sizes a user may raise through the environment (docs/reliability.md)
and the sane bounds on what a gate takes (docs/gates.md, *Bounds*)."""

from __future__ import annotations

import os
from decimal import Decimal
from typing import TypeVar

from trainbudget.base.errors import InputError

T = TypeVar("T")


def byte_limit(env: str, default: int) -> int:
    """A size limit in bytes: `$env` when set (a positive whole number), else `default`."""
    raw = os.environ.get(env)
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise InputError(f"{env}: expected a positive whole number of bytes, got {raw!r}")
    return value


# --- Caps on free text that lands (docs/reconcile.md, docs/pilot.md, docs/plan.md) -------------
# A name or id that lands (sacct JobName, Account, Partition; a pilot run_id; a plan's names)
# holds at most MAX_NAME_CHARS characters: slurmdbd itself keeps 255 bytes of a job name. A
# row over it is quarantined with the reason (a plan, one document, is refused at its line).
MAX_NAME_CHARS = 1024


# --- Sane bounds on what a gate takes (docs/gates.md, *Bounds*) ------------------------------
# Far beyond any real run, yet small enough that every figure fits the ledger's DECIMAL(38, 6)
# columns and reads as a number in a sentence. The same table serves a command's options
# (cli/options.py, by the option's name), the plan's `gates:` fields (plan/gates.py) and the
# gates' own arguments (gates/*), so `--estimated-gpu-hours 1e300` and a plan's
# `budget_gpu_hours: 1e300` are refused alike. estimate/exact.py's bounds are these too.
MAX_GPUS = 10**7  # ten million accelerators in one run
MAX_GPU_HOURS = Decimal("1e12")  # a million GPUs for 114 years
MAX_USD = Decimal("1e15")  # a quadrillion dollars
MAX_INTERRUPTIONS = Decimal("1e9")
MAX_MEMORY_GB = Decimal("1e6")  # a petabyte per accelerator
MAX_WALL_HOURS = Decimal("1e9")  # 114,000 years
MAX_STEPS = 10**12
MAX_DAYS = 10**6  # 2,700 years of retention
MAX_COUNT = 10**6  # attempts, evaluations of patience, recovery points kept

_HOURS = (MAX_GPU_HOURS, "GPU-hours")
GATE_BOUNDS: dict[str, tuple[Decimal | int, str]] = {
    "estimated_gpu_hours": _HOURS,
    "budget_gpu_hours": _HOURS,
    "capacity_gpu_hours": _HOURS,
    "committed_gpu_hours": _HOURS,
    "retraining_reserve_gpu_hours": _HOURS,
    "expected_interruptions": (MAX_INTERRUPTIONS, "interruptions"),
    "gpus": (MAX_GPUS, "GPUs"),
    "max_gpus": (MAX_GPUS, "GPUs"),
    "memory_per_gpu_gb": (MAX_MEMORY_GB, "GB"),
    "max_memory_per_gpu_gb": (MAX_MEMORY_GB, "GB"),
    "runtime_hours": (MAX_WALL_HOURS, "hours"),
    "max_runtime_hours": (MAX_WALL_HOURS, "hours"),
    "max_wall_hours": (MAX_WALL_HOURS, "hours"),
    "wall_hours": (MAX_WALL_HOURS, "hours"),
    "spend_limit_usd": (MAX_USD, "USD"),
    "spent_usd": (MAX_USD, "USD"),
    "cost_usd": (MAX_USD, "USD"),
    "max_failed_steps": (MAX_STEPS, "steps"),
    "failed_steps": (MAX_STEPS, "steps"),
    "max_attempts": (MAX_COUNT, "attempts"),
    "patience": (MAX_COUNT, "evaluations"),
    "recovery_keep_last": (MAX_COUNT, "recovery points"),
    "recovery_days": (MAX_DAYS, "days"),
    "promoted_days": (MAX_DAYS, "days"),
    "final_days": (MAX_DAYS, "days"),
    "evaluation_days": (MAX_DAYS, "days"),
}


def gate_bound(name: str) -> tuple[Decimal | int, str] | None:
    """(largest accepted, unit) for a gate quantity named as a field (`budget_gpu_hours`), a
    dotted plan path (`gates.admission.budget_gpu_hours`) or an option (`--budget-gpu-hours`);
    None when it has no bound here."""
    key = name.rsplit(".", 1)[-1].lstrip("-").replace("-", "_")
    return GATE_BOUNDS.get(key)


def within_gate_bound(name: str, value: T) -> T:
    """`value`, unless it is above the gate bound of `name`: then InputError naming `name`
    (None, and names without a bound, pass through)."""
    bound = gate_bound(name)
    if value is None or bound is None or not value > bound[0]:  # type: ignore[operator]
        return value
    maximum, unit = bound
    raise InputError(
        f"{name}: must be at most {_plain(maximum)} {unit} (sane bound), got {_plain(value)}"
    )


def _plain(value: object) -> str:
    """1,000,000,000 up to 1e15 written out; beyond it 1.000E+300 (a bound never has 300 digits)."""
    if isinstance(value, int | Decimal) and not isinstance(value, bool):
        number = Decimal(value)
        if number.is_finite() and number == number.to_integral_value() and abs(number) <= 10**15:
            return f"{int(number):,}"
        if number.is_finite() and number.adjusted() > 15:
            return f"{number:.3E}"
    return str(value)

"""The result every gate returns: outcome, stable reason code, one sentence, the inputs used."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from trainbudget.base.limits import within_gate_bound
from trainbudget.base.vocabulary import GATES as GATES  # the names live below the ledger
from trainbudget.estimate.exact import optional_non_negative


def taken(name: str, value: Any) -> Decimal | None:
    """A quantity a gate takes as an exact Decimal: finite, zero or more and within its sane
    bound (limits.GATE_BOUNDS); InputError naming `name` otherwise; None passes through."""
    return within_gate_bound(name, optional_non_negative(name, value))


@dataclass(frozen=True)
class GateOutcome:
    """One gate's verdict: `outcome` (admit, defer, stop, ...), `reason` code, a sentence.

    `reason` is a stable code for scripts (None when nothing blocked); `inputs` are the values
    the gate saw, kept for the audit trail; `details` carries the gate's own figures.
    """

    gate: str
    outcome: str
    reason: str | None
    sentence: str
    inputs: Mapping[str, Any] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The outcome as a plain dict (Decimals kept; `output.dumps` turns them into numbers)."""
        return {
            "gate": self.gate,
            "outcome": self.outcome,
            "reason": self.reason,
            "sentence": self.sentence,
            "inputs": dict(self.inputs),
            "details": dict(self.details),
        }


def plain(value: Decimal | int) -> str:
    """A number as a person writes it: no exponent, no trailing zeros (display only).

    Inputs such as 18.5 print as given; a computed value with a long tail (654.5562…) is
    rounded to two decimals, since a sentence is for reading, not for arithmetic.
    """
    number = Decimal(value)
    if number.as_tuple().exponent < -4:  # type: ignore[operator]
        number = number.quantize(Decimal("0.01"))
    text = f"{number:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def hours(value: Decimal | int | None) -> str:
    """Hours or dollars for a sentence: at most two decimals, thousands separated (display only)."""
    if value is None:
        return "?"
    text = f"{Decimal(value).quantize(Decimal('0.01')):,f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def usd(value: Decimal | int) -> str:
    """Dollars for a sentence: $ sign, thousands separated, two decimals (display only)."""
    return f"${Decimal(value).quantize(Decimal('0.01')):,f}"

"""The cluster's failure history and MTBF(n) fitted from it (`mtbf: ledger`)."""

from __future__ import annotations

from trainbudget.reliability.curve import ledger_curve, plan_ledger_curve, plan_ledger_curve_at

__all__ = ["ledger_curve", "plan_ledger_curve", "plan_ledger_curve_at"]

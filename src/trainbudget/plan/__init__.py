"""The campaign plan (docs/plan.md): every section's model and how a file is read.

`sections.py` and `gates.py` hold the pydantic models (the `gates:` section's thresholds are
plain values; the gates in trainbudget.gates turn them into their own arguments); `load.py`
reads and lands a plan file. Nothing here imports a gate.
"""

from trainbudget.plan.gates import Gates
from trainbudget.plan.load import land_plan, load_plan, parse_plan
from trainbudget.plan.sections import MainRun, Plan

__all__ = ["Gates", "MainRun", "Plan", "land_plan", "load_plan", "parse_plan"]

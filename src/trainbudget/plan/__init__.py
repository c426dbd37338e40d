"""The campaign plan (docs/plan.md): every section's model and how a file is read.

`sections.py`, `gates.py` and `forecast.py` hold the sections, frozen classes checked by the
small validator in `fields.py` with the value checks of `checks.py` (the `gates:` section's
thresholds are plain values; the gates in trainbudget.gates turn them into their own
arguments); `load.py` reads and lands a plan file. Nothing here imports a gate, nor pydantic.
"""

from trainbudget.plan.gates import Gates
from trainbudget.plan.load import land_plan, load_plan, newest_landed_plan, parse_plan
from trainbudget.plan.sections import MainRun, Plan

__all__ = ["Gates", "MainRun", "Plan", "land_plan", "load_plan", "newest_landed_plan", "parse_plan"]

"""Gates: admission, stop rules, campaign control loop, retention, gain-versus-cost decision.

Every gate is a pure function: thresholds arrive as arguments (from the plan's `gates:`
section or from flags) and the result is a `GateOutcome` with a stable reason code and one
sentence. `weekly` wires the weekly review's gates from its typed `Review`. Nothing here
touches the ledger: the procedures record outcomes with trainbudget.ledger.decisions.
Submodules are imported directly.
"""

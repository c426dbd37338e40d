"""Pre-launch arithmetic: FLOPs, memory, wall time, dollars, campaign lines, cadence, capacity.

Submodules are imported directly (`from trainbudget.estimate.run import estimate_run`); this
package imports nothing eagerly so the quick `estimate` command stays cheap.
"""

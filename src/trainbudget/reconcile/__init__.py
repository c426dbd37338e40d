"""Weekly reconciliation: Slurm sacct records joined to registry, progress and manifest.

Allocated GPU-hours are split into useful / recovery / lost / unverified (DESIGN.md,
"Accounting definitions"), compared with the plan, and diagnosed in seed 000's order.
"""

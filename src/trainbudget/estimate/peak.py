"""One main-run GPU's dense peak FLOP/s, below the campaign and the forecast that both use it.

`main.gpu_tflops` × 10¹² if the plan gives it, else the catalog's dense peak of `main.gpu` at
`main.precision` (estimate/catalog.py). Its own module so that campaign.py, forecast_compute.py
and mfu_rule.py import it without importing one another (issue 24, the estimate/ cycle).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from trainbudget.base.errors import InputError

if TYPE_CHECKING:
    from trainbudget.plan import Plan


def main_peak(plan: Plan) -> Decimal:
    """One main-run GPU's dense peak FLOP/s: `gpu_tflops`, else the catalog at `precision`."""
    from trainbudget.estimate.catalog import get_accelerator

    main = plan.main
    if main.gpu_tflops is not None:
        return main.gpu_tflops * 10**12
    if main.gpu is not None:
        return get_accelerator(main.gpu).peak_flops_per_second(main.precision)
    raise InputError("main.gpu: give a catalog name or gpu_tflops")

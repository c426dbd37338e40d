"""Campaign lines as a Polars frame validated by `schemas.CampaignLine` (for reports and gates).

Imports Polars and Pandera, so only flows and reports use it; the CLI works from dataclasses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trainbudget.estimate.campaign import CampaignEstimate

if TYPE_CHECKING:
    import polars as pl


def campaign_lines_frame(result: CampaignEstimate) -> pl.DataFrame:
    """One row per campaign line (work_class, name, kind, gpu_hours, usd), schema-checked.

    GPU-hours and dollars become floats here: the frame is for display and joins, while the
    exact Decimals stay on the CampaignEstimate.
    """
    import polars as pl

    from trainbudget.schemas import CampaignLine

    frame = pl.DataFrame(
        {
            "work_class": [line.work_class for line in result.lines],
            "name": [line.name for line in result.lines],
            "kind": [line.kind for line in result.lines],
            "gpu_hours": [float(line.gpu_hours) for line in result.lines],
            "usd": [float(line.usd) for line in result.lines],
        },
        schema={
            "work_class": pl.String,
            "name": pl.String,
            "kind": pl.String,
            "gpu_hours": pl.Float64,
            "usd": pl.Float64,
        },
    )
    return CampaignLine.validate(frame)

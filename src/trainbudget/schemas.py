"""Pandera (polars) models of every table that crosses a stage boundary, in one place.

Validate eager DataFrames: on a LazyFrame Pandera checks only the schema, not the data.
Each model says which stage produces it and which consume it.
"""

from __future__ import annotations

import pandera.polars as pa

WORK_CLASSES = ("pilot", "main", "retry", "evaluation", "diagnostic")


class CampaignLine(pa.DataFrameModel):
    """estimate/campaign → report, gates: one priced line of a campaign budget."""

    work_class: str = pa.Field(isin=(*WORK_CLASSES, "storage", "total"))
    name: str
    kind: str = pa.Field(isin=("planned", "contingency"))
    gpu_hours: float = pa.Field(ge=0)
    usd: float = pa.Field(ge=0)

    class Config:
        strict = True

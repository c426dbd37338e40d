"""The experiment registry: job id → experiment, work class, revision, snapshot, validity.

Columns per DESIGN.md ("registry"); extra columns are kept as JSON. A row with a missing job
id or experiment, or an unknown work class, is quarantined with its line.
"""

from __future__ import annotations

from typing import Any

import orjson

from trainbudget.base.vocabulary import WORK_CLASSES
from trainbudget.reconcile.fields import read_bool

CONTRACT = ("job_id", "cluster", "experiment_id", "work_class", "code_revision",
            "data_snapshot", "result_valid", "diagnosed_cause", "cause_addressed")  # fmt: skip


def registry_row(record: dict[str, Any]) -> dict[str, Any]:
    """One validated registry row (without provenance); raises ValueError naming the field."""
    values = {k.strip(): v for k, v in record.items()}
    for field in ("job_id", "experiment_id", "work_class"):
        if not str(values.get(field) or "").strip():
            raise ValueError(f"{field}: required, but missing")
    work_class = str(values["work_class"]).strip().lower()
    if work_class not in WORK_CLASSES:
        raise ValueError(f"work_class: must be one of {list(WORK_CLASSES)}, got {work_class!r}")
    extra = {k: v for k, v in values.items() if k not in CONTRACT}
    return {
        "job_id": str(values["job_id"]).strip(),
        "cluster": _optional(values.get("cluster")),
        "experiment_id": str(values["experiment_id"]).strip(),
        "work_class": work_class,
        "code_revision": _optional(values.get("code_revision")),
        "data_snapshot": _optional(values.get("data_snapshot")),
        "result_valid": read_bool(values.get("result_valid"), "result_valid"),
        "diagnosed_cause": _optional(values.get("diagnosed_cause")),
        "cause_addressed": read_bool(values.get("cause_addressed"), "cause_addressed"),
        "extra_json": orjson.dumps(extra, default=str).decode() if extra else None,
    }


def _optional(value: Any) -> str | None:
    text = "" if value is None else str(value).strip()
    return text or None

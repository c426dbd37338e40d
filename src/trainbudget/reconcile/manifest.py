"""The artifact manifest: what is retained, how big, for which experiment, in which role."""

from __future__ import annotations

from typing import Any

import orjson

from trainbudget.base.vocabulary import ARTIFACT_ROLES as ROLES
from trainbudget.reconcile.fields import read_date, read_int, read_time

CONTRACT = ("artifact_id", "experiment_id", "job_id", "step", "size_bytes", "created", "role",
            "retain_until")  # fmt: skip


def manifest_row(record: dict[str, Any]) -> dict[str, Any]:
    """One validated artifact (without provenance); raises ValueError naming the field."""
    artifact = str(record.get("artifact_id") or "").strip()
    if not artifact:
        raise ValueError("artifact_id: required, but missing")
    role = str(record.get("role") or "").strip().lower()
    if role not in ROLES:
        raise ValueError(f"role: must be one of {list(ROLES)}, got {record.get('role')!r}")
    extra = {k: v for k, v in record.items() if k not in CONTRACT}
    return {
        "artifact_id": artifact,
        "experiment_id": str(record.get("experiment_id") or "").strip() or None,
        "job_id": str(record.get("job_id") or "").strip() or None,
        "step": read_int(record.get("step"), "step", required=False),
        "size_bytes": read_int(record.get("size_bytes"), "size_bytes"),
        "created": read_time(record.get("created"), "created", zone_required=False),
        "role": role,
        "retain_until": read_date(record.get("retain_until"), "retain_until"),
        "extra_json": orjson.dumps(extra, default=str).decode() if extra else None,
    }

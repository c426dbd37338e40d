"""Serve the deployments declared in deploy/prefect.yaml from one process (`trainbudget serve`).

deploy/prefect.yaml is the one declaration of both deployments (names, descriptions, tags,
schedules, default parameters): `prefect deploy` reads it for workers, and this module reads
the same file for the single-machine path, one long-running process that polls the API.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import yaml
from prefect import serve
from prefect.schedules import Cron

from ledger_slot import ensure_ledger_limit
from trainbudget.files.resources import resource_dir


def declared_deployments() -> list[dict[str, Any]]:
    """The `deployments:` list of deploy/prefect.yaml."""
    document = yaml.safe_load((resource_dir("deploy") / "prefect.yaml").read_text("utf-8"))
    return document["deployments"]


def _flow(entrypoint: str) -> Any:
    path, name = entrypoint.split(":")
    return getattr(importlib.import_module(Path(path).stem), name)


def build_deployments(
    parameters: dict[str, dict[str, Any]],
    cron: str | None = None,
    timezone: str | None = None,
) -> list[Any]:
    """Each declared deployment with `parameters[name]` over its declared ones; `cron` and
    `timezone` replace a declared schedule's (the weekly review's)."""
    built = []
    for declared in declared_deployments():
        # --cron / --timezone are the weekly review's; other schedules stay as declared.
        weekly = declared["name"] == "weekly-review"
        schedules = [
            Cron(
                (weekly and cron) or s["cron"],
                timezone=(weekly and timezone) or s.get("timezone", "UTC"),
            )
            for s in declared.get("schedules") or []
        ]
        built.append(
            _flow(declared["entrypoint"]).to_deployment(
                name=declared["name"],
                description=" ".join(declared.get("description", "").split()),
                tags=declared.get("tags", []),
                schedules=schedules,
                parameters={
                    **(declared.get("parameters") or {}),
                    **parameters.get(declared["name"], {}),
                },
            )
        )
    return built


def serve_deployments(deployments: list[Any], limit: int | None = None) -> None:
    """Serve the deployments from this process until interrupted (creating the ledger's slot)."""
    ensure_ledger_limit()
    serve(*deployments, limit=limit)

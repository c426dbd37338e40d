"""Both deployments, built from the flows, and served from one process (`trainbudget serve`).

The same two deployments are declared for workers in deploy/prefect.yaml; this module is the
single-machine path: one long-running process that polls the API and runs both flows.
"""

from __future__ import annotations

from typing import Any

from prefect import serve
from prefect.schedules import Cron

from prelaunch_estimate import prelaunch_estimate
from weekly_review import weekly_review

WEEKLY_CRON = "0 6 * * 1"  # Monday 06:00


def build_deployments(
    weekly_parameters: dict[str, Any],
    cron: str = WEEKLY_CRON,
    timezone: str = "UTC",
    prelaunch_parameters: dict[str, Any] | None = None,
) -> list[Any]:
    """The triggered pre-launch deployment and the scheduled weekly review deployment."""
    return [
        prelaunch_estimate.to_deployment(
            name="prelaunch-estimate",
            description="Triggered before a launch: estimate, admission, gain versus cost.",
            tags=["trainbudget", "prelaunch"],
            parameters=prelaunch_parameters or {},
        ),
        weekly_review.to_deployment(
            name="weekly-review",
            description="Every week: land, check, reconcile, decide, report.",
            tags=["trainbudget", "weekly-review"],
            schedule=Cron(cron, timezone=timezone),
            parameters=weekly_parameters,
        ),
    ]


def serve_deployments(deployments: list[Any], limit: int | None = None) -> None:
    """Serve the deployments from this process until interrupted."""
    serve(*deployments, limit=limit)

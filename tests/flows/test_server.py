"""A real `prefect server start`: serve both deployments, trigger them through the API, read
back their artifacts and gate events with the Prefect client."""

from __future__ import annotations

import time

import orjson
import pytest

pytestmark = pytest.mark.slow


def _client(prefect_server):
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    settings = temporary_settings(updates={PREFECT_API_URL: prefect_server["PREFECT_API_URL"]})
    return settings, get_client


def test_both_deployments_complete(completed_runs) -> None:
    for name, run in completed_runs.items():
        assert run.state.is_completed(), f"{name}: {run.state.message}"
    # Named for the outcome, so the runs list tells an admit from a defer.
    assert completed_runs["prelaunch-estimate"].state.name == "Admitted"
    assert completed_runs["weekly-review"].state.name == "Continue"
    assert completed_runs["prelaunch-estimate"].name == "demo-1b"
    assert completed_runs["weekly-review"].name == "demo-1b-2026-W47"
    assert "weekly-review" in completed_runs["weekly-review"].tags


def test_artifacts_read_back_with_the_client(prefect_server, completed_runs) -> None:
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    settings, get_client = _client(prefect_server)
    ids = [run.id for run in completed_runs.values()]
    with settings, get_client(sync_client=True) as client:
        artifacts = client.read_artifacts(
            flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=ids))
        )
    by_key = {a.key: a for a in artifacts}
    for key in (
        "demo-1b-prelaunch-verdict",
        "demo-1b-prelaunch-report",
        "demo-1b-prelaunch-campaign-lines",
        "demo-1b-prelaunch-sensitivity-grid",
        "demo-1b-prelaunch-gate-decisions",
        "demo-1b-weekly-verdict",
        "demo-1b-weekly-actual-versus-plan-by-work-class",
        "demo-1b-weekly-gate-decisions",
    ):
        assert key in by_key, sorted(by_key)
    lines = orjson.loads(by_key["demo-1b-prelaunch-campaign-lines"].data)
    # The demo plan's fixed lines: pilots 4 runs × 4 GPUs × 3 h, evaluation 11 × 2 × 2.5 h.
    # Cells are display text under the report's worded headers, so read them back as numbers.
    hours = {line["Work class"]: float(line["GPU-hours"].replace(",", "")) for line in lines}
    assert hours["pilot"] == 48 and hours["evaluation"] == 55
    assert "**admission: admit**" in by_key["demo-1b-prelaunch-verdict"].data


def test_every_gate_decision_emitted_an_event(prefect_server, completed_runs) -> None:
    from prefect.events.filters import EventFilter, EventNameFilter

    # prelaunch: admission, decision; weekly: continuation, retry, retention.
    expected = {
        ("trainbudget.gate.admit", "admission"),
        ("trainbudget.gate.run", "decision"),
        ("trainbudget.gate.continue", "continuation"),
        ("trainbudget.gate.authorize", "retry"),
        ("trainbudget.gate.expire", "retention"),
    }
    settings, get_client = _client(prefect_server)
    # The server persists events in batches (every few seconds), so the last run's events
    # may land a moment after the run is reported complete.
    deadline = time.monotonic() + 60
    with settings, get_client(sync_client=True) as client:
        while True:
            page = client.read_events(
                EventFilter(event=EventNameFilter(prefix=["trainbudget.gate."])), limit=50
            )
            seen = {(e.event, e.resource.get("trainbudget.gate")) for e in page.events}
            if seen >= expected or time.monotonic() > deadline:
                break
            time.sleep(2)
    assert seen >= expected
    assert all("reason" in e.payload for e in page.events)

"""`trainbudget demo` turns Prefect's usage telemetry off, client and server side."""

from __future__ import annotations

import pytest

from trainbudget.cli.commands import demo


def test_demo_turns_client_and_server_telemetry_off(monkeypatch) -> None:
    monkeypatch.delenv("DO_NOT_TRACK", raising=False)
    monkeypatch.delenv("PREFECT_SERVER_ANALYTICS_ENABLED", raising=False)
    for name, value in demo.TELEMETRY_OFF.items():
        monkeypatch.setenv(name, value)
    enabled = pytest.importorskip("prefect._internal.analytics.enabled")
    assert enabled.is_telemetry_enabled() is False  # no first-run notice, no events
    assert demo.TELEMETRY_OFF["PREFECT_SERVER_ANALYTICS_ENABLED"] == "false"

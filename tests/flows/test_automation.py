"""deploy/automation.py against the real server: a deferred gate event reaches the team's
notification block (here a custom webhook served by the test)."""

from __future__ import annotations

import http.server
import importlib.util
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

import httpx
import pytest

pytestmark = pytest.mark.slow
AUTOMATION = Path(__file__).resolve().parents[2] / "deploy" / "automation.py"


def _load_automation_module():
    spec = importlib.util.spec_from_file_location("trainbudget_deploy_automation", AUTOMATION)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Receiver(http.server.BaseHTTPRequestHandler):
    bodies: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        _Receiver.bodies.append(self.rfile.read(length).decode())
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args) -> None:
        return


def test_defer_event_notifies_through_the_block(prefect_server) -> None:
    from prefect.blocks.notifications import CustomWebhookNotificationBlock
    from prefect.settings import PREFECT_API_URL, temporary_settings

    server = http.server.HTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    api = prefect_server["PREFECT_API_URL"]
    try:
        with temporary_settings(updates={PREFECT_API_URL: api}):
            block = CustomWebhookNotificationBlock(
                name="budget-team",
                url=f"http://127.0.0.1:{server.server_port}/hook",
                json_data={"text": "{{body}}"},
                allow_private_urls=True,
            )
            block_id = block.save("budget-team", overwrite=True)
            automation = _load_automation_module().build_automation(block_id).create()
            assert automation.name == "trainbudget: a gate needs attention"
            # The automation's trigger must be loaded by the server before the event arrives.
            time.sleep(10)
            event = {
                "id": str(uuid.uuid4()),
                "occurred": datetime.now(UTC).isoformat(),
                "event": "trainbudget.gate.defer",
                "resource": {
                    "prefect.resource.id": "trainbudget.campaign.demo-1b.gate.admission",
                    "prefect.resource.name": "demo-1b: admission",
                },
                "payload": {"reason": "budget", "sentence": "Defer: 28 > 23 GPU-hours."},
            }
            assert httpx.post(f"{api}/events", json=[event], timeout=10).status_code == 204
            deadline = time.monotonic() + 120
            while not _Receiver.bodies and time.monotonic() < deadline:
                time.sleep(1)
    finally:
        server.shutdown()
    assert _Receiver.bodies, "no notification arrived within 120 s"
    assert "demo-1b: admission" in _Receiver.bodies[0]
    assert "Defer: 28 > 23 GPU-hours." in _Receiver.bodies[0]

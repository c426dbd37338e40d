"""deploy/: prefect.yaml names real flows with the right schedules; compose wires Postgres."""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_prefect_yaml_entrypoints_are_the_flows(weekly, prelaunch) -> None:
    document = yaml.safe_load((DEPLOY / "prefect.yaml").read_text(encoding="utf-8"))
    by_name = {d["name"]: d for d in document["deployments"]}
    assert set(by_name) == {"prelaunch-estimate", "weekly-review"}
    modules = {"prelaunch_estimate": prelaunch, "weekly_review": weekly}
    for name, deployment in by_name.items():
        path, function = deployment["entrypoint"].split(":")
        assert (DEPLOY.parent / path).is_file()
        flow = getattr(modules[Path(path).stem], function)
        assert flow.name == name
        assert deployment["work_pool"]["name"] == "trainbudget-process"
    assert "schedules" not in by_name["prelaunch-estimate"]  # triggered, on demand
    (schedule,) = by_name["weekly-review"]["schedules"]
    assert schedule["cron"] == "0 6 * * 1"  # Monday 06:00
    ZoneInfo(schedule["timezone"])  # a real IANA zone


def test_compose_runs_server_on_postgres_and_a_worker() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))
    services = compose["services"]
    assert set(services) == {"postgres", "server", "worker"}
    database_url = services["server"]["environment"]["PREFECT_API_DATABASE_CONNECTION_URL"]
    assert database_url.startswith("postgresql+asyncpg://") and "@postgres:5432/" in database_url
    assert "trainbudget-process" in services["worker"]["command"]
    assert services["worker"]["environment"]["PREFECT_API_URL"] == "http://server:4200/api"

"""deploy/: prefect.yaml names real flows with the right schedules and deploys to a process
worker that runs them; compose wires the server to Postgres."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import yaml

from trainbudget.demo_data import demo_inputs

REPO_ROOT = Path(__file__).resolve().parents[2]
DEPLOY = REPO_ROOT / "deploy"


def test_prefect_yaml_entrypoints_are_the_flows(weekly, prelaunch) -> None:
    document = yaml.safe_load((DEPLOY / "prefect.yaml").read_text(encoding="utf-8"))
    by_name = {d["name"]: d for d in document["deployments"]}
    assert set(by_name) == {"prelaunch-estimate", "weekly-review", "ledger-maintain"}
    from trainbudget.cli.flows import load_flow_module

    modules = {"prelaunch_estimate": prelaunch, "weekly_review": weekly,
               "ledger_maintain": load_flow_module("ledger_maintain")}  # fmt: skip
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
    (upkeep,) = by_name["ledger-maintain"]["schedules"]
    assert upkeep["cron"] == "0 3 * * 0"  # Sunday 03:00, away from the Monday review


def test_compose_runs_server_on_postgres_and_a_worker() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))
    services = compose["services"]
    assert set(services) == {"postgres", "server", "worker"}
    database_url = services["server"]["environment"]["PREFECT_API_DATABASE_CONNECTION_URL"]
    assert database_url.startswith("postgresql+asyncpg://") and "@postgres:5432/" in database_url
    assert "trainbudget-process" in services["worker"]["command"]
    assert services["worker"]["environment"]["PREFECT_API_URL"] == "http://server:4200/api"


def test_compose_exposes_nothing_beyond_loopback_and_has_no_default_secrets() -> None:
    text = (DEPLOY / "docker-compose.yml").read_text(encoding="utf-8")
    services = yaml.safe_load(text)["services"]
    published = [port for service in services.values() for port in service.get("ports", [])]
    assert published and all(str(port).startswith("127.0.0.1:") for port in published)
    # Secrets come from the env file: no `${VAR:-default}` fallback can start it unprotected.
    assert ":-prefect" not in text and "PREFECT_DB_PASSWORD:?" in text
    assert services["server"]["environment"]["PREFECT_SERVER_API_AUTH_STRING"].startswith("${")
    assert services["worker"]["environment"]["PREFECT_API_AUTH_STRING"].startswith("${")
    example = (DEPLOY / "prefect.env.example").read_text(encoding="utf-8")
    assert {"PREFECT_DB_PASSWORD", "PREFECT_API_AUTH_STRING"} <= {
        line.split("=")[0] for line in example.splitlines() if "=" in line and line[0] != "#"
    }


@pytest.mark.slow
def test_prefect_deploy_and_a_process_worker_run_the_prelaunch_flow(
    prefect_server, completed_runs, tmp_path: Path
) -> None:
    # `prefect deploy` replaces the served deployments of the same names on this server, so
    # the served runs (completed_runs) finish first.
    from prefect.deployments import run_deployment
    from prefect.settings import PREFECT_API_URL, temporary_settings

    env = {
        **os.environ,
        **{k: v for k, v in prefect_server.items() if k != "ui"},
        "TRAINBUDGET_REPO": str(REPO_ROOT),
    }

    def prefect(*args: str) -> None:
        proc = subprocess.run(
            [sys.executable, "-m", "prefect", "--no-prompt", *args],
            env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stdout + proc.stderr

    prefect("work-pool", "create", "trainbudget-process", "--type", "process", "--overwrite")
    prefect("deploy", "--all", "--prefect-file", "deploy/prefect.yaml")
    log = (tmp_path / "worker.log").open("w")
    worker = subprocess.Popen(
        [sys.executable, "-m", "prefect", "worker", "start", "--pool", "trainbudget-process"],
        env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    inputs = demo_inputs()
    try:
        with temporary_settings(updates={PREFECT_API_URL: prefect_server["PREFECT_API_URL"]}):
            run = run_deployment(
                "prelaunch-estimate/prelaunch-estimate",
                parameters={
                    "plan": str(inputs.plan),
                    "pilot_logs": [str(p) for p in inputs.pilot_logs],
                    "gain": 0.2,
                    "gain_uncertainty": 0.05,
                    "ledger": str(tmp_path / "ledger.duckdb"),
                    "report_root": str(tmp_path / "reports"),
                },
                timeout=600,
                poll_interval=2,
            )
    finally:
        worker.terminate()
        worker.wait(timeout=60)
        log.close()
    assert run.state.is_completed(), run.state.message
    assert (tmp_path / "reports" / "prelaunch-demo-1b" / "report.html").is_file()

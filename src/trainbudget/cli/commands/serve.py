"""`trainbudget serve`: serve both deployments from one process on a single machine, and the
run reports over HTTP on loopback (TRAINBUDGET_REPORT_URL), so the UI's report links open."""

from __future__ import annotations

from pathlib import Path

import click

from trainbudget.cli.help import command
from trainbudget.cli.options import (
    cluster_tz_option,
    flag_option,
    json_option,
    ledger_option,
    ledger_path,
    path_option,
    text_option,
    whole_option,
)


@command("serve")
@path_option("--plan", "Campaign plan the weekly review uses.", "PLAN")
@path_option("--sacct", "sacct export for the weekly review. Repeatable.", multiple=True)
@flag_option("--live-sacct", "Run sacct for the review week instead.")
@path_option("--registry", "Experiment registry (CSV or YAML) for the review.")
@path_option("--progress", "Application progress events (JSONL) for the review.")
@path_option("--manifest", "Artifact manifest (CSV or JSONL) for the review.")
@text_option("--cluster", "Cluster name of sacct records.", "NAME", default="default")
@cluster_tz_option
@text_option(
    "--cron", "Weekly review schedule, a cron line (default: deploy/prefect.yaml's).", "CRON"
)
@text_option("--timezone", "Time zone of the schedule (default: the file's).", "TZ")
@flag_option("--demo", "Use the bundled demo data as the review's inputs.")
@path_option(
    "--report-root",
    "Where runs write their report folders; served at TRAINBUDGET_REPORT_URL.",
    "DIR",
    default=Path("trainbudget-reports"),
)
@whole_option("--limit", "At most N flow runs at once.", minimum=1)
@ledger_option
@json_option
@click.pass_context
def serve(
    ctx: click.Context,
    plan: Path | None,
    sacct: tuple[Path, ...],
    live_sacct: bool,
    registry: Path | None,
    progress: Path | None,
    manifest: Path | None,
    cluster: str,
    cluster_tz: str,
    cron: str | None,
    timezone: str | None,
    demo: bool,
    report_root: Path,
    limit: int | None,
    ledger: str | None,
    as_json: bool,
) -> None:
    """Serve the pre-launch (on demand) and weekly-review (cron) deployments until stopped,
    and the run reports over HTTP at TRAINBUDGET_REPORT_URL (default http://127.0.0.1:4201/).

    Example: PREFECT_API_URL=http://127.0.0.1:4200/api trainbudget serve --demo
    """
    from trainbudget.base.errors import InputError
    from trainbudget.cli.flows import load_flow_module
    from trainbudget.cli.output import emit
    from trainbudget.ledger import TeamLocation, resolve_ledger_path, resolve_location
    from trainbudget.plan import load_plan
    from trainbudget.report.server import report_base_url, serve_report_root

    # The team ledger goes to the flow runs as its location text; a file as its full path.
    location = resolve_location(ledger_path(ctx, ledger))
    team = isinstance(location, TeamLocation)
    book = location.text if team else resolve_ledger_path(location).resolve()
    common = {"ledger": book, "report_root": report_root.resolve()}
    if demo:
        demo_run = load_flow_module("demo_run")
        folder = resolve_ledger_path(location).resolve().parent
        prelaunch, weekly = demo_run.demo_parameters(folder)
        prelaunch |= common
        weekly |= common
    else:
        if plan is None:
            raise InputError("--plan: the weekly review needs a plan (or use --demo)")
        load_plan(plan)  # a bad plan fails now, not at the first scheduled run
        if not sacct and not live_sacct:
            raise InputError("--sacct: give sacct exports, or --live-sacct (or use --demo)")
        prelaunch = dict(common)
        weekly = {
            "plan": plan.resolve(),
            "sacct": [p.resolve() for p in sacct or []],
            "live_sacct": live_sacct,
            "registry": registry.resolve() if registry else None,
            "progress": progress.resolve() if progress else None,
            "manifest": manifest.resolve() if manifest else None,
            "cluster": cluster,
            "cluster_tz": cluster_tz,
            **common,
        }
    weekly.setdefault("live_sacct", False)
    deployments_module = load_flow_module("deployments")
    deployments = deployments_module.build_deployments(
        {"prelaunch-estimate": prelaunch, "weekly-review": weekly}, cron, timezone
    )
    (schedule,) = next(d for d in deployments if d.name == "weekly-review").schedules
    cron, timezone = schedule.schedule.cron, schedule.schedule.timezone
    payload = {
        "deployments": [f"{d.flow_name}/{d.name}" for d in deployments],
        "weekly_schedule": {"cron": cron, "timezone": timezone},
        "ledger": str(book),
        "report_url": report_base_url(),
    }
    report_root.mkdir(parents=True, exist_ok=True)
    reports, where = serve_report_root(report_root)

    def render(console):
        console.print(
            f"serving {', '.join(payload['deployments'])}; weekly review: {cron} "
            f"({timezone}); ledger {book}. Stop with Ctrl-C."
        )
        console.print(where, soft_wrap=True)

    try:
        emit(payload, as_json, render)
        deployments_module.serve_deployments(deployments, limit=limit)
    finally:
        if reports is not None:
            reports.shutdown()

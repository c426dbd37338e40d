"""`trainbudget demo`: both flows on the bundled demo campaign, in ephemeral Prefect."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated

import typer

from trainbudget.cli.options import JsonOption

# Defaults for a self-contained run: a private Prefect home inside the demo folder, usage
# telemetry off (server side, and DO_NOT_TRACK on the client, which also silences Prefect's
# first-run notice), a patient ephemeral-server start (slow shared machines), Prefect's own
# logs only when they matter. Each yields to a value already in the environment.
_PREFECT_DEFAULTS = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180",
    "PREFECT_LOGGING_LEVEL": "WARNING",
}


def demo(
    out: Annotated[
        Path,
        typer.Option(
            "--out", help="Folder for the ledger, reports and Prefect's home.", metavar="DIR"
        ),
    ] = Path("trainbudget-demo"),
    as_json: JsonOption = False,
) -> None:
    """Run the pre-launch flow and the weekly review on bundled sample data; print the report."""
    from trainbudget.cli.output import emit, stderr_console
    from trainbudget.errors import InputError

    if out.exists() and not out.is_dir():
        raise InputError(f"--out: {out} exists and is not a folder; give a folder for the demo")
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PREFECT_HOME", str((out / ".prefect").resolve()))
    for name, value in _PREFECT_DEFAULTS.items():
        os.environ.setdefault(name, value)
    started = time.monotonic()
    steps = ["loading Prefect and the flows", "pre-launch estimate", "weekly review"]

    def progress(step: str) -> None:
        number = steps.index(step) + 1
        stderr_console.print(
            f"[{number}/{len(steps)}] {step} … ({time.monotonic() - started:.0f} s)",
            highlight=False,
        )

    progress(steps[0])
    from trainbudget.cli.flows import load_flow_module

    result = load_flow_module("demo_run").run_demo(out, on_step=progress)
    result["seconds"] = round(time.monotonic() - started, 1)

    def render(console):
        from trainbudget.cli.render.text import print_path

        pre, weekly = result["prelaunch"], result["weekly_review"]
        console.print(f"pre-launch estimate ({pre['campaign']}): " + _gates(pre["gates"]))
        console.print(f"weekly review {weekly['week']}: " + _gates(weekly["gates"]))
        # Each path whole on its own line, so a narrow terminal or a pipe never splits one.
        print_path(console, pre["report"], "reports:")
        print_path(console, weekly["report"])
        print_path(console, result["index"], f"open ({result['seconds']} s):")

    emit(result, as_json, render)


def _gates(gates: list[dict[str, str]]) -> str:
    return ", ".join(f"{g['gate']} {g['outcome']}" for g in gates)

"""`trainbudget demo`: both flows on the bundled demo campaign, in ephemeral Prefect."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import time
from pathlib import Path

from trainbudget.cli.commands.ui import DEMO_FOLDER, DEMO_PREFECT_HOME, TELEMETRY_OFF
from trainbudget.cli.help import command
from trainbudget.cli.options import json_option, path_option

# Defaults for a self-contained run: a patient ephemeral-server start (slow shared machines),
# Prefect's own logs only when they matter. Its Prefect home is always inside the demo folder
# (`trainbudget ui --demo` shows it) and usage telemetry is always off.
_PREFECT_DEFAULTS = {
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180",
    "PREFECT_LOGGING_LEVEL": "WARNING",
}


@command("demo")
@path_option(
    "--out",
    "Folder for the ledger, reports and Prefect's home.",
    "DIR",
    default=Path("trainbudget-demo"),
)
@json_option
def demo(out: Path, as_json: bool) -> None:
    """Run the pre-launch flow and the weekly review on bundled sample data; print the report."""
    from trainbudget.base.errors import InputError
    from trainbudget.cli.output import emit, stderr_console

    if out.exists() and not out.is_dir():
        raise InputError(f"--out: {out} exists and is not a folder; give a folder for the demo")
    out.mkdir(parents=True, exist_ok=True)
    os.environ["PREFECT_HOME"] = str((out / DEMO_PREFECT_HOME).resolve())
    os.environ.update(TELEMETRY_OFF)
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
    where = [] if out == DEMO_FOLDER else ["--report-root", str(out)]
    result["ui_command"] = shlex.join([*_program(), "ui", "--demo", *where])

    def render(console):
        from trainbudget.cli.render.text import print_path

        pre, weekly = result["prelaunch"], result["weekly_review"]
        console.print(f"pre-launch estimate ({pre['campaign']}): " + _gates(pre["gates"]))
        console.print(f"weekly review {weekly['week']}: " + _gates(weekly["gates"]))
        # Each path whole on its own line, so a narrow terminal or a pipe never splits one.
        print_path(console, pre["report"], "reports:")
        print_path(console, weekly["report"])
        print_path(console, result["index"], f"open ({result['seconds']} s):")
        if os.environ.get("PREFECT_API_URL"):
            console.print(f"these runs are in the Prefect UI of {os.environ['PREFECT_API_URL']}")
        else:
            console.print("see these runs in the Prefect UI:")
            console.print(f"  {result['ui_command']}", soft_wrap=True)

    emit(result, as_json, render, committed=True)  # both flows committed; the ledger is closed


def _gates(gates: list[dict[str, str]]) -> str:
    return ", ".join(f"{g['gate']} {g['outcome']}" for g in gates)


def _program() -> list[str]:
    """How this shell runs trainbudget: `trainbudget` when it is on PATH, else the script's
    path as invoked (`make demo` runs .venv/bin/trainbudget) or `python -m trainbudget`."""
    invoked = Path(sys.argv[0])
    on_path = shutil.which("trainbudget")
    elsewhere = not (on_path and Path(on_path).resolve() == invoked.resolve())
    if invoked.name == "trainbudget" and invoked.is_file() and elsewhere:
        return [sys.argv[0]]
    return ["trainbudget"] if on_path else [sys.executable, "-m", "trainbudget"]

"""The `trainbudget` command line: global options, command registration, exit codes.

Exit 0 on success (a *defer* verdict is a success), 2 on bad input or usage, with one line on
stderr naming the file, line or field at fault.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from trainbudget import __version__
from trainbudget.cli.commands import decide as decide_commands
from trainbudget.cli.commands import demo as demo_commands
from trainbudget.cli.commands import estimate as estimate_commands
from trainbudget.cli.commands import fit as fit_commands
from trainbudget.cli.commands import gates as gates_commands
from trainbudget.cli.commands import ledger as ledger_commands
from trainbudget.cli.commands import pilot as pilot_commands
from trainbudget.cli.commands import prelaunch as prelaunch_commands
from trainbudget.cli.commands import reconcile as reconcile_commands
from trainbudget.cli.commands import serve as serve_commands
from trainbudget.cli.commands import stop_rules as stop_rules_commands
from trainbudget.cli.commands import trace as trace_commands
from trainbudget.cli.options import LedgerOption
from trainbudget.errors import InputError

app = typer.Typer(
    name="trainbudget",
    help="Budget ML training campaigns: estimate before launch, reconcile every week.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        print(f"trainbudget {__version__}")
        raise typer.Exit()


@app.callback()
def _global_options(
    ctx: typer.Context,
    ledger: LedgerOption = None,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Budget ML training campaigns: estimate before launch, reconcile every week."""
    ctx.obj = {"ledger": ledger}


# In the order a campaign meets them: before launch, during the run, every week, plumbing.
app.command("estimate")(estimate_commands.estimate)
app.command("campaign")(estimate_commands.campaign)
app.command("pilot")(pilot_commands.pilot)
app.command("trace")(trace_commands.trace)
app.command("fit")(fit_commands.fit)
app.command("admit")(gates_commands.admit)
app.command("decide")(decide_commands.decide)
app.command("stop-rules")(stop_rules_commands.stop_rules)
app.command("prelaunch")(prelaunch_commands.prelaunch)
app.command("reconcile")(reconcile_commands.reconcile)
app.command("decisions")(gates_commands.decisions)
app.command("demo")(demo_commands.demo)
app.command("serve")(serve_commands.serve)
app.add_typer(ledger_commands.app, name="ledger")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code: 0 on success, 2 on bad input or usage.

    The console script calls sys.exit(main()); tests call main([...]) directly.
    """
    try:
        result = app(args=argv, prog_name="trainbudget", standalone_mode=False)
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        print("trainbudget: aborted", file=sys.stderr)
        return 130
    except typer.TyperException as exc:
        # Usage errors (typer's own click): one line, not the usage block.
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        print(f"trainbudget: error: {message}", file=sys.stderr)
        return 2
    except InputError as exc:
        print(f"trainbudget: error: {exc}", file=sys.stderr)
        return 2
    return result if isinstance(result, int) else 0

"""The `trainbudget` command line: global options, command registration, exit codes.

Exit 0 on success (a *defer* verdict is a success), 2 on bad input or usage, with one line on
stderr naming the file, line or field at fault; 1 with one line when the environment fails
(disk full, broken pipe, permission, read-only file system) or on an internal error. Never a
traceback, unless the global `--debug` flag asks for one (then the exception is re-raised).
"""

from __future__ import annotations

import io
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer

from trainbudget import __version__
from trainbudget.cli.coercion import install as install_coercion
from trainbudget.cli.commands import decide as decide_commands
from trainbudget.cli.commands import demo as demo_commands
from trainbudget.cli.commands import estimate as estimate_commands
from trainbudget.cli.commands import fit as fit_commands
from trainbudget.cli.commands import gates as gates_commands
from trainbudget.cli.commands import gpus as gpus_commands
from trainbudget.cli.commands import ledger as ledger_commands
from trainbudget.cli.commands import pilot as pilot_commands
from trainbudget.cli.commands import prelaunch as prelaunch_commands
from trainbudget.cli.commands import reconcile as reconcile_commands
from trainbudget.cli.commands import reliability as reliability_commands
from trainbudget.cli.commands import serve as serve_commands
from trainbudget.cli.commands import stop_rules as stop_rules_commands
from trainbudget.cli.commands import trace as trace_commands
from trainbudget.cli.commands import ui as ui_commands
from trainbudget.cli.examples import EXAMPLES
from trainbudget.cli.failures import report_failure
from trainbudget.cli.help import HelpGroup, apply_conventions, examples_epilog
from trainbudget.cli.options import LedgerDataOption, LedgerOption, WaitOption, apply_wait
from trainbudget.ledger.retry import retrying

install_coercion()
app = typer.Typer(
    name="trainbudget",
    cls=HelpGroup,
    help="Budget ML training campaigns: estimate before launch, reconcile every week.",
    epilog=examples_epilog(EXAMPLES[""]),
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
    ledger_data: LedgerDataOption = None,
    wait: WaitOption = None,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Show the version."),
    ] = False,
    debug: Annotated[
        bool,
        typer.Option("--debug", help="On an error, show the Python traceback instead of one line."),
    ] = False,
) -> None:
    """Budget ML training campaigns: estimate before launch, reconcile every week."""
    ctx.obj = {"ledger": ledger, "debug": debug}
    apply_wait(wait)
    if ledger_data is not None:
        from trainbudget.ledger.location import set_default_data_path

        set_default_data_path(ledger_data)
    _STATE["debug"] = debug


# In the order a campaign meets them: before launch, during the run, every week, plumbing.
app.command("estimate")(estimate_commands.estimate)
app.command("campaign")(estimate_commands.campaign)
app.command("gpus")(gpus_commands.gpus)
app.command("pilot")(pilot_commands.pilot)
app.command("trace")(trace_commands.trace)
app.command("fit")(fit_commands.fit)
app.command("admit")(gates_commands.admit)
app.command("decide")(decide_commands.decide)
app.command("stop-rules")(stop_rules_commands.stop_rules)
app.command("prelaunch")(prelaunch_commands.prelaunch)
app.command("reconcile")(reconcile_commands.reconcile)
app.command("reliability")(reliability_commands.reliability)
app.command("decisions")(gates_commands.decisions)
app.command("demo")(demo_commands.demo)
app.command("serve")(serve_commands.serve)
app.command("ui")(ui_commands.ui)
app.add_typer(ledger_commands.app, name="ledger")
# After every registration: each command gets the help conventions and its examples.
apply_conventions(app)

# The global options that take a value (the app callback's), skipped to find the command.
_GLOBAL_VALUED = ("--ledger", "--ledger-data", "--wait")


def _invoked_command(argv: list[str]) -> str | None:
    """The command `argv` names after the global options; None for the app's own help,
    --version or an unknown option."""
    args = iter(argv)
    for arg in args:
        if arg in _GLOBAL_VALUED:
            next(args, None)
        elif arg != "--debug" and not arg.startswith(tuple(f"{flag}=" for flag in _GLOBAL_VALUED)):
            return None if arg.startswith("-") else arg
    return None


@contextmanager
def _only_command(name: str | None) -> Iterator[None]:
    """Register only the command `name` while it runs: typer builds every registered command's
    click command (~40 ms for all), and one is run. Any other name keeps them all, so help
    and unknown-command errors read as before."""
    commands, groups = app.registered_commands, app.registered_groups
    command = [info for info in commands if info.name == name]
    group = [info for info in groups if info.name == name]
    if command or group:
        app.registered_commands, app.registered_groups = command, group
    try:
        yield
    finally:
        app.registered_commands, app.registered_groups = commands, groups


# Set by the app callback; main() reads it after the command's context is gone.
_STATE: dict[str, bool] = {"debug": False}


def _run(argv: list[str] | None) -> object:
    args = sys.argv[1:] if argv is None else argv
    if not _names_team_ledger(args) or _invoked_command(args) in _LONG_RUNNING:
        with _only_command(_invoked_command(args)):
            return app(args=argv, prog_name="trainbudget", standalone_mode=False)
    # On the team ledger a run's commit can conflict after its output is ready: stdout is
    # held until the command returns (after its commit) and dropped when it is retried.
    # Spooled: a million jobs' JSON (hundreds of MB) goes to a temporary file, not memory.
    spool = tempfile.SpooledTemporaryFile(max_size=16 << 20)  # noqa: SIM115 (closed below)
    real, held = sys.stdout, io.TextIOWrapper(spool, encoding="utf-8", newline="")
    sys.stdout = held
    try:
        with _only_command(_invoked_command(args)):
            result = app(args=argv, prog_name="trainbudget", standalone_mode=False)
    except typer.Exit:
        _release(held, real)
        raise
    finally:
        sys.stdout = real
    _release(held, real)
    return result


def _release(held: io.TextIOWrapper, real: Any) -> None:
    """Write the held output to the real stdout."""
    held.flush()
    real.flush()
    held.buffer.seek(0)
    shutil.copyfileobj(held.buffer, real.buffer, 1 << 20)
    held.close()


# Commands that run until stopped and write no run transaction of their own: never held.
_LONG_RUNNING = {"serve", "ui", "demo"}


def _names_team_ledger(args: list[str]) -> bool:
    """Whether the command runs on the team ledger (--ledger or $TRAINBUDGET_LEDGER)."""
    from trainbudget.ledger.location import LEDGER_ENV, TEAM_PREFIX

    named = [a.split("=", 1)[1] if a.startswith("--ledger=") else a for a in args]
    return any(a.startswith(TEAM_PREFIX) for a in named) or os.environ.get(
        LEDGER_ENV, ""
    ).startswith(TEAM_PREFIX)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code: 0 success, 2 bad input or usage, 1 environment.

    The console script calls sys.exit(main()); tests call main([...]) directly. Every error
    becomes one stderr line `trainbudget: error: ...` (trainbudget.cli.failures).
    """
    _STATE["debug"] = False
    try:
        # On the team ledger a commit that conflicts with another run's is rolled back
        # whole; the command then runs again from the start (nothing was printed yet).
        result = retrying(lambda: _run(argv), what="the command")
        sys.stdout.flush()  # a full disk or closed pipe on stdout is an error of this run
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
    except KeyboardInterrupt:
        print("trainbudget: interrupted", file=sys.stderr)
        return 130
    except BaseException as exc:
        if _STATE["debug"] or not isinstance(exc, Exception):
            raise
        return report_failure(exc)
    return result if isinstance(result, int) else 0

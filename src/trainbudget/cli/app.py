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
from typing import Any

import click

from trainbudget import __version__
from trainbudget.cli.failures import report_failure
from trainbudget.cli.help import LazyGroup
from trainbudget.cli.options import (
    apply_wait,
    flag_option,
    ledger_data_option,
    ledger_option,
    wait_option,
)
from trainbudget.ledger.retry import retrying

# In the order a campaign meets them: before launch, during the run, every week, plumbing.
# Each is imported only when it runs or its help is shown (cli/help.py, LazyGroup).
_COMMANDS = "trainbudget.cli.commands"
COMMANDS = {
    "estimate": f"{_COMMANDS}.estimate:estimate",
    "campaign": f"{_COMMANDS}.estimate:campaign",
    "gpus": f"{_COMMANDS}.gpus:gpus",
    "pilot": f"{_COMMANDS}.pilot:pilot",
    "trace": f"{_COMMANDS}.trace:trace",
    "fit": f"{_COMMANDS}.fit:fit",
    "admit": f"{_COMMANDS}.gates:admit",
    "decide": f"{_COMMANDS}.decide:decide",
    "stop-rules": f"{_COMMANDS}.stop_rules:stop_rules",
    "prelaunch": f"{_COMMANDS}.prelaunch:prelaunch",
    "reconcile": f"{_COMMANDS}.reconcile:reconcile",
    "reliability": f"{_COMMANDS}.reliability:reliability",
    "decisions": f"{_COMMANDS}.gates:decisions",
    "demo": f"{_COMMANDS}.demo:demo",
    "serve": f"{_COMMANDS}.serve:serve",
    "ui": f"{_COMMANDS}.ui:ui",
    "ledger": f"{_COMMANDS}.ledger:ledger_group",
}


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        print(f"trainbudget {__version__}")
        ctx.exit()


@click.group(
    "trainbudget",
    cls=LazyGroup,
    lazy_commands=COMMANDS,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"], "show_default": True},
)
@ledger_option
@ledger_data_option
@wait_option
@click.option(
    "--version",
    is_flag=True,
    is_eager=True,
    expose_value=False,
    callback=_print_version,
    help="Show the version.",
)
@flag_option("--debug", "On an error, show the Python traceback instead of one line.")
@click.pass_context
def app(
    ctx: click.Context,
    ledger: str | None,
    ledger_data: str | None,
    wait: str | None,
    debug: bool,
) -> None:
    """Budget ML training campaigns: estimate before launch, reconcile every week."""
    ctx.obj = {"ledger": ledger, "debug": debug}
    apply_wait(wait)
    if ledger_data is not None:
        from trainbudget.ledger.location import set_default_data_path

        set_default_data_path(ledger_data)
    _STATE["debug"] = debug


# The global options that take a value (the app's own), skipped to find the command.
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


# Set by the app callback; main() reads it after the command's context is gone.
_STATE: dict[str, bool] = {"debug": False}


def _run(argv: list[str] | None) -> object:
    args = sys.argv[1:] if argv is None else argv
    if not _names_team_ledger(args) or _invoked_command(args) in _LONG_RUNNING:
        return app.main(args=args, prog_name="trainbudget", standalone_mode=False)
    # On the team ledger a run's commit can conflict after its output is ready: stdout is
    # held until the command returns (after its commit) and dropped when it is retried.
    # Spooled: a million jobs' JSON (hundreds of MB) goes to a temporary file, not memory.
    spool = tempfile.SpooledTemporaryFile(max_size=16 << 20)  # noqa: SIM115 (closed below)
    real, held = sys.stdout, io.TextIOWrapper(spool, encoding="utf-8", newline="")
    sys.stdout = held
    try:
        result = app.main(args=args, prog_name="trainbudget", standalone_mode=False)
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
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        print("trainbudget: aborted", file=sys.stderr)
        return 130
    except click.exceptions.NoArgsIsHelpError as exc:
        # `trainbudget` (or `trainbudget ledger`) alone: the help, on stdout; a usage exit.
        print(exc.ctx.get_help())
        return 2
    except click.ClickException as exc:
        # Usage errors: one line, not the usage block.
        print(f"trainbudget: error: {exc.format_message()}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("trainbudget: interrupted", file=sys.stderr)
        return 130
    except BaseException as exc:
        if _STATE["debug"] or not isinstance(exc, Exception):
            raise
        return report_failure(exc)
    return result if isinstance(result, int) else 0

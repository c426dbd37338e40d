"""Options shared by every command, and the one parser of number options.

Numbers arrive as text and are read as exact Decimals ("7e9", "2.40", "1_000" stay exact); a
bad value raises InputError naming the flag, e.g. `--mfu: must be in (0, 1], got '1.5'`.
Stages take the parsed values and name their own fields; flag names are the CLI's business.
The options every command shares are declared once here, as click decorators (`json_option`,
`ledger_option`, the run's shape and price ...), so a flag reads the same in every command.
A number option named like a gate quantity (`--estimated-gpu-hours`, `--max-gpus`) is held to
its sane bound (limits.GATE_BOUNDS, docs/gates.md *Bounds*), as the plan's field is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any

import click

from trainbudget.base.errors import InputError
from trainbudget.base.limits import within_gate_bound

# Far beyond any real quantity (1e300 FLOPs), yet safe to multiply and to turn into an int.
_LARGEST_EXPONENT = 300


def number(flag: str, text: str | None, expected: str = "a number") -> Decimal | None:
    """Option text as an exact, finite Decimal (None passes through); InputError naming `flag`."""
    if text is None:
        return None
    try:
        value = Decimal(text.strip().replace("_", ""))
    except (InvalidOperation, ValueError):
        raise InputError(f"{flag}: must be {expected}, got {text!r}") from None
    if not value.is_finite():
        raise InputError(f"{flag}: must be a finite number, got {text!r}")
    if value and abs(value.adjusted()) > _LARGEST_EXPONENT:
        raise InputError(f"{flag}: must be a number within 1e±{_LARGEST_EXPONENT}, got {text!r}")
    return within_gate_bound(flag, value)  # --estimated-gpu-hours etc.: limits.GATE_BOUNDS


def amount(flag: str, text: str | None, unit: str = "") -> Decimal | None:
    """A number of zero or more (hours, dollars, GPU-hours, a count that may be fractional)."""
    value = number(flag, text)
    if value is not None and value < 0:
        raise InputError(f"{flag}: must be zero or more{_unit(unit)}, got {text}")
    return value


def positive(flag: str, text: str | None) -> Decimal | None:
    """A number above zero (parameters, TFLOP/s, tokens of a run)."""
    value = number(flag, text, "a positive number")
    if value is not None and value <= 0:
        raise InputError(f"{flag}: must be positive, got {text!r}")
    return value


def at_least(flag: str, text: str | None, minimum: int) -> Decimal | None:
    """A number of at least `minimum` (e.g. training tokens: at least 1)."""
    value = number(flag, text)
    if value is not None and value < minimum:
        raise InputError(f"{flag}: must be at least {minimum}, got {text!r}")
    return value


def count(flag: str, text: str | None, minimum: int = 0) -> int | None:
    """A whole number of at least `minimum` ("8", "8.0", "1e3", "1_000"); 2.5 is refused."""
    value = number(flag, text)
    if value is None:
        return None
    if value != value.to_integral_value() or value < minimum:
        kind = "a positive integer" if minimum == 1 else f"a whole number ≥ {minimum}"
        raise InputError(f"{flag}: must be {kind}, got {text!r}")
    return int(value)


def fraction(flag: str, text: str | None, *, include_one: bool = True) -> Decimal | None:
    """A fraction in (0, 1], or in (0, 1) with include_one=False (MFU; a share of a run)."""
    value = number(flag, text)
    if value is None:
        return None
    if value <= 0 or value > 1 or (value == 1 and not include_one):
        interval = "(0, 1]" if include_one else "(0, 1)"
        raise InputError(f"{flag}: must be in {interval}, got {text!r}")
    return value


def size(flag: str, text: str | None, unit: str) -> Decimal | None:
    """A size of zero or more in the flag's unit (GB, bytes), e.g. --memory-per-gpu-gb 80."""
    return amount(flag, text, unit)


def duration(flag: str, text: str | None, unit: str = "hours") -> Decimal | None:
    """A duration of zero or more in the flag's unit (hours, seconds), e.g. --wall-hours 10."""
    return amount(flag, text, unit)


def tflops(flag: str, text: str | None) -> Fraction | None:
    """A positive TFLOP/s figure as an exact Fraction (the trace stage's number type)."""
    value = positive(flag, text)
    return None if value is None else Fraction(value)


def _unit(unit: str) -> str:
    return f" {unit}" if unit else ""


@contextmanager
def flag_names() -> Iterator[None]:
    """Say a stage's InputError with flags: its fields in backticks (`gain_low`) and a leading
    field name become the options they came from (--gain-low)."""
    try:
        yield
    except InputError as exc:
        text = re.sub(r"`(\w+)`", lambda m: "--" + m.group(1).replace("_", "-"), str(exc))
        raise InputError(text) from None


def _default(value: Any) -> dict[str, Any]:
    """`default=` only when there is one: click counts an explicit default of None as a value
    given, so a required option would pass unnoticed."""
    return {} if value is None else {"default": value}


class WholeNumber(click.ParamType):
    """A whole number ("8", "1_000"); anything else is a usage error naming the option."""

    name = "whole number"

    def convert(self, value: Any, param: Any, ctx: Any) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return int(str(value).strip().replace("_", ""))
        except ValueError:
            self.fail(f"{value!r} is not a whole number.", param, ctx)


WHOLE = WholeNumber()
# A path as given (no existence check: the stage names a missing file as bad input itself).
PATH = click.Path(path_type=Path)


def value_option(
    flag: str,
    help_text: str,
    metavar: str = "X",
    *,
    default: str | None = None,
    required: bool = False,
    name: str | None = None,
) -> Any:
    """An option for a number given as text (read by the parsers above), shown with a metavar
    and no default (7e9 stays exact)."""
    decls = (flag, name) if name else (flag,)
    return click.option(
        *decls, help=help_text, metavar=metavar, required=required, show_default=False,
        **_default(default),
    )  # fmt: skip


def text_option(
    flag: str, help_text: str, metavar: str, *, default: str | None = None, name: str | None = None
) -> Any:
    """An option for a word or a name (a precision, a campaign id); its default is shown."""
    decls = (flag, name) if name else (flag,)
    return click.option(*decls, help=help_text, metavar=metavar, **_default(default))


def flag_option(flag: str, help_text: str, *, name: str | None = None) -> Any:
    """An on/off flag, off by default."""
    decls = (flag, name) if name else (flag,)
    return click.option(*decls, is_flag=True, default=False, help=help_text)


def path_option(
    flag: str,
    help_text: str,
    metavar: str = "FILE",
    *,
    default: Path | None = None,
    multiple: bool = False,
    required: bool = False,
    name: str | None = None,
) -> Any:
    """An option naming a file or folder; `multiple` for a repeatable one (a tuple)."""
    decls = (flag, name) if name else (flag,)
    return click.option(
        *decls, type=PATH, help=help_text, metavar=metavar, multiple=multiple,
        required=required, show_default=default is not None, **_default(default),
    )  # fmt: skip


def path_argument(name: str, help_text: str, metavar: str, *, many: bool = False) -> Any:
    """A required positional path (`PLAN`), or one or more of them (`STEPLOG...`)."""
    return click.argument(
        name, type=PATH, metavar=metavar, help=help_text, nargs=-1 if many else 1, required=True
    )


def whole_option(
    flag: str,
    help_text: str,
    metavar: str = "N",
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    default: int | None = None,
    name: str | None = None,
) -> Any:
    """An option for a whole number, its range checked here (help shows no `[x>=0]`)."""

    def check(ctx: Any, param: Any, value: int | None) -> int | None:
        low = minimum is not None and value is not None and value < minimum
        high = maximum is not None and value is not None and value > maximum
        if low or high:
            if maximum is None:
                words = f"at least {minimum}"
            elif minimum is None:
                words = f"at most {maximum}"
            else:
                words = f"from {minimum} to {maximum}"
            raise click.BadParameter(f"must be {words}, got {value}", ctx=ctx, param=param)
        try:
            return within_gate_bound(flag, value)
        except InputError as exc:
            message = str(exc).removeprefix(f"{flag}: ")
            raise click.BadParameter(message, ctx=ctx, param=param) from None

    decls = (flag, name) if name else (flag,)
    return click.option(
        *decls, type=WHOLE, help=help_text, metavar=metavar, callback=check, **_default(default)
    )


def compose(*decorators: Any) -> Any:
    """Several option decorators as one, applied in the order given (help lists them so)."""

    def apply(function: Any) -> Any:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return apply


json_option = flag_option(
    "--json", "Print one JSON object on stdout and nothing else there.", name="as_json"
)
no_ledger_option = flag_option(
    "--no-ledger", "Compute and print only; write nothing to the ledger."
)
# Text, not a Path: `s3://x` must reach the location check with both slashes.
ledger_option = click.option(
    "--ledger",
    help="DuckDB ledger file, or the team ledger 'ducklake:postgres:CONNINFO' (CONNINFO: "
    "a libpq connection string; default: $TRAINBUDGET_LEDGER, else ./trainbudget.duckdb).",
    metavar="LEDGER",
)
ledger_data_option = click.option(
    "--ledger-data",
    help="The team ledger's Parquet folder, needed to create it (default: "
    "$TRAINBUDGET_LEDGER_DATA; the catalog keeps it after that).",
    metavar="DIR",
)
wait_option = click.option(
    "--wait",
    metavar="SECONDS",
    help="While another process holds the ledger, retry for SECONDS before failing "
    "(default 10; 0 fails at once).",
)
campaign_option = text_option("--campaign", "Campaign id.", "ID")
seed_option = whole_option("--seed", "Seed of the resampling.", default=0)
cluster_tz_option = text_option(
    "--cluster-tz", "Time zone sacct printed its times in.", "TZ", default="UTC"
)


def apply_wait(text: str | None) -> None:
    """Make --wait SECONDS (when given; zero or more) the wait of the ledger opens that follow."""
    seconds = amount("--wait", text, "seconds")
    if seconds is not None:
        from trainbudget.ledger import set_default_wait

        set_default_wait(float(seconds))


def ledger_path(ctx: click.Context, option: str | None) -> str | None:
    """The command's --ledger if given, else the global one given before the command."""
    if option is not None:
        return option
    root = ctx.find_root()
    return (root.obj or {}).get("ledger") if root else None


# The shape and price of one run, shared by `estimate` and `decide` (and --gpu by all commands
# that look up the hardware catalog). Numbers are taken as text so 7e9 and 1e11 stay exact.
# One metavar per quantity across commands: N parameters, TOKENS, COUNT of GPUs, USD, HOURS.
# In a help text, replaced by the catalog's names when the help is shown (cli/help.py).
GPU_NAMES = "{gpu_names}"
GPU_HELP = f"Catalog accelerator: {GPU_NAMES} (`trainbudget gpus`)."


def run_options(*, required: bool) -> Any:
    """--params --tokens --gpus --price (required for `estimate`; optional for `decide`, where
    --plan may give the run instead)."""
    return compose(
        value_option("--params", "Parameter count N, e.g. 7e9.", "N", required=required),
        value_option(
            "--tokens", "Training tokens of the run, e.g. 1e11.", "TOKENS", required=required
        ),
        value_option("--gpus", "Number of accelerators.", "COUNT", required=required),
        value_option("--price", "Dollars per GPU-hour.", "USD", required=required),
    )


def gpu_option(extra: str = "") -> Any:
    """--gpu NAME, the help naming the catalog's accelerators (and `extra`, what it is for)."""
    return text_option("--gpu", f"{GPU_HELP}{extra}", "GPU")


gpu_tflops_option = text_option(
    "--gpu-tflops", "Dense peak TFLOP/s of one GPU; overrides the catalog.", "TFLOPS"
)
precision_option = text_option(
    "--precision", "fp32, tf32, bf16, fp16 or fp8.", "PRECISION", default="bf16"
)
mfu_option = text_option(
    "--mfu", "Model FLOPs utilisation in (0, 1]; default by --model-class.", "MFU"
)

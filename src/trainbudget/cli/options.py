"""Options shared by every command, and the one parser of number options.

Numbers arrive as text and are read as exact Decimals ("7e9", "2.40", "1_000" stay exact); a
bad value raises InputError naming the flag, e.g. `--mfu: must be in (0, 1], got '1.5'`.
Stages take the parsed values and name their own fields; flag names are the CLI's business.
A number option named like a gate quantity (`--estimated-gpu-hours`, `--max-gpus`) is held to
its sane bound (limits.GATE_BOUNDS, docs/gates.md *Bounds*), as the plan's field is.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Annotated, Any

import typer

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


def whole_option(
    flag: str,
    help_text: str,
    metavar: str = "N",
    *,
    minimum: int | None = None,
    maximum: int | None = None,
) -> Any:
    """A typer option for a whole number, its range checked here (help shows no `[x>=0]`)."""

    def check(value: int | None) -> int | None:
        low = minimum is not None and value is not None and value < minimum
        high = maximum is not None and value is not None and value > maximum
        if low or high:
            if maximum is None:
                words = f"at least {minimum}"
            elif minimum is None:
                words = f"at most {maximum}"
            else:
                words = f"from {minimum} to {maximum}"
            raise typer.BadParameter(f"must be {words}, got {value}")
        try:
            return within_gate_bound(flag, value)
        except InputError as exc:
            raise typer.BadParameter(str(exc).removeprefix(f"{flag}: ")) from None

    return typer.Option(flag, help=help_text, metavar=metavar, callback=check)


JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else there.")
]
NoLedgerOption = Annotated[
    bool, typer.Option("--no-ledger", help="Compute and print only; write nothing to the ledger.")
]
LedgerOption = Annotated[
    str | None,  # text, not a Path: `s3://x` must reach the location check with both slashes
    typer.Option(
        "--ledger",
        help="DuckDB ledger file, or the team ledger 'ducklake:postgres:CONNINFO' (CONNINFO: "
        "a libpq connection string; default: $TRAINBUDGET_LEDGER, else ./trainbudget.duckdb).",
        metavar="LEDGER",
        show_default=False,
    ),
]
LedgerDataOption = Annotated[
    str | None,
    typer.Option(
        "--ledger-data",
        help="The team ledger's Parquet folder, needed to create it (default: "
        "$TRAINBUDGET_LEDGER_DATA; the catalog keeps it after that).",
        metavar="DIR",
        show_default=False,
    ),
]


WaitOption = Annotated[
    str | None,
    typer.Option(
        "--wait",
        metavar="SECONDS",
        help="While another process holds the ledger, retry for SECONDS before failing "
        "(default 10; 0 fails at once).",
        show_default=False,
    ),
]


def apply_wait(text: str | None) -> None:
    """Make --wait SECONDS (when given; zero or more) the wait of the ledger opens that follow."""
    seconds = amount("--wait", text, "seconds")
    if seconds is not None:
        from trainbudget.ledger import set_default_wait

        set_default_wait(float(seconds))


def ledger_path(ctx: typer.Context, option: str | None) -> str | None:
    """The command's --ledger if given, else the global one given before the command."""
    if option is not None:
        return option
    root = ctx.find_root()
    return (root.obj or {}).get("ledger") if root else None


# The shape and price of one run, shared by `estimate` and `decide` (and --gpu by all commands
# that look up the hardware catalog). Numbers are taken as text so 7e9 and 1e11 stay exact.
# One metavar per quantity across commands: N parameters, TOKENS, COUNT of GPUs, USD, HOURS.
def value_option(flag: str, help_text: str, metavar: str = "X") -> Any:
    """A typer option for a number given as text, shown with a metavar and no default."""
    return typer.Option(flag, help=help_text, metavar=metavar, show_default=False)


# In a help text, replaced by the catalog's names when the help is shown (cli/help.py).
GPU_NAMES = "{gpu_names}"
GPU_HELP = f"Catalog accelerator: {GPU_NAMES} (`trainbudget gpus`)."

ParamsOption = Annotated[str, value_option("--params", "Parameter count N, e.g. 7e9.", "N")]
TokensOption = Annotated[
    str, value_option("--tokens", "Training tokens of the run, e.g. 1e11.", "TOKENS")
]
GpusOption = Annotated[str, value_option("--gpus", "Number of accelerators.", "COUNT")]
PriceOption = Annotated[str, value_option("--price", "Dollars per GPU-hour.", "USD")]
GpuOption = Annotated[str | None, typer.Option("--gpu", help=GPU_HELP, metavar="GPU")]
GpuTflopsOption = Annotated[
    str | None,
    typer.Option(
        "--gpu-tflops",
        help="Dense peak TFLOP/s of one GPU; overrides the catalog.",
        metavar="TFLOPS",
    ),
]
PrecisionOption = Annotated[
    str,
    typer.Option("--precision", help="fp32, tf32, bf16, fp16 or fp8.", metavar="PRECISION"),
]
MfuOption = Annotated[
    str | None,
    typer.Option(
        "--mfu",
        help="Model FLOPs utilisation in (0, 1]; default by --model-class.",
        metavar="MFU",
    ),
]
ModelClassOption = Annotated[
    str,
    typer.Option(
        "--model-class", help="dense, moe, cnn or snn (class-default MFU).", metavar="CLASS"
    ),
]

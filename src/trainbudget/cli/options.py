"""Options shared by every command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else there.")
]
LedgerOption = Annotated[
    Path | None,
    typer.Option(
        "--ledger",
        help="DuckDB ledger file (default: $TRAINBUDGET_LEDGER, else ./trainbudget.duckdb).",
        show_default=False,
    ),
]


def ledger_path(ctx: typer.Context, option: Path | None) -> Path | None:
    """The command's --ledger if given, else the global one given before the command."""
    if option is not None:
        return option
    root = ctx.find_root()
    return (root.obj or {}).get("ledger") if root else None


# The shape and price of one run, shared by `estimate` and `decide` (and --gpu by all commands
# that look up the hardware catalog). Numbers are taken as text so 7e9 and 1e11 stay exact.
def value_option(flag: str, help_text: str, metavar: str = "X") -> Any:
    """A typer option for a number given as text, shown with a metavar and no default."""
    return typer.Option(flag, help=help_text, metavar=metavar, show_default=False)


ParamsOption = Annotated[str, value_option("--params", "Parameter count N, e.g. 7e9.", "N")]
TokensOption = Annotated[str, value_option("--tokens", "Training tokens T, e.g. 1e11.", "T")]
GpusOption = Annotated[str, value_option("--gpus", "Number of accelerators.", "G")]
PriceOption = Annotated[str, value_option("--price", "Dollars per GPU-hour.", "USD")]
GpuOption = Annotated[
    str | None,
    typer.Option(
        "--gpu", help="Catalog accelerator, e.g. A100-80GB (see docs/estimate.md).", metavar="NAME"
    ),
]
GpuTflopsOption = Annotated[
    str | None,
    typer.Option(
        "--gpu-tflops", help="Dense peak TFLOP/s of one GPU; overrides the catalog.", metavar="X"
    ),
]
PrecisionOption = Annotated[str, typer.Option("--precision", help="fp32, tf32, bf16, fp16 or fp8.")]
MfuOption = Annotated[
    str | None,
    typer.Option(
        "--mfu", help="Model FLOPs utilisation in (0, 1]; default by --model-class.", metavar="M"
    ),
]
ModelClassOption = Annotated[
    str, typer.Option("--model-class", help="dense, moe, cnn or snn (class-default MFU).")
]

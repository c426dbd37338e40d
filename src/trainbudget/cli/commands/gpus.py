"""`trainbudget gpus`: the accelerator catalog (memory, dense peaks per precision, sources).

A quick command: it reads `estimate/gpus.toml` and imports no framework beyond click and rich.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from trainbudget.cli.help import command
from trainbudget.cli.options import flag_option, json_option
from trainbudget.cli.output import emit

_GIB = 2**30


@command("gpus")
@flag_option("--sources", "Add each entry's source note under the table.")
@json_option
def gpus(sources: bool, as_json: bool) -> None:
    """List the accelerator catalog: memory (GiB) and dense peak TFLOP/s.

    Peaks are dense (2:4 sparsity figures halved); int8 is in TOPS.
    A TPU is one chip, a GB200 one GPU of its superchip: see --sources.
    --json prints every field, sources included.
    """
    payload = catalog_payload()

    def render(console: Any) -> None:
        from trainbudget.cli.render.gpus import render_gpus  # rich: not for --json

        render_gpus(console, payload, sources=sources)

    emit(payload, as_json, render)


def catalog_payload() -> dict[str, Any]:
    """The catalog as the --json object: `accelerators` in file order, exact numbers."""
    from trainbudget.estimate.catalog import INTEGER_PRECISIONS, PRECISIONS, list_accelerators

    return {
        "basis": "dense peak (no 2:4 sparsity); TFLOP/s, int8 in TOPS",
        "precisions": list(PRECISIONS),
        "integer_precisions": list(INTEGER_PRECISIONS),
        "accelerators": [
            {
                "name": accelerator.name,
                "memory_gib": Fraction(accelerator.memory_bytes, _GIB),
                "memory_bytes": accelerator.memory_bytes,
                "peak_tflops": dict(accelerator.peak_tflops),
                "peak_tops": dict(accelerator.peak_tops),
                "source": accelerator.source,
            }
            for accelerator in list_accelerators()
        ],
    }

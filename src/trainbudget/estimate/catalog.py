"""The accelerator catalog: memory and dense peak TFLOP/s per precision, from `gpus.toml`.

The data file ships inside the package and is read on first use, not at import, so commands
that never look up a GPU never pay for it. Names match case-insensitively.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from pathlib import Path

from trainbudget.base.errors import InputError

CATALOG_FILE = Path(__file__).with_name("gpus.toml")
PRECISIONS = ("fp32", "tf32", "bf16", "fp16", "fp8")
INTEGER_PRECISIONS = ("int8",)  # TOPS, listed for reference; never a FLOP/s peak
_GIB = 1024**3
_TERA = 10**12


@dataclass(frozen=True)
class Accelerator:
    """One accelerator: `memory_bytes`, dense `peak_tflops` (and integer `peak_tops`), `source`."""

    name: str
    memory_bytes: int
    peak_tflops: dict[str, Decimal] = field(hash=False)
    source: str
    peak_tops: dict[str, Decimal] = field(default_factory=dict, hash=False)

    def peak_flops_per_second(self, precision: str = "bf16") -> Decimal:
        """Dense peak FLOP/s at `precision`; InputError if the part has no such path."""
        key = precision.lower()
        if key not in self.peak_tflops:
            known = ", ".join(p for p in PRECISIONS if p in self.peak_tflops)
            raise InputError(
                f"precision: {self.name} has no published dense {precision} peak in the catalog "
                f"(it has {known}); choose one of those or give gpu_tflops (the peak in TFLOP/s)"
            )
        return self.peak_tflops[key] * _TERA


@cache
def _catalog() -> dict[str, Accelerator]:
    """Parse gpus.toml once; numbers are read as Decimal from their literal text."""
    with CATALOG_FILE.open("rb") as handle:
        data = tomllib.load(handle, parse_float=Decimal)
    found: dict[str, Accelerator] = {}
    for entry in data["accelerator"]:
        peaks = {k: Decimal(v) for k, v in entry["peak_tflops"].items()}
        integer_peaks = {k: Decimal(v) for k, v in entry.get("peak_tops", {}).items()}
        unknown = (set(peaks) - set(PRECISIONS)) | (set(integer_peaks) - set(INTEGER_PRECISIONS))
        if unknown:
            raise ValueError(f"{CATALOG_FILE.name}: {entry['name']}: unknown precision {unknown}")
        memory_bytes = Decimal(entry["memory_gib"]) * _GIB
        found[entry["name"].lower()] = Accelerator(
            name=entry["name"],
            memory_bytes=int(memory_bytes),
            peak_tflops=peaks,
            source=entry["source"],
            peak_tops=integer_peaks,
        )
    return found


def list_accelerators() -> list[Accelerator]:
    """Every accelerator in the catalog, in file order."""
    return list(_catalog().values())


def get_accelerator(name: str) -> Accelerator:
    """Look an accelerator up by canonical name, case-insensitively.

    An unknown name raises InputError listing the close names (or all names if none is close).
    """
    catalog = _catalog()
    key = name.strip().lower()
    if key in catalog:
        return catalog[key]
    close = [n for n in catalog if key and (key in n or n in key)]
    close += [n for n in difflib.get_close_matches(key, catalog, n=4, cutoff=0.5) if n not in close]
    names = [catalog[n].name for n in close] or [a.name for a in catalog.values()]
    hint = "close names" if close else "known names"
    raise InputError(f"gpu: unknown accelerator {name!r}; {hint}: {', '.join(names)}")

"""`trainbudget gpus`: the catalog as a user reads it, whole at 80 columns, exact in --json."""

from __future__ import annotations

import json
import re
import tomllib
from decimal import Decimal
from pathlib import Path

import pytest

CATALOG = Path(__file__).resolve().parents[3] / "src" / "trainbudget" / "estimate" / "gpus.toml"


def _entries() -> list[dict]:
    with CATALOG.open("rb") as handle:
        return tomllib.load(handle, parse_float=Decimal)["accelerator"]


def _row(text: str, name: str) -> list[str]:
    rows = [line.split() for line in text.splitlines() if line.split()[:1] == [name]]
    assert len(rows) == 1, f"{name}: {rows}"
    return rows[0]


def test_json_lists_every_entry_with_exact_figures_from_the_data_file(cli) -> None:
    result = cli("gpus", "--json")
    assert result.code == 0 and result.stderr == ""
    data = json.loads(result.stdout, parse_float=Decimal)
    by_name = {entry["name"]: entry for entry in data["accelerators"]}
    assert list(by_name) == [entry["name"] for entry in _entries()]
    for entry in _entries():
        shown = by_name[entry["name"]]
        assert shown["peak_tflops"] == {k: Decimal(v) for k, v in entry["peak_tflops"].items()}
        assert shown["peak_tops"] == {k: Decimal(v) for k, v in entry.get("peak_tops", {}).items()}
        assert shown["memory_gib"] == entry["memory_gib"]
        assert shown["memory_bytes"] == entry["memory_gib"] * 2**30
        assert shown["source"] == entry["source"]
    # Published figures, not read back from our own file: GB200 per GPU 186 GB and 2.5 PF
    # dense BF16 (NVL72 datasheet), TPU v5p 459 TFLOP/s per chip (Cloud TPU docs).
    assert by_name["GB200"]["memory_gib"] == 186
    assert by_name["GB200"]["peak_tflops"]["bf16"] == Decimal(2500)
    assert by_name["TPU-v5p"]["peak_tflops"] == {"bf16": Decimal(459)}


def test_table_at_80_columns_piped_keeps_every_number_whole(cli) -> None:
    result = cli("gpus", env={"COLUMNS": "80"})
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in result.stdout
    header = next(line.split() for line in lines if line.startswith("accelerator"))
    assert header == ["accelerator", "GiB", "fp32", "tf32", "bf16", "fp16", "fp8", "int8"]
    for entry in _entries():
        peaks = {**entry["peak_tflops"], **entry.get("peak_tops", {})}
        row = _row(result.stdout, entry["name"])
        assert Decimal(row[1]) == entry["memory_gib"]
        for column, cell in zip(header[2:], row[2:], strict=True):
            assert (cell == "—") == (column not in peaks)
            if column in peaks:
                assert Decimal(cell) == peaks[column]


@pytest.mark.parametrize("width", [40, 50, 60])
def test_narrow_terminal_drops_columns_and_says_so_instead_of_cutting(cli, width: int) -> None:
    result = cli("gpus", env={"COLUMNS": str(width)})
    assert result.code == 0, result.stderr
    assert "…" not in result.stdout
    table = result.stdout.split("(")[0]
    assert max(len(line) for line in table.splitlines()) <= width
    flat = " ".join(result.stdout.split())
    assert re.search(r"\(([a-z0-9, ]+) left out at this width; --json has every column\)", flat)
    # Whatever columns remain, the H100 SXM row under them holds the whitepaper's dense peaks.
    h100 = {"fp32": "66.9", "tf32": "494.7", "bf16": "989.4", "fp16": "989.4", "fp8": "1978.9"}
    header = next(line.split() for line in result.stdout.splitlines() if "accelerator" in line)
    assert "bf16" in header and "int8" not in header
    cells = dict(zip(header[2:], _row(result.stdout, "H100-SXM")[2:], strict=True))
    assert cells == {key: h100[key] for key in header[2:]}


def test_sources_flag_prints_each_note_under_the_table(cli) -> None:
    result = cli("gpus", "--sources", env={"COLUMNS": "80"})
    assert result.code == 0, result.stderr
    flat = " ".join(result.stdout.split())
    for entry in _entries():
        assert " ".join(entry["source"].split()) in flat
    assert max(len(line.rstrip()) for line in result.stdout.splitlines()) <= 80


def test_help_ends_with_examples(cli) -> None:
    result = cli("gpus", "--help", env={"COLUMNS": "80"})
    assert result.code == 0
    text = result.stdout
    assert "Examples:" in text
    assert text.index("trainbudget gpus --sources --json") > text.index("Examples:")

"""The terminal at its edges: narrow tables, whole paths, NO_COLOR, progress only on a terminal."""

from __future__ import annotations

import io
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table

from trainbudget.cli.render.text import fit_table, number_column, print_path, print_table

ADMIT = [
    *("admit", "--estimated-gpu-hours", "18.5", "--budget-gpu-hours", "23"),
    *("--expected-interruptions", "2", "--no-ledger"),
]
COLOUR = re.compile(r"\x1b\[[0-9;]*(3[0-7]|9[0-7]|38;[25])[0-9;]*m")


def _console(width: int) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=width, color_system=None, highlight=False), out


def _table(rows: list[list[str]], headers: list[str]) -> Table:
    table = Table()
    for header in headers:
        number_column(table, header)
    for row in rows:
        table.add_row(*row)
    return table


def test_an_empty_column_is_hidden_and_a_full_one_kept() -> None:
    console, out = _console(80)
    table = _table([["1.00", ""], ["2.00", ""]], ["hours", "flags"])
    assert fit_table(console, table) == []
    console.print(table)
    assert "flags" not in out.getvalue() and "2.00" in out.getvalue()


def test_columns_are_dropped_least_important_first_until_the_table_fits() -> None:
    console, out = _console(40)
    headers = ["job", "allocated", "useful", "recovery", "lost", "unverified"]
    table = _table([["102", "84.00", "64.00", "20.00", "0.00", "0.00"]], headers)
    print_table(console, table, ("recovery", "unverified", "useful"))
    text = out.getvalue()
    assert "…" not in text
    assert all(len(line) <= 40 for line in text.splitlines())
    assert "job" in text and "84.00" in text and "recovery" not in text.splitlines()[1]
    assert "not shown at this width: recovery" in text


@settings(max_examples=60, deadline=None)
@given(
    width=st.integers(min_value=30, max_value=120),
    cells=st.lists(
        st.decimals(min_value=-1e9, max_value=1e9, places=2, allow_nan=False), min_size=3
    ),
)
def test_a_number_is_never_cut(width: int, cells: list) -> None:
    """Whatever the width, each number shows whole, or its column is left out and named."""
    console, out = _console(width)
    headers = [f"c{i}x" for i in range(len(cells))]
    table = _table([[f"{c:,}" for c in cells]], headers)
    print_table(console, table, headers[1:])
    text = out.getvalue()
    assert "…" not in text
    shown = [h for h in headers if h in text.split("not shown")[0]]
    for header, cell in zip(headers, cells, strict=True):
        if header in shown:
            assert f"{cell:,}" in text


def test_a_path_is_printed_whole_on_its_own_line() -> None:
    console, out = _console(40)
    path = "/tmp/" + "a-very-long-folder-name/" * 4 + "report.html"
    print_path(console, path, "report:")
    assert out.getvalue().splitlines() == ["report:", path]


def test_no_color_is_respected_on_a_terminal(cli, tmp_path) -> None:
    coloured = cli(*ADMIT, cwd=tmp_path, env={"FORCE_COLOR": "1"})
    plain = cli(*ADMIT, cwd=tmp_path, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert coloured.code == plain.code == 0
    assert COLOUR.search(coloured.stdout), "FORCE_COLOR should colour the verdict"
    assert "ADMIT" in plain.stdout
    assert not COLOUR.search(plain.stdout)


def test_piped_output_has_no_escape_codes_and_no_progress(cli, tmp_path) -> None:
    traces = Path(__file__).resolve().parents[1] / "fixtures/traces/hta_sampled_2rank_a100"
    result = cli("trace", str(traces), "--no-ledger", cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert "\x1b" not in result.stdout + result.stderr
    assert "summarizing" not in result.stderr  # the progress bar is for terminals only

"""cli/coercion.py: option values read as typer would, without importing pydantic."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Annotated

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st

from trainbudget.cli.coercion import install

install()
probe = typer.Typer()


@probe.command()
def _show(
    count: Annotated[int, typer.Option("--count")] = 1,
    name: Annotated[str, typer.Option("--name")] = "x",
    path: Annotated[Path | None, typer.Option("--path")] = None,
    must: Annotated[Path | None, typer.Option("--must", exists=True)] = None,
    tags: Annotated[list[str] | None, typer.Option("--tag")] = None,
    flag: Annotated[bool, typer.Option("--flag")] = False,
) -> None:
    print(repr((count, name, path, must, tags, flag)))


def _run(*args: str) -> tuple[int, str]:
    from typer.testing import CliRunner

    result = CliRunner().invoke(probe, list(args))
    return result.exit_code, result.output


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_a_whole_number_reads_as_int_does(value: int) -> None:
    code, out = _run("--count", str(value))
    assert code == 0 and out.startswith(f"({value}, ")


@settings(max_examples=50, deadline=None)
@given(st.text(min_size=1).filter(lambda t: not t.startswith("-") and "\x00" not in t))
def test_text_passes_through_unchanged(text: str) -> None:
    code, out = _run("--name", text)
    assert code == 0
    assert out.startswith(f"(1, {text!r}, ")


def test_paths_lists_and_flags(tmp_path: Path) -> None:
    code, out = _run("--path", "a/b.csv", "--tag", "x", "--tag", "y", "--flag")
    assert code == 0
    assert out.strip() == repr((1, "x", Path("a/b.csv"), None, ["x", "y"], True))


def test_typer_path_checks_still_apply(tmp_path: Path) -> None:
    code, out = _run("--must", str(tmp_path / "missing.csv"))
    assert code == 2 and "does not exist" in out
    present = tmp_path / "here.csv"
    present.write_text("x")
    assert _run("--must", str(present))[0] == 0


def test_a_bad_whole_number_is_a_usage_error() -> None:
    code, out = _run("--count", "2.5")
    assert code == 2 and "is not a whole number" in out


@pytest.mark.parametrize("argv", [["--help"], ["estimate", "--help"], ["ledger", "--help"]])
def test_no_pydantic_for_our_options(argv: list[str]) -> None:
    probe_code = (
        "import sys\nfrom trainbudget.cli import main\n"
        f"main({argv!r})\n"
        "print('PYDANTIC' if 'pydantic' in sys.modules else 'NONE', file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe_code], capture_output=True, text=True)
    assert proc.stderr.strip().splitlines()[-1] == "NONE"

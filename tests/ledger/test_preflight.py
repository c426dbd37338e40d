"""Ledger locations classified before DuckDB sees them, and damaged ledger files reported as
damaged (issue 23): the damaged file's bytes stay the same, nothing lands under ~."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from trainbudget.base.errors import InputError
from trainbudget.cli.failures import classify
from trainbudget.ledger import Ledger
from trainbudget.ledger.preflight import classify_ledger_location, truncation

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "reconcile"


@pytest.mark.parametrize(
    ("location", "kind"),
    [
        ("trainbudget.duckdb", "file"),
        ("/abs/ledger.duckdb", "file"),
        ("./md:x", "file"),
        ("data/a:b.duckdb", "file"),  # a slash before the colon: a path
        ("ducklake:postgres:dbname=tb host=db", "team"),
        ("md:x", None),
        ("motherduck:x", None),
        ("s3://bucket/ledger.duckdb", None),
        ("https://example.org/l.duckdb", None),
        ("c:ledger.duckdb", None),  # not there: a scheme; `./c:ledger.duckdb` is the file
    ],
)
def test_locations_are_classified_before_duckdb(location: str, kind: str | None) -> None:
    if kind is None:
        with pytest.raises(InputError, match=f"ledger {location}: not a local path"):
            classify_ledger_location(location)
    else:
        assert classify_ledger_location(location) == kind


def test_an_existing_path_with_a_colon_is_a_path(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("md:x").write_bytes(b"")
    assert classify_ledger_location("md:x") == "file"


def _run(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "TRAINBUDGET_LEDGER": str(cwd / "default.duckdb")}
    return subprocess.run(
        [sys.executable, "-m", "trainbudget", *args], cwd=cwd, env=env, capture_output=True,
        text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.mark.parametrize("location", ["md:x", "s3://bucket/ledger.duckdb", "motherduck:tb"])
def test_a_url_ledger_touches_nothing_under_home(tmp_path: Path, location: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc = _run(["ledger", "info", "--ledger", location], tmp_path, home)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [proc.stderr.strip()]
    assert f"ledger {location}: not a local path" in proc.stderr
    assert list(home.iterdir()) == [] and not (tmp_path / "default.duckdb").exists()


@pytest.fixture(scope="module")
def reconciled(tmp_path_factory) -> bytes:
    folder = tmp_path_factory.mktemp("reconciled")
    ledger = folder / "ledger.duckdb"
    proc = _run(
        ["--ledger", str(ledger), "reconcile", "--sacct", str(EXAMPLES / "sacct.psv"), "--json"],
        folder, folder,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return ledger.read_bytes()


def test_a_whole_ledger_is_not_called_truncated(reconciled: bytes, tmp_path: Path) -> None:
    path = tmp_path / "whole.duckdb"
    path.write_bytes(reconciled)
    assert truncation(path) is None
    fresh = tmp_path / "fresh.duckdb"
    Ledger.open(fresh).close()
    assert truncation(fresh) is None


COMMANDS = [
    ["ledger", "info"],
    ["ledger", "init"],
    ["decisions", "--json"],
    ["reconcile", "--sacct", str(EXAMPLES / "sacct.psv"), "--json"],
    ["admit", "--estimated-gpu-hours", "1", "--budget-gpu-hours", "2",
     "--expected-interruptions", "0", "--json"],
    ["reliability", "--json"],
]  # fmt: skip


# A cut at a block boundary leaves a file of whole blocks: the open cannot tell it from a file
# DuckDB trimmed; a command that reads a lost block, and `ledger info` (it reads every table
# whole), report it. Blocks whose checksums fail ("scribbled") are found the same way.
CASES = [(cut, command) for cut in ("half", "headers-only") for command in COMMANDS] + [
    ("scribbled", command) for command in (COMMANDS[0], COMMANDS[3])
]


@pytest.mark.parametrize(
    ("cut", "command"), CASES, ids=lambda c: c if isinstance(c, str) else " ".join(c[:2])
)
def test_a_truncated_ledger_is_reported_and_left_as_it_was(
    reconciled: bytes, tmp_path: Path, cut: str, command: list[str]
) -> None:
    ledger = tmp_path / "cut.duckdb"
    if cut == "scribbled":
        data = bytearray(reconciled)
        for start in range(12_288 + 100, len(data), 262_144):
            data[start : start + 2000] = b"\xff" * 2000
        ledger.write_bytes(bytes(data))
    else:
        ledger.write_bytes(
            reconciled[: {"half": len(reconciled) // 2, "headers-only": 12_288}[cut]]
        )
    before = hashlib.sha256(ledger.read_bytes()).hexdigest()
    proc = _run([*command, "--ledger", str(ledger)], tmp_path, tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.startswith("trainbudget: error: ledger ")
    assert f"{ledger} is damaged or truncated (" in proc.stderr
    assert len(proc.stderr.splitlines()) == 1
    assert hashlib.sha256(ledger.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.duckdb"]  # no WAL, no default


def test_a_damaged_block_met_later_is_reported_as_damage() -> None:
    error = duckdb.IOException(
        'IO Error: Could not read enough bytes from file "/x/ledger.duckdb": attempted to '
        "read 137216 bytes from location 1447936"
    )
    code, message = classify(error)
    assert code == 2
    assert message.startswith("ledger /x/ledger.duckdb is damaged or truncated (IO Error:")

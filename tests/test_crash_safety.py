"""Crash safety and one writer at a time, measured from outside as a user's machine would do it.

A `reconcile` killed with SIGKILL at any moment leaves the ledger as it was before the run or
with the whole run landed, never in between, and a re-run reaches the reference counts. Two
writers started together on one ledger: the second waits for the first (--wait) and both
complete; told not to wait (--wait 0), it gets one "in use" line, exit 1.
"""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

REPO = Path(__file__).resolve().parents[1]
TABLES = ("sources", "sacct_rows", "registry", "progress_events", "quarantine")
pytestmark = pytest.mark.slow


def _generator():
    spec = importlib.util.spec_from_file_location(
        "reconcile_bench", REPO / "bench" / "reconcile_bench.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate


def _command(
    ledger: Path, sacct: Path, registry: Path, progress: Path, wait: str = "120"
) -> list[str]:
    return [sys.executable, "-m", "trainbudget", "reconcile", "--sacct", str(sacct),
            "--registry", str(registry), "--progress", str(progress), "--ledger", str(ledger),
            "--wait", wait, "--json"]  # fmt: skip


def _counts(ledger: Path) -> dict[str, int]:
    with duckdb.connect(str(ledger), read_only=True) as con:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def _init(ledger: Path) -> None:
    subprocess.run([sys.executable, "-m", "trainbudget", "ledger", "init", "--ledger", str(ledger)],
                   check=True, capture_output=True)  # fmt: skip


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("crash")
    files = _generator()(folder, 150_000)
    reference = folder / "reference.duckdb"
    _init(reference)
    subprocess.run(_command(reference, *files), check=True, capture_output=True)
    return folder, files, _counts(reference)


@pytest.mark.parametrize("delay_s", [0.4, 1.0, 1.8, 2.6])
def test_a_killed_reconcile_lands_all_or_nothing(inputs, tmp_path: Path, delay_s: float) -> None:
    _, files, reference = inputs
    ledger = tmp_path / "ledger.duckdb"
    _init(ledger)
    before = _counts(ledger)
    proc = subprocess.Popen(_command(ledger, *files), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    time.sleep(delay_s)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _counts(ledger) in (before, reference)
    rerun = subprocess.run(_command(ledger, *files), capture_output=True)
    assert rerun.returncode == 0, rerun.stderr
    assert _counts(ledger) == reference


def test_two_writers_at_once_the_second_waits_and_both_complete(inputs, tmp_path: Path) -> None:
    _, files, reference = inputs
    ledger = tmp_path / "pair.duckdb"
    _init(ledger)
    first = subprocess.Popen(_command(ledger, *files), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)  # fmt: skip
    time.sleep(1.0)  # both are started while a landing takes seconds
    second = subprocess.run(_command(ledger, *files), capture_output=True, text=True)
    _, first_err = first.communicate(timeout=300)
    assert (first.returncode, second.returncode) == (0, 0), (first_err, second.stderr)
    assert _counts(ledger) == reference


def test_two_writers_at_once_without_waiting_one_is_told(inputs, tmp_path: Path) -> None:
    _, files, reference = inputs
    for pair in range(2):
        ledger = tmp_path / f"pair{pair}.duckdb"
        _init(ledger)
        first = subprocess.Popen(_command(ledger, *files, wait="0"), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)  # fmt: skip
        time.sleep(1.0)  # both are started while a landing takes seconds
        second = subprocess.run(_command(ledger, *files, wait="0"), capture_output=True,
                                text=True)  # fmt: skip
        _, first_err = first.communicate(timeout=300)
        codes = sorted((first.returncode, second.returncode))
        assert codes == [0, 1], (first_err, second.stderr)
        told = second if second.returncode == 1 else first
        message = told.stderr if told is second else first_err
        lines = message.splitlines()
        assert len(lines) == 1 and "in use" in lines[0], message
        assert second.stdout == "" or second.returncode == 0
        assert _counts(ledger) == reference

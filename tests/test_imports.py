"""Layering rules: src/ never imports Prefect; quick commands import no heavy framework."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import FIXTURES

REPO_ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("prefect", "great_expectations", "torch")


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_nothing_under_src_imports_prefect_or_flows() -> None:
    offenders = [
        str(path.relative_to(REPO_ROOT))
        for path in (REPO_ROOT / "src" / "trainbudget").rglob("*.py")
        if _imported_modules(path) & {"prefect", "flows"}
    ]
    assert offenders == []


QUICK_COMMANDS = [
    ["--help"],
    ["--version"],
    ["fit", "--help"],
    ["ledger", "info", "--json"],
    ["reconcile", "--help"],
    [
        *("estimate", "--params", "7e9", "--tokens", "1e11", "--gpus", "8"),
        *("--gpu", "A100-80GB", "--mfu", "0.4", "--price", "1.50", "--json"),
    ],
    ["campaign", str(REPO_ROOT / "examples" / "demo-7b.plan.yaml"), "--json"],
    ["gpus", "--json"],
    ["gpus", "--sources"],
    [
        "admit",
        "--estimated-gpu-hours",
        "18.5",
        "--budget-gpu-hours",
        "23",
        "--expected-interruptions",
        "2",
        "--json",
    ],
    ["decisions", "--json"],
    ["stop-rules", "--wall-hours", "10", "--spent-usd", "5", "--max-wall-hours", "8", "--json"],
    [
        *("decide", "--params", "7e9", "--tokens", "1e11", "--gpus", "8", "--gpu-tflops", "312"),
        *("--mfu", "0.4", "--price", "1.50", "--gain", "0.05", "--gain-uncertainty", "0.02"),
        *("--min-gain", "0.03", "--json"),
    ],
    ["pilot", "--help"],
    ["demo", "--help"],
    ["serve", "--help"],
    [
        *("trace", str(FIXTURES / "traces/hta_amd_mi250")),
        *("--gpu", "A100-80GB", "--json"),
    ],
]


def _run_probe(probe: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run `probe` in a fresh interpreter with a ledger path in tmp_path; it must exit 0."""
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={
            "TRAINBUDGET_LEDGER": str(tmp_path / "l.duckdb"),
            "PATH": "/usr/bin:/bin",
            # The code under test, when it is not the installed one (a worktree's src/).
            **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"},
        },
    )
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.parametrize("argv", QUICK_COMMANDS, ids=lambda a: " ".join(a))
def test_quick_commands_do_not_import_heavy_frameworks(argv: list[str], tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from trainbudget.cli import main\n"
        # Read commands need an existing ledger (they never create one): make it first.
        f"{argv[0]!r} in ('ledger', 'decisions') and main(['ledger', 'init'])\n"
        f"code = main({argv!r})\n"
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})\n"
        "print('HEAVY=' + ','.join(heavy), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    proc = _run_probe(probe, tmp_path)
    heavy_line = [line for line in proc.stderr.splitlines() if line.startswith("HEAVY=")]
    assert heavy_line == ["HEAVY="]


# Made lazy for start-up (issue 17, bench/startup_bench.py): what each quick path must not load.
# The command line is click's: typer (with its pydantic TypeAdapter per option) never loads.
_NO_FRAMES = ("duckdb", "polars", "pandas", "numpy", "scipy", "typer")
_JSON_ONLY = ("pydantic", "yaml", "rich.console", "rich.table")
LAZY_CASES = [
    (
        [
            *("estimate", "--params", "7e9", "--tokens", "1e11", "--gpus", "8"),
            *("--gpu", "A100-80GB", "--mfu", "0.4", "--price", "1.50", "--json"),
        ],
        _NO_FRAMES + _JSON_ONLY,
    ),
    (
        [
            *("admit", "--estimated-gpu-hours", "18.5", "--budget-gpu-hours", "23"),
            *("--expected-interruptions", "2", "--no-ledger", "--json"),
        ],
        _NO_FRAMES + _JSON_ONLY,
    ),
    (
        [
            *("decide", "--params", "7e9", "--tokens", "1e11", "--gpus", "8", "--gpu-tflops"),
            *("312", "--mfu", "0.4", "--price", "1.50", "--gain", "0.05"),
            *("--gain-uncertainty", "0.02", "--min-gain", "0.03", "--no-ledger", "--json"),
        ],
        _NO_FRAMES + _JSON_ONLY,
    ),
    (["gpus", "--json"], _NO_FRAMES + _JSON_ONLY),
    # The plan is read from YAML (which loads) by plan/fields.py's checks, not pydantic.
    (
        ["campaign", str(REPO_ROOT / "examples" / "demo-7b.plan.yaml"), "--json"],
        (*_NO_FRAMES, "pydantic", "pydantic_core"),
    ),
]


@pytest.mark.parametrize(("argv", "lazy"), LAZY_CASES, ids=lambda a: " ".join(a)[:40])
def test_quick_paths_leave_lazy_modules_unloaded(
    argv: list[str], lazy: tuple[str, ...], tmp_path: Path
) -> None:
    probe = (
        "import sys\n"
        "from trainbudget.cli import main\n"
        f"code = main({argv!r})\n"
        f"lazy = {lazy!r}\n"
        "loaded = sorted(m for m in sys.modules if any(m == n or m.startswith(n + '.') "
        "for n in lazy))\n"
        "print('LOADED=' + ','.join(loaded), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    proc = _run_probe(probe, tmp_path)
    assert [line for line in proc.stderr.splitlines() if line.startswith("LOADED=")] == ["LOADED="]
    assert not (tmp_path / "l.duckdb").exists()  # --no-ledger and --json wrote nothing


# Pandera imports pandas whenever pandas is installed (0.5 s, issue 28): a trace run checks its
# rank rows in DuckDB against quality.rules.TRACE_RANK_RULES instead (schemas.TraceRank holds
# the same rules), so neither loads, nor polars; numpy is the summary's own.
_TRACE_LAZY = ("pandas", "pandera", "polars", "pyarrow", "pydantic")


def _assert_none_loaded(argv: list[str], lazy: tuple[str, ...], tmp_path: Path) -> None:
    """Run `trainbudget argv` in a fresh interpreter; none of the `lazy` packages was imported."""
    probe = (
        "import sys\n"
        "from trainbudget.cli import main\n"
        f"code = main({argv!r})\n"
        f"lazy = {lazy!r}\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in lazy)\n"
        "print('LOADED=' + ','.join(loaded), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    proc = _run_probe(probe, tmp_path)
    assert [line for line in proc.stderr.splitlines() if line.startswith("LOADED=")] == ["LOADED="]


def _duckdb_binding_imports_pandas() -> bool:
    """Whether this DuckDB imports pandas to bind a query parameter (1.5.x does, whenever
    pandas is installed; 2.0 does not): then a landed run cannot avoid it."""
    probe = (
        "import sys, duckdb\n"
        "duckdb.connect().execute('SELECT $a', {'a': 1})\n"
        "print('pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    return out.stdout.strip() == "True"


@pytest.mark.parametrize("landing", [[], ["--no-ledger"]], ids=["landed", "no-ledger"])
def test_a_trace_run_does_not_import_pandas(landing: list[str], tmp_path: Path) -> None:
    if not landing and _duckdb_binding_imports_pandas():
        pytest.skip("this DuckDB imports pandas to bind any parameter (the team extra's 1.5.5)")
    argv = ["trace", str(REPO_ROOT / "src/trainbudget/demo_data/traces"), *landing, "--json"]
    _assert_none_loaded(argv, _TRACE_LAZY, tmp_path)
    assert (tmp_path / "l.duckdb").exists() == (not landing)  # the landed run wrote its rows


# A pilot run checks its step rows with Polars against quality.rules.PILOT_STEP_RULES
# (quality/frame.py; schemas.PilotStep holds the same rules): Pandera, and through it pandas,
# never loads; the steps reach DuckDB through the Arrow C stream, not pyarrow; without a
# ledger DuckDB does not load either.
_PILOT_LAZY = ("pandas", "pandera", "great_expectations", "pydantic", "pyarrow", "numpy", "scipy")
_PILOT_NO_LEDGER_LAZY = (*_PILOT_LAZY, "duckdb")


@pytest.mark.parametrize(
    ("landing", "lazy"),
    [([], _PILOT_LAZY), (["--no-ledger"], _PILOT_NO_LEDGER_LAZY)],
    ids=["landed", "no-ledger"],
)
def test_a_pilot_run_does_not_import_pandas(
    landing: list[str], lazy: tuple[str, ...], tmp_path: Path
) -> None:
    if not landing and _duckdb_binding_imports_pandas():
        pytest.skip("this DuckDB imports pandas to bind any parameter (the team extra's 1.5.5)")
    argv = [
        *("pilot", str(REPO_ROOT / "examples" / "pilot-7b.steps.csv")),
        *("--params", "7e9", "--gpu", "H100-SXM", *landing, "--json"),
    ]
    _assert_none_loaded(argv, lazy, tmp_path)
    assert (tmp_path / "l.duckdb").exists() == (not landing)  # the landed run wrote its rows

"""The CLI as a user runs it: help, version, ledger commands, --json, exit codes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from trainbudget import __version__

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_help_and_version(cli) -> None:
    result = cli("--help")
    assert result.code == 0
    assert "ledger" in result.stdout
    version = cli("--version")
    assert version.code == 0
    assert version.stdout.strip() == f"trainbudget {__version__}"


def test_ledger_init_and_info_json(cli, tmp_path: Path) -> None:
    path = tmp_path / "sub" / "book.duckdb"
    init = cli("--ledger", str(path), "ledger", "init", "--json")
    assert init.code == 0, init.stderr
    payload = orjson.loads(init.stdout)  # the whole of stdout is one JSON object
    assert payload["ledger"] == str(path)
    assert payload["applied"] and payload["applied"][0] == 1
    again = cli("ledger", "init", "--ledger", str(path), "--json").json()
    assert again["applied"] == []
    info = cli("ledger", "info", "--json", env={"TRAINBUDGET_LEDGER": str(path)}).json()
    tables = {row["table"]: row["rows"] for row in info["tables"]}
    assert tables["schema_version"] == len(payload["applied"])
    assert tables["sources"] == 0


def test_ledger_info_table_for_people(cli, tmp_path: Path) -> None:
    assert cli("ledger", "init", "--ledger", str(tmp_path / "l.duckdb")).code == 0
    result = cli("ledger", "info", "--ledger", str(tmp_path / "l.duckdb"))
    assert result.code == 0
    assert "quarantine" in result.stdout and "schema_version" in result.stdout


def test_usage_error_is_one_line_exit_2(cli) -> None:
    result = cli("ledger", "info", "--no-such-flag")
    assert result.code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "--no-such-flag" in result.stderr
    assert result.stdout == ""


# --- one error path: every failure is one stderr line, stdout empty, the right exit code ---


PLAN = REPO_ROOT / "examples" / "demo-7b.plan.yaml"
PILOT = REPO_ROOT / "examples" / "pilot-7b.steps.csv"
SACCT = REPO_ROOT / "examples" / "reconcile" / "sacct.psv"
ESTIMATE = ("estimate", "--params", "7e9", "--tokens", "1e11", "--gpus", "8",
            "--gpu", "A100-80GB", "--price", "2.40", "--json")  # fmt: skip


def one_error_line(result, code: int, pattern: str) -> str:
    """Assert exit `code`, empty stdout and exactly one stderr line matching `pattern`."""
    assert result.code == code, result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert re.fullmatch(r"trainbudget: error: " + pattern, lines[0]), lines[0]
    return lines[0]


def _plan_with(tmp_path: Path, old: str, new: str) -> Path:
    text = PLAN.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "plan.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


MAIN = "main:       {gpus: 8, hours: 120}"


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (
            ("--gpus", "1e30"),
            r"--gpus: must be at most 10,000,000 GPUs \(sane bound\), got 1\.000E\+30",
        ),
        (("--tokens", "1e300"), r"params, tokens: gives 4\.200E\+310 FLOPs, beyond .*"),
        (("--params", "1e400"), r"--params: must be a number within 1e±300, got '1e400'"),
        (("--price", "1e290"), r"price: gives 9\.348E\+293 USD, beyond the sane bound .*"),
        (("--gpus", "-3"), r"--gpus: .*"),
    ],
)
def test_estimate_absurd_magnitudes_are_exit_2_naming_the_field(cli, args, pattern) -> None:
    argv = list(ESTIMATE)
    for flag, value in zip(args[::2], args[1::2], strict=True):
        argv[argv.index(flag) + 1] = value
    one_error_line(cli(*argv), 2, pattern)


@pytest.mark.parametrize("record", [False, True])
def test_campaign_hours_1e308_is_exit_2_and_records_nothing(cli, tmp_path, record) -> None:
    plan = _plan_with(tmp_path, MAIN, "main: {gpus: 8, hours: 1e308}")
    ledger = tmp_path / "l.duckdb"
    extra = ("--record",) if record else ()
    result = cli("--ledger", str(ledger), "campaign", str(plan), *extra, "--json")
    one_error_line(result, 2, r"main \(GPUs × hours\): gives 8\.000E\+308 GPU-hours, beyond .*")
    assert not ledger.exists()


def test_campaign_gpus_10_pow_30_is_exit_2(cli, tmp_path) -> None:
    plan = _plan_with(tmp_path, MAIN, "main: {gpus: 10^30, hours: 120}")
    result = cli("--ledger", str(tmp_path / "l.duckdb"), "campaign", str(plan), "--record")
    one_error_line(result, 2, re.escape(str(plan)) + r":\d+: main\.gpus: .*")
    assert not (tmp_path / "l.duckdb").exists()


def test_campaign_price_beyond_bound_names_the_price(cli, tmp_path) -> None:
    plan = _plan_with(tmp_path, "gpu_hour_usd: 2.40", "gpu_hour_usd: 1e200")
    one_error_line(cli("campaign", str(plan), "--json"), 2, r".*prices\.gpu_hour_usd: gives .*")


def test_binary_plan_names_file_and_line(cli, tmp_path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_bytes(b"campaign: x\n\x00\x9e\xff garbage\n")
    expected = r":2: not a YAML plan: the file is binary \(a NUL byte\)"
    one_error_line(cli("campaign", str(plan)), 2, re.escape(str(plan)) + expected)


@pytest.mark.parametrize(
    ("body", "line"),
    [
        (b"JobID|State\n\xff\xfe|x\n", 2),  # non-UTF-8 (UTF-16 byte order mark)
        (bytes(range(256)) * 4, 2),  # binary: 0x0a ends line 1, 0x80 is the first bad byte
        (b"JobID|State\n1|caf\xc3", 2),  # ends inside a multi-byte character
    ],
)
def test_sacct_not_utf8_is_exit_2_naming_the_line(cli, tmp_path, body, line) -> None:
    sacct, ledger = tmp_path / "week.psv", tmp_path / "l.duckdb"
    sacct.write_bytes(body)
    result = cli("--ledger", str(ledger), "reconcile", "--sacct", str(sacct), "--json")
    one_error_line(result, 2, re.escape(str(sacct)) + f":{line}: not UTF-8 text .*")
    assert _rows(ledger, "sources") == 0


@pytest.mark.parametrize(("body", "line"), [(b'{"job_id": "\xff"}\n', 1), (bytes(range(256)), 2)])
def test_progress_not_utf8_is_exit_2(cli, tmp_path, body, line) -> None:
    progress, ledger = tmp_path / "progress.jsonl", tmp_path / "l.duckdb"
    progress.write_bytes(body)
    result = cli("--ledger", str(ledger), "reconcile", "--sacct", str(SACCT),
                 "--progress", str(progress), "--json")  # fmt: skip
    one_error_line(result, 2, re.escape(str(progress)) + f":{line}: not UTF-8 text .*")
    assert _rows(ledger, "sources") == 0  # the run is one transaction: sacct not kept either


def test_sacct_line_over_2_mib_is_quarantined_not_a_crash(cli, tmp_path) -> None:
    sacct, ledger = tmp_path / "week.psv", tmp_path / "l.duckdb"
    text = SACCT.read_bytes()
    sacct.write_bytes(text + b"1|" + b"x" * (3 << 20) + b"\n")
    result = cli("--ledger", str(ledger), "reconcile", "--sacct", str(sacct), "--json")
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr
    expected_line = text.count(b"\n") + 1
    import duckdb

    with duckdb.connect(str(ledger), read_only=True) as con:
        rows = con.execute("SELECT source_line, length(raw) FROM quarantine").fetchall()
    assert rows == [(expected_line, 2 + (3 << 20))]
    assert result.json()["totals"]["jobs"] == 7


def test_shape_mix_the_pilot_never_ran_is_exit_2(cli, tmp_path) -> None:
    result = cli("--ledger", str(tmp_path / "l.duckdb"), "pilot", str(PILOT),
                 "--shape-mix", "8192=1.0", "--json")  # fmt: skip
    one_error_line(result, 2, r"shape_mix: the pilot never ran any declared shape .*")


def test_demo_out_at_an_existing_file_is_exit_2(cli, tmp_path) -> None:
    target = tmp_path / "a-file"
    target.write_text("keep me\n")
    one_error_line(cli("demo", "--out", str(target)), 2, r"--out: .* is not a folder.*")
    assert target.read_text() == "keep me\n"


def test_debug_shows_the_traceback(cli_process) -> None:
    """The interpreter prints the re-raised error: a test of the process, not in-process."""
    argv = list(ESTIMATE)
    argv[argv.index("--gpus") + 1] = "1e30"
    result = cli_process("--debug", *argv)
    assert result.code == 1 and result.stdout == ""
    assert "Traceback" in result.stderr and "InputError" in result.stderr


def _run_to(stdout, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trainbudget", *args], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=120)  # fmt: skip


@pytest.mark.parametrize("as_json", [True, False])
def test_stdout_to_dev_full_is_exit_1_one_line(as_json) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    argv = ESTIMATE if as_json else ESTIMATE[:-1]
    with open("/dev/full", "w") as full:
        proc = _run_to(full, *argv)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == ["trainbudget: error: stdout: no space left on device"]


def test_stdout_closed_pipe_is_exit_1_one_line() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before anything is written
    with os.fdopen(write_end, "w") as closed:
        proc = _run_to(closed, *ESTIMATE)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        "trainbudget: error: stdout: broken pipe (the reader closed it)"
    ]


@pytest.fixture
def tiny_mount(tmp_path):
    """A 64 KiB tmpfs (needs root; skipped elsewhere), unmounted after the test."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a tmpfs needs root")
    mounted = []

    def mount(options: str) -> Path:
        where = tmp_path / f"mnt{len(mounted)}"
        where.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                              capture_output=True)  # fmt: skip
        if done.returncode:
            pytest.skip(f"cannot mount a tmpfs: {done.stderr!r}")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        subprocess.run(["umount", str(where)], check=False)


def test_disk_full_ledger_is_exit_1(cli, tiny_mount) -> None:
    where = tiny_mount("size=64k")
    (where / "filler").write_bytes(b"x" * 60_000)
    result = cli("--ledger", str(where / "l.duckdb"), "ledger", "init")
    one_error_line(result, 1, r"ledger .*l\.duckdb: no space left on device .*")


def test_read_only_file_system_is_exit_1(cli, tiny_mount) -> None:
    where = tiny_mount("ro,size=64k")
    for ledger in (where / "l.duckdb", where / "sub" / "l.duckdb"):
        result = cli("--ledger", str(ledger), "ledger", "init")
        one_error_line(result, 1, r".*: read-only file system.*")


@pytest.mark.parametrize("command", [("ledger", "info"), ("decisions",), ("decisions", "--json")])
def test_read_commands_on_a_missing_ledger_create_nothing(cli, tmp_path, command) -> None:
    ledger = tmp_path / "typo" / "deeper" / "l.duckdb"
    result = cli("--ledger", str(ledger), *command)
    one_error_line(result, 2, f"ledger: no ledger at {re.escape(str(ledger))} .*")
    assert list(tmp_path.iterdir()) == []


def test_mfu_from_a_missing_ledger_creates_nothing(cli, tmp_path) -> None:
    ledger = tmp_path / "typo" / "l.duckdb"
    result = cli("--ledger", str(ledger), *ESTIMATE, "--mfu-from", "pilot")
    one_error_line(result, 2, f"ledger: no ledger at {re.escape(str(ledger))} .*")
    assert list(tmp_path.iterdir()) == []


def _rows(ledger: Path, table: str) -> int:
    if not ledger.exists():
        return 0
    import duckdb

    with duckdb.connect(str(ledger), read_only=True) as con:
        return con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_stdout_closed_is_exit_1_one_line() -> None:
    proc = subprocess.run([sys.executable, "-c", "import os, runpy, sys; os.close(1); "
                           "sys.argv = ['trainbudget', *sys.argv[1:]]; "
                           "runpy.run_module('trainbudget', run_name='__main__')", *ESTIMATE],
                          stderr=subprocess.PIPE, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 1
    [line] = proc.stderr.splitlines()  # EBADF on fd 1: one line, exit 1
    assert re.fullmatch(r"trainbudget: error: stdout: .*", line), line


@pytest.mark.parametrize(
    "command",
    [
        ("reconcile", "--sacct", "no-such.psv"),
        ("pilot", "no-such.csv"),
        ("trace", "no-such.json"),
    ],
)
def test_bad_input_to_a_write_command_leaves_no_new_ledger(cli, tmp_path, command) -> None:
    ledger = tmp_path / "new" / "l.duckdb"
    result = cli("--ledger", str(ledger), *command, cwd=tmp_path)
    one_error_line(result, 2, r".*no-such\.\w+: no such file.*")
    assert [p.name for p in tmp_path.iterdir()] == []


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["estimate", "--tokens", "1e11", "--gpus", "8", "--price", "2", "--json"], "--params"),
        (["admit", "--estimated-gpu-hours", "100", "--json"], "--expected-interruptions"),
        (["prelaunch", str(PLAN), "--json"], "--pilot-log"),
        (["fit", "x.csv", "--target-tokens", "1e9"], "--target-params"),
        (["decide", "--params", "7e9", "--json"], "--min-gain"),
        (["stop-rules", "--wall-hours", "1"], "--spent-usd"),
    ],
)
def test_a_missing_required_option_is_a_usage_error(cli, tmp_path, argv, flag) -> None:
    one_error_line(cli(*argv, cwd=tmp_path), 2, re.escape(f"Missing option '{flag}'."))

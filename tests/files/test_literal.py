"""Input paths are literal (issue 15): `week*.psv`, `a[1].csv`, `what?.jsonl` name one file each.

Each case writes the file with the glob-like name beside decoys its pattern would match (and a
decoy named with the pattern characters removed), lands or reads it, and checks that only the
named file's own rows arrived: counts and ids written here, not derived from the code.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

import duckdb
import orjson
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.files.literal import duckdb_path
from trainbudget.ledger import Ledger
from trainbudget.pilot.ingest import read_step_log
from trainbudget.reconcile.land import land_manifest, land_progress, land_registry, land_sacct
from trainbudget.scaling.load import read_ablations
from trainbudget.trace.parse import read_trace
from trainbudget.trace.ranks import trace_files

from ..reconcile.conftest import HEADER, sacct_line

# (literal name, decoys its pattern matches or that differ only by the pattern characters)
NAMES = [
    ("week*{ext}", ["week1{ext}", "week2{ext}", "week{ext}"]),
    ("a[1]{ext}", ["a1{ext}", "a{ext}"]),
    ("what?{ext}", ["whatx{ext}", "what{ext}"]),
]


def _line(job_id: int) -> str:
    """Job `job_id`: 2 GPUs for an hour from 2026-11-23T00:00."""
    return sacct_line(str(job_id), tres="cpu=8,gres/gpu=2,node=1")


def _sacct_text(job_ids: list[int], crlf: bool = False) -> bytes:
    end = "\r\n" if crlf else "\n"
    return end.join([HEADER, *(_line(j) for j in job_ids)]).encode() + end.encode()


def _sacct_json(job_ids: list[int]) -> bytes:
    jobs = [
        {
            "job_id": j, "name": "train", "account": "proj", "partition": "gpu",
            "state": {"current": ["COMPLETED"]},
            "exit_code": {"status": ["SUCCESS"],
                          "return_code": {"set": True, "infinite": False, "number": 0}},
            "time": {"elapsed": 3600, "submission": 1795392000, "start": 1795392000,
                     "end": 1795395600},
            "tres": {"allocated": [{"type": "gres", "name": "gpu", "count": 2}]},
        }
        for j in job_ids
    ]  # fmt: skip
    return json.dumps({"jobs": jobs}).encode()


def _write_family(folder: Path, literal: str, decoys: list[str], make) -> Path:
    """The literal file holds ids 1..3; decoy k holds ids 100k+1..100k+5."""
    for k, name in enumerate(decoys, start=1):
        (folder / name).write_bytes(make(list(range(100 * k + 1, 100 * k + 6))))
    target = folder / literal
    target.write_bytes(make([1, 2, 3]))
    return target


def _job_ids(ledger: Ledger) -> list[str]:
    return [r[0] for r in ledger.con.execute("SELECT job_id FROM sacct_rows ORDER BY 1").fetchall()]


@pytest.mark.parametrize(("pattern", "decoys"), NAMES)
@pytest.mark.parametrize(
    ("ext", "make"),
    [
        (".psv", _sacct_text),
        (".crlf.psv", lambda ids: _sacct_text(ids, crlf=True)),  # the read_text fallback
        (".json", _sacct_json),
    ],
    ids=["text", "text-crlf", "json"],
)
def test_sacct_lands_only_the_named_file(tmp_path, ledger, pattern, decoys, ext, make) -> None:
    target = _write_family(
        tmp_path, pattern.format(ext=ext), [d.format(ext=ext) for d in decoys], make
    )
    landed = land_sacct(ledger, target)
    assert (landed.rows_landed, landed.rows_quarantined) == (3, 0)
    assert _job_ids(ledger) == ["1", "2", "3"]


def _progress(job_ids: list[int]) -> bytes:
    events = [
        {"job_id": str(j), "time": "2026-11-23T00:00:00Z", "event": "start", "resumed_from_step": 0}
        for j in job_ids
    ]
    return b"\n".join(orjson.dumps(e) for e in events) + b"\n"


def _registry(job_ids: list[int]) -> bytes:
    rows = [f"{j},exp-{j},main,rev,snap,true," for j in job_ids]
    header = (
        "job_id,experiment_id,work_class,code_revision,data_snapshot,result_valid,diagnosed_cause"
    )
    return "\n".join([header, *rows]).encode() + b"\n"


def _manifest(job_ids: list[int]) -> bytes:
    rows = [
        f"ckpt-{j},exp-{j},{j},{j},1000,2026-11-23T08:00:00Z,recovery,2027-01-22" for j in job_ids
    ]
    header = "artifact_id,experiment_id,job_id,step,size_bytes,created,role,retain_until"
    return "\n".join([header, *rows]).encode() + b"\n"


@pytest.mark.parametrize(("pattern", "decoys"), NAMES)
@pytest.mark.parametrize(
    ("ext", "make", "land", "table"),
    [
        (".jsonl", _progress, land_progress, "progress_events"),
        (".csv", _registry, land_registry, "registry"),
        (".csv", _manifest, land_manifest, "manifest"),
    ],
    ids=["progress", "registry", "manifest"],
)
def test_joins_land_only_the_named_file(
    tmp_path, ledger, pattern, decoys, ext, make, land, table
) -> None:
    target = _write_family(
        tmp_path, pattern.format(ext=ext), [d.format(ext=ext) for d in decoys], make
    )
    assert land(ledger, target).rows_landed == 3
    ids = ledger.con.execute(f"SELECT DISTINCT job_id FROM {table} ORDER BY 1").fetchall()
    assert [r[0] for r in ids] == ["1", "2", "3"]


def _steps_csv(job_ids: list[int]) -> bytes:
    header = "run_id,step,wall_seconds,tokens,seq_len,batch_size,gpus,peak_memory_bytes"
    rows = [f"run-{j},{j},3.5,262144,4096,64,8,65700000000" for j in job_ids]
    return "\n".join([header, *rows]).encode() + b"\n"


def _steps_parquet(job_ids: list[int]) -> bytes:
    frame = pl.read_csv(_steps_csv(job_ids))
    path = Path(tempfile.mkdtemp()) / "steps.parquet"
    frame.write_parquet(path)
    return path.read_bytes()


def _steps_jsonl(job_ids: list[int]) -> bytes:
    frame = pl.read_csv(_steps_csv(job_ids))
    return b"".join(orjson.dumps(row) + b"\n" for row in frame.iter_rows(named=True))


@pytest.mark.parametrize(("pattern", "decoys"), NAMES)
@pytest.mark.parametrize(
    ("ext", "make"),
    [(".csv", _steps_csv), (".parquet", _steps_parquet), (".jsonl", _steps_jsonl)],
)
def test_pilot_logs_read_only_the_named_file(tmp_path, pattern, decoys, ext, make) -> None:
    target = _write_family(
        tmp_path, pattern.format(ext=ext), [d.format(ext=ext) for d in decoys], make
    )
    log = read_step_log(target)
    assert sorted(log.steps["step"].to_list()) == [1, 2, 3]


def _ablations(job_ids: list[int]) -> bytes:
    # Five (N, D) points per file, offset by the first id so files are told apart by params.
    base = job_ids[0]
    rows = [f"{(base + i) * 10**8},{(i + 1) * 10**10},{3.0 - i * 0.1}" for i in range(5)]
    return "\n".join(["params,tokens,loss", *rows]).encode() + b"\n"


@pytest.mark.parametrize(("pattern", "decoys"), NAMES)
def test_ablations_read_only_the_named_file(tmp_path, pattern, decoys) -> None:
    target = _write_family(
        tmp_path, pattern.format(ext=".csv"), [d.format(ext=".csv") for d in decoys], _ablations
    )
    points = read_ablations(target)
    assert sorted(int(p) for p in points.params) == [(1 + i) * 10**8 for i in range(5)]


def _trace(job_ids: list[int]) -> bytes:
    events = [
        {"ph": "X", "cat": "kernel", "name": f"k{j}", "ts": 10 * j, "dur": 5,
         "args": {"stream": 7, "correlation": j}}
        for j in job_ids
    ]  # fmt: skip
    return orjson.dumps({"schemaVersion": 1, "traceEvents": events})


@pytest.mark.parametrize(("pattern", "decoys"), NAMES)
def test_traces_read_only_the_named_file(tmp_path, pattern, decoys) -> None:
    target = _write_family(
        tmp_path, pattern.format(ext=".json"), [d.format(ext=".json") for d in decoys], _trace
    )
    assert trace_files([target]) == [target]
    assert read_trace(target).gpu_corr.tolist() == [1, 2, 3]


def test_a_pattern_that_names_no_file_is_not_expanded(tmp_path) -> None:
    (tmp_path / "rank0.json").write_bytes(_trace([1]))
    with pytest.raises(InputError, match=r"rank\*\.json: no such file or folder"):
        trace_files([tmp_path / "rank*.json"])
    with Ledger.open(tmp_path / "l.duckdb") as book, pytest.raises(InputError, match=r"week\*"):
        land_sacct(book, tmp_path / "week*.psv")


def test_plain_names_are_passed_as_their_absolute_path(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with duckdb_path("week1.psv") as name:
        assert name == str(tmp_path / "week1.psv")
    with duckdb_path("~week1.psv") as name:  # no home-folder expansion either
        assert name == str(tmp_path / "~week1.psv")


def test_a_glob_name_is_linked_in_a_private_folder_removed_after(tmp_path) -> None:
    target = tmp_path / "a[1].psv"
    target.write_text("x\n")
    with duckdb_path(target) as name:
        link = Path(name)
        assert link.name == "input.psv" and link.resolve() == target.resolve()
        assert stat.S_IMODE(link.parent.stat().st_mode) == 0o700
    assert not link.parent.exists()


def test_reconcile_command_counts_only_the_named_export(tmp_path, cli) -> None:
    """The issue's case: --sacct 'week*.psv' beside week1.psv read both (13 jobs, not 7)."""
    (tmp_path / "week1.psv").write_bytes(_sacct_text(list(range(100, 106))))
    (tmp_path / "week*.psv").write_bytes(_sacct_text(list(range(1, 8))))
    result = cli(
        "--ledger", str(tmp_path / "l.duckdb"), "reconcile", "--sacct", str(tmp_path / "week*.psv"),
        "--json",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    payload = result.json()
    assert sorted(int(job["job_id"]) for job in payload["jobs"]) == list(range(1, 8))


# --- property: any file name with pattern characters is read as exactly that file ------------

name_characters = st.sampled_from(list("ab1_-.~ *?[]{}\\!^,"))
file_names = st.text(name_characters, min_size=1, max_size=24).filter(
    lambda n: n not in {".", ".."} and "/" not in n
)


def _matches_of(name: str) -> set[str]:
    """Names the pattern reading of `name` would likely also match (the decoys)."""
    plain = name.replace("[", "").replace("]", "")
    return {
        plain.replace("*", "").replace("?", "a"),
        plain.replace("*", "a1").replace("?", "1"),
        name.replace("*", "").replace("?", "b"),
    } - {name, "", ".", ".."}


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(file_names, st.lists(file_names, max_size=3))
def test_duckdb_reads_exactly_the_named_file(tmp_path, name, others) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    decoys = (_matches_of(name) | set(others)) - {name}
    for k, decoy in enumerate(sorted(decoys)):
        (folder / decoy).write_text(f"decoy {k}\n")
    target = folder / name
    target.write_text("the one\n")
    con = duckdb.connect()
    with duckdb_path(target) as literal:
        rows = con.execute("SELECT content FROM read_text($p)", {"p": literal}).fetchall()
        lines = con.execute(
            "SELECT count(*) FROM read_csv($p, columns = {'line': 'VARCHAR'}, header = false)",
            {"p": literal},
        ).fetchone()
    assert rows == [("the one\n",)]
    assert lines == (1,)
    assert sorted(os.listdir(folder)) == sorted({name, *decoys})


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(file_names.filter(lambda n: any(c in n for c in "*?[")))
def test_sacct_landing_reads_exactly_the_named_file(tmp_path, name) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    for decoy in _matches_of(name) - {"l.duckdb"}:
        (folder / decoy).write_bytes(_sacct_text([900, 901]))
    (folder / name).write_bytes(_sacct_text([1, 2, 3]))
    with Ledger.open(folder / "l.duckdb") as book:
        assert land_sacct(book, folder / name).rows_landed == 3
        assert _job_ids(book) == ["1", "2", "3"]

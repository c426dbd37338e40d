"""Reading step logs: three formats, exact line numbers, bad rows rejected with their reason."""

from __future__ import annotations

import csv
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainbudget.base.errors import InputError
from trainbudget.pilot.ingest import read_step_log
from trainbudget.quality.rules import MAX_STEP_SECONDS


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_every_format_reads_the_same_rows(make_log, row, suffix: str) -> None:
    rows = [row(0, 1.5), row(1, 0.25, checkpoint_seconds=12.5, checkpoint_bytes=10**9)]
    log = read_step_log(make_log(rows, f"steps{suffix}"))
    assert log.rejected == ()
    assert log.steps["step"].to_list() == [0, 1]
    assert log.steps["wall_seconds"].to_list() == [1.5, 0.25]
    assert log.steps["tokens"].to_list() == [16384, 16384]
    assert log.steps["checkpoint_bytes"].to_list() == [None, 10**9]
    expected_lines = [2, 3] if suffix == ".csv" else [1, 2]  # CSV line 1 is the header
    assert log.steps["source_line"].to_list() == expected_lines


BAD_ROWS = [
    ({"wall_seconds": -0.5}, "wall_seconds: must be greater than 0"),
    ({"wall_seconds": 0}, "wall_seconds: must be greater than 0"),
    ({"wall_seconds": "abc"}, "wall_seconds: not a number"),
    ({"wall_seconds": "inf"}, "wall_seconds: must be a finite number"),
    ({"wall_seconds": "nan"}, "wall_seconds: must be a finite number"),
    ({"seq_len": 2048.5}, "seq_len: not a whole number"),
    ({"gpus": 0}, "gpus: must be greater than 0"),
    ({"step": -1}, "step: must be at least 0"),
    ({"tokens": None}, "needs tokens or samples"),
    ({"run_id": None}, "run_id: required, but empty"),
    ({"checkpoint_seconds": -1}, "checkpoint_seconds: must be at least 0"),
    ({"peak_memory_bytes": "lots"}, "peak_memory_bytes: not a whole number"),
    # Absurd values (issue 15): bounds of quality.rules, written out here as numbers.
    ({"wall_seconds": 604801}, "wall_seconds: must be at most 604800, found 604801"),
    ({"gpus": 1_000_001}, "gpus: must be at most 1000000, found 1000001"),
    ({"tokens": 10**15 + 1}, "tokens: must be at most 1000000000000000"),
    ({"peak_memory_bytes": 2**44 + 1}, "peak_memory_bytes: must be at most 17592186044416"),
    ({"checkpoint_seconds": 10**6}, "checkpoint_seconds: must be at most 604800"),
    ({"checkpoint_bytes": 10**15 + 1}, "checkpoint_bytes: must be at most 1000000000000000"),
]


@pytest.mark.parametrize(("override", "reason"), BAD_ROWS, ids=[r for _, r in BAD_ROWS])
def test_a_bad_row_is_rejected_with_its_line_and_reason(make_log, row, override, reason) -> None:
    rows = [row(0, 1.0), row(1, 1.0) | override, row(2, 1.0)]
    log = read_step_log(make_log(rows))
    assert log.steps["step"].to_list() == [0, 2]
    assert len(log.rejected) == 1
    assert log.rejected[0].line == 3
    assert reason in log.rejected[0].reason
    assert log.rejected[0].raw.startswith('{"run_id":') and '"step":' in log.rejected[0].raw


def test_whole_numbers_written_as_floats_are_accepted(make_log, row) -> None:
    log = read_step_log(make_log([row(0, 1.0, seq_len="2048.0", peak_memory_bytes=1e9)]))
    assert log.rejected == ()
    assert log.steps["seq_len"].to_list() == [2048]
    assert log.steps["peak_memory_bytes"].to_list() == [10**9]


def test_samples_may_replace_tokens(make_log, row) -> None:
    rows = [{k: v for k, v in row(0, 1.0).items() if k != "tokens"} | {"samples": 8}]
    log = read_step_log(make_log(rows))
    assert log.steps["samples"].to_list() == [8]
    assert log.steps["tokens"].to_list() == [None]


def test_a_repeated_step_keeps_the_first_row(make_log, row) -> None:
    log = read_step_log(make_log([row(0, 1.0), row(0, 9.0), row(1, 1.0)]))
    assert log.steps["wall_seconds"].to_list() == [1.0, 1.0]
    assert [r.line for r in log.rejected] == [3]
    assert "already at line 2" in log.rejected[0].reason


def test_csv_line_numbers_count_quoted_newlines(tmp_path: Path, row) -> None:
    path = tmp_path / "steps.csv"
    rows = [row(0, 1.0, run_id="multi\nline"), row(1, -1.0, run_id="multi\nline")]
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    log = read_step_log(path)
    # Header = line 1; the first record spans lines 2-3, so the second starts on line 4.
    assert log.steps["source_line"].to_list() == [2]
    assert [r.line for r in log.rejected] == [4]


def test_jsonl_bad_lines_are_rejected_and_blank_lines_skipped(tmp_path: Path, row) -> None:
    import orjson

    path = tmp_path / "steps.jsonl"
    path.write_bytes(
        orjson.dumps(row(0, 1.0)) + b"\n\n{not json\n[1, 2]\n" + orjson.dumps(row(1, 1.0)) + b"\n"
    )
    log = read_step_log(path)
    assert log.steps["source_line"].to_list() == [1, 5]
    assert [(r.line, r.reason.split(":")[0]) for r in log.rejected] == [
        (3, "invalid JSON"),
        (4, "expected a JSON object per line"),
    ]


@pytest.mark.parametrize(
    ("content", "name", "message"),
    [
        ("run_id,step\nr1,0\n", "steps.csv", "missing column(s) wall_seconds"),
        (
            "run_id,step,wall_seconds,seq_len,batch_size,gpus,peak_memory_bytes\nr,0,1,1,1,1,1\n",
            "steps.csv",
            "missing column(s) tokens (or samples)",
        ),
        ("", "steps.csv", "empty file"),
        (",".join(["run_id", "step"]) + "\n", "steps.csv", "no step rows"),
        ("a,b\n", "steps.txt", "unknown step-log format '.txt'"),
        ("not parquet", "steps.parquet", "not a readable Parquet file"),
        (b"\xff\xfe".decode("latin-1"), "steps.csv", "not UTF-8"),
    ],
)
def test_file_level_faults_are_one_clear_error(tmp_path: Path, content, name, message) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="latin-1")
    with pytest.raises(InputError) as error:
        read_step_log(path)
    assert str(path) in str(error.value)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_a_file_with_no_valid_row_is_an_error_naming_the_first_bad_line(make_log, row) -> None:
    with pytest.raises(InputError, match=r"no valid step rows \(2 rejected; first: line 2: wall"):
        read_step_log(make_log([row(0, -1.0), row(1, "x")]))


# --- properties ----------------------------------------------------------------------------

# Up to the declared bound of one step (quality.rules.MAX_STEP_SECONDS, a week).
finite_seconds = st.floats(
    min_value=1e-6, max_value=MAX_STEP_SECONDS, allow_nan=False, allow_infinity=False
)
valid_rows = st.lists(
    st.tuples(
        finite_seconds,
        st.integers(1, 2**40),
        st.integers(1, 2**17),
        st.integers(1, 4096),
        st.integers(1, 1024),
    ),
    min_size=1,
    max_size=30,
)
garbage = st.text(alphabet=string.ascii_letters + "-.", min_size=1, max_size=6).filter(
    lambda s: s.lower() not in {"inf", "nan", "-inf", "infinity", "-infinity"}
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=valid_rows, suffix=st.sampled_from([".csv", ".jsonl", ".parquet"]))
def test_valid_rows_round_trip_exactly(make_log, row, rows, suffix) -> None:
    written = [
        row(i, seconds, peak_memory_bytes=memory, tokens=tokens, seq_len=seq, batch_size=batch)
        for i, (seconds, memory, tokens, seq, batch) in enumerate(rows)
    ]
    log = read_step_log(make_log(written, f"steps{suffix}"))
    assert log.rejected == ()
    assert log.steps["wall_seconds"].to_list() == [r["wall_seconds"] for r in written]
    assert log.steps["peak_memory_bytes"].to_list() == [r["peak_memory_bytes"] for r in written]
    assert log.steps["tokens"].to_list() == [r["tokens"] for r in written]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    count=st.integers(1, 20),
    bad=st.dictionaries(
        st.integers(0, 19),
        st.tuples(st.sampled_from(["wall_seconds", "seq_len", "gpus", "tokens"]), garbage),
    ),
    suffix=st.sampled_from([".csv", ".jsonl"]),
)
def test_every_row_is_either_kept_or_rejected_at_its_own_line(
    make_log, row, count, bad, suffix
) -> None:
    rows = [row(i, 1.0) for i in range(count)]
    for index, (column, text) in bad.items():
        if index < count:
            rows[index][column] = text
    log = read_step_log(make_log(rows, f"steps{suffix}")) if len(bad) < count else None
    if log is None:
        return
    first_line = 2 if suffix == ".csv" else 1
    rejected_lines = sorted(first_line + i for i in bad if i < count)
    assert [r.line for r in log.rejected] == rejected_lines
    kept = sorted(set(range(first_line, first_line + count)) - set(rejected_lines))
    assert log.steps["source_line"].to_list() == kept


def test_a_ragged_csv_row_is_rejected(tmp_path: Path, make_log, row) -> None:
    path = make_log([row(0, 1.0), row(1, 1.0)])
    path.write_text(path.read_text() + "r1,2,1.0\n")
    log = read_step_log(path)
    assert log.steps["step"].to_list() == [0, 1]
    assert [(r.line, r.reason) for r in log.rejected] == [(4, "3 fields, header has 10")]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=valid_rows, bad=st.sets(st.integers(0, 29)))
def test_quoted_and_plain_csv_read_alike(tmp_path: Path, row, rows, bad) -> None:
    written = [
        row(i, -1.0 if i in bad else seconds, tokens=tokens, seq_len=seq, batch_size=batch)
        for i, (seconds, _, tokens, seq, batch) in enumerate(rows)
    ]
    logs = []
    for quoting in (csv.QUOTE_MINIMAL, csv.QUOTE_ALL):  # plain: Polars; quoted: csv module
        path = tmp_path / f"q{quoting}.csv"
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(written[0]), quoting=quoting)
            writer.writeheader()
            writer.writerows(written)
        if all(i in bad for i in range(len(written))):
            with pytest.raises(InputError):
                read_step_log(path)
            return
        logs.append(read_step_log(path))
    plain, quoted = logs
    assert plain.steps.equals(quoted.steps)
    assert [(r.line, r.reason) for r in plain.rejected] == [
        (r.line, r.reason) for r in quoted.rejected
    ]


def test_a_missing_file_or_a_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope\.csv: no such file$"):
        read_step_log(tmp_path / "nope.csv")
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(InputError, match=r"dir\.csv: no such file \(a folder\)"):
        read_step_log(tmp_path / "dir.csv")
